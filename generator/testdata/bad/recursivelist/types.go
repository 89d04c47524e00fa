// +groupName=bad.example.com
package recursivelist

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Spec struct {
	Nested Nested `json:"nested,omitempty"`
}

// +kubebuilder:object:root=true

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}

// Nested is a list of itself.
type Nested []Nested
