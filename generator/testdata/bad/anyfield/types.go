// +groupName=bad.example.com
package anyfield

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Spec has an interface field: controller-gen has no schema for it.
type Spec struct {
	Value any `json:"value,omitempty"`
}

// +kubebuilder:object:root=true

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}
