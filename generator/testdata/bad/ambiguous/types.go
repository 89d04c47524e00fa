// +groupName=bad.example.com
package ambiguous

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type A struct {
	Name string `json:"name,omitempty"`
}

type B struct {
	Name string `json:"name,omitempty"`
}

type Spec struct {
	A `json:",inline"`
	B `json:",inline"`
}

// +kubebuilder:object:root=true

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}
