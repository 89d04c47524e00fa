// +groupName=bad.example.com
package crdtags

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Spec struct {
	Untagged string
	Nameless string `json:",omitempty"`
	hidden   string
	Float    float64 `json:"float,omitempty"`
}

// +kubebuilder:object:root=true

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}
