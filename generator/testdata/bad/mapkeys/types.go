// +groupName=bad.example.com
package mapkeys

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Spec struct {
	Ints  map[int]string  `json:"ints,omitempty"`
	Bools map[bool]string `json:"bools,omitempty"`
}

// +kubebuilder:object:root=true

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}
