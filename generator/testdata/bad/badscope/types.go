// +groupName=bad.example.com
package badscope

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Spec struct {
	Name string `json:"name,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Galaxy

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}
