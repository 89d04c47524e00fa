// +groupName=gateway.example.com
// +kubebuilder:object:generate=true
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// BackendRef is shared with the extensions group.
type BackendRef struct {
	Name string `json:"name"`
	Port int32  `json:"port,omitempty"`
}

type GatewaySpec struct {
	Backend BackendRef `json:"backend"`
}

// +kubebuilder:object:root=true

// Gateway is a kind of the main group.
type Gateway struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              GatewaySpec `json:"spec,omitempty"`
}

func (in *Gateway) DeepCopyObject() runtime.Object { out := *in; return &out }
