// +groupName=bad.example.com
package unsupported

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Spec struct {
	C chan int    `json:"c"`
	F func()      `json:"f"`
	X complex128  `json:"x"`
	I interface{} `json:"i"`
}

// +kubebuilder:object:root=true

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}
