// +groupName=foreign.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ssagen/ssagen/generator/testdata/foreign/shared"
)

// +kubebuilder:object:root=true

// Widget is the package's kind; its spec uses a shared type.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              shared.Size `json:"spec,omitempty"`
}
