// +groupName=oracle.example.com
// +kubebuilder:object:generate=true
package unexported

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Spec has an unexported field with a json tag: controller-gen puts it
// in the CRD, encoding/json never writes it, so no Go client can set it.
// ssagen refuses it, a deliberate difference (README).
type Spec struct {
	Size   int32  `json:"size,omitempty"`
	secret string `json:"secret,omitempty"`
}

// +kubebuilder:object:root=true

// Vault is a kind.
type Vault struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}
