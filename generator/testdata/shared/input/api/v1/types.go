// +groupName=shared.example.com
// +kubebuilder:object:generate=true
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	commonv1 "github.com/ssagen/ssagen/generator/testdata/shared/input/common/v1"
)

type IssuerSpec struct {
	Secret commonv1.SecretRef `json:"secret"`
}

// +kubebuilder:object:root=true

// Issuer is a kind whose spec uses a shared type.
type Issuer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              IssuerSpec `json:"spec,omitempty"`
}

func (in *Issuer) DeepCopyObject() runtime.Object { out := *in; return &out }
