// +groupName=bad.example.com
package compile

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Spec struct {
	A Undefined `json:"a"`
}

// +kubebuilder:object:root=true

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}
