// Package v1alpha1 is a second group whose path ends like the first's
// (api/v1alpha1) and that references its types, as Envoy Gateway's
// extension APIs do.
// +groupName=extensions.gateway.example.com
// +kubebuilder:object:generate=true
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	gatewayv1alpha1 "github.com/ssagen/ssagen/generator/testdata/multigroup/input/api/v1alpha1"
)

type FilterSpec struct {
	Backends []gatewayv1alpha1.BackendRef `json:"backends,omitempty"`
}

// +kubebuilder:object:root=true

// Filter is a kind of the extensions group.
type Filter struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              FilterSpec `json:"spec,omitempty"`
}

func (in *Filter) DeepCopyObject() runtime.Object { out := *in; return &out }
