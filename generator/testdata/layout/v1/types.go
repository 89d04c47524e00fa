// Package v1 is an API package as `kubebuilder create api --ssa` marks
// it: controller-gen generates its apply configurations beside it.
// +groupName=layout.example.com
// +kubebuilder:ac:generate=true
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true

// Box is a kind.
type Box struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}
