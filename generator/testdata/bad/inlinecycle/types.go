// +groupName=cyc.example.com
// +kubebuilder:object:generate=true
package inlinecycle

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Node and Link inline each other: legal for encoding/json, which stops
// at the repeat, and for controller-gen; structured-merge-diff's
// reflection recurses for ever. Refused.
type Node struct {
	*Link `json:",inline"`
	Value string `json:"value,omitempty"`
}

type Link struct {
	*Node `json:",inline"`
	Next  string `json:"next,omitempty"`
}

// +kubebuilder:object:root=true

// Graph is a kind.
type Graph struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Node `json:"spec,omitempty"`
}
