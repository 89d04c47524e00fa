// +groupName=bad.example.com
package array

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Spec struct {
	Pair [2]string `json:"pair,omitempty"`
}

// +kubebuilder:object:root=true

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}
