// +groupName=bad.example.com
package no_applyconfig

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Spec struct {
	Ref metav1.ListMeta `json:"ref"`
}

// +kubebuilder:object:root=true

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}
