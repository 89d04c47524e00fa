// Package input has kinds and fields named like the identifiers generated
// code declares or imports: every one must compile.
// +groupName=names.example.com
package input

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Spec has fields named like generated identifiers.
type Spec struct {
	FieldManager string            `json:"fieldManager,omitempty"`
	Subresource  string            `json:"subresource,omitempty"`
	Value        string            `json:"value,omitempty"`
	Values       []string          `json:"values,omitempty"`
	Entries      map[string]string `json:"entries,omitempty"`
	B            string            `json:"b,omitempty"`
	Kind         string            `json:"kind,omitempty"`
	Internal     internal          `json:"internal,omitempty"`
	Types        types             `json:"types,omitempty"`
	Managed      managedfields     `json:"managed,omitempty"`
	Test         Thing_test        `json:"test,omitempty"`
	Linux        Widget_linux      `json:"linux,omitempty"`
}

// Thing_test and Widget_linux would name files the go tool treats specially.
type Thing_test struct {
	D string `json:"d,omitempty"`
}

type Widget_linux struct {
	E string `json:"e,omitempty"`
}

// Unexported types named like the packages generated code imports.
type internal struct {
	A string `json:"a,omitempty"`
}

type types struct {
	B string `json:"b,omitempty"`
}

type managedfields struct {
	C string `json:"c,omitempty"`
}

// +kubebuilder:object:root=true

// Client is a kind named like a generated identifier.
type Client struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}

func (in *Client) DeepCopyObject() runtime.Object { out := *in; return &out }

// +kubebuilder:object:root=true

// Object is a kind named like a generated identifier.
type Object struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}

func (in *Object) DeepCopyObject() runtime.Object { out := *in; return &out }

// +kubebuilder:object:root=true

// Interface is a kind named like a generated identifier.
type Interface struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}

func (in *Interface) DeepCopyObject() runtime.Object { out := *in; return &out }

// +kubebuilder:object:root=true

// Internal is a kind named like a generated identifier.
type Internal struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}

func (in *Internal) DeepCopyObject() runtime.Object { out := *in; return &out }

// +kubebuilder:object:root=true

// Parser is a kind named like a generated identifier.
type Parser struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}

func (in *Parser) DeepCopyObject() runtime.Object { out := *in; return &out }

// +kubebuilder:object:root=true

// Scheme is a kind named like a generated identifier.
type Scheme struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}

func (in *Scheme) DeepCopyObject() runtime.Object { out := *in; return &out }

// +kubebuilder:object:root=true

// Ctx is a kind named like a generated identifier.
type Ctx struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}

func (in *Ctx) DeepCopyObject() runtime.Object { out := *in; return &out }

// +kubebuilder:object:root=true

// Kind is a kind named like a generated identifier.
type Kind struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}

func (in *Kind) DeepCopyObject() runtime.Object { out := *in; return &out }

// +kubebuilder:object:root=true

// APIVersion is a kind named like a generated identifier.
type APIVersion struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}

func (in *APIVersion) DeepCopyObject() runtime.Object { out := *in; return &out }

// +kubebuilder:object:root=true

// Name is a kind named like a generated identifier.
type Name struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}

func (in *Name) DeepCopyObject() runtime.Object { out := *in; return &out }

// +kubebuilder:object:root=true

// WidgetList is a kind named like a generated identifier.
type WidgetList struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}

func (in *WidgetList) DeepCopyObject() runtime.Object { out := *in; return &out }

// +kubebuilder:object:root=true

// Types is a kind named like a generated identifier.
type Types struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}

func (in *Types) DeepCopyObject() runtime.Object { out := *in; return &out }

// +kubebuilder:object:root=true

// Managedfields is a kind named like a generated identifier.
type Managedfields struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}

func (in *Managedfields) DeepCopyObject() runtime.Object { out := *in; return &out }

// +kubebuilder:object:root=true

// Metav1 is a kind named like a generated identifier.
type Metav1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}

func (in *Metav1) DeepCopyObject() runtime.Object { out := *in; return &out }
