// Package input is an API whose types use what client-go ships no apply
// configuration for, as capsule's does: meta/v1 structs without one
// (GroupVersionKind inline, ListMeta), a named type the package does not
// export, and pointers to a struct kept as a value.
//
// +groupName=meta.example.com
// +kubebuilder:object:generate=true
package input

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// state is not exported; the field holding it is.
// +kubebuilder:validation:Enum=Active;Cordoned
type state string

const (
	StateActive   state = "Active"
	StateCordoned state = "Cordoned"
)

// Matcher holds nothing encoding/json sees: a value.
type Matcher struct {
	expr string
}

// QuotaItem names a kind, inline, and an object of it.
type QuotaItem struct {
	metav1.GroupVersionKind `json:",inline"`
	Name                    string `json:"name,omitempty"`
}

type WidgetSpec struct {
	Items    []QuotaItem     `json:"items,omitempty"`
	Page     metav1.ListMeta `json:"page,omitempty"`
	State    state           `json:"state,omitempty"`
	Matchers []*Matcher      `json:"matchers,omitempty"`
}

// +kubebuilder:object:root=true

// Widget is a kind.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec,omitempty"`
}

func (in *Widget) DeepCopyObject() runtime.Object { out := *in; return &out }
