// +groupName=bad.example.com
package recursivestruct

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Spec holds itself through a pointer: found by TestOracleRandom.
type Spec struct {
	Next *Spec `json:"next,omitempty"`
}

// +kubebuilder:object:root=true

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}
