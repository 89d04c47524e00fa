// +groupName=bad.example.com
package contradicting

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Spec struct {
	// +listType=set
	// +listMapKey=name
	Items []Item `json:"items"`
	// +mapType=atomic
	List []string `json:"list"`
}

type Item struct {
	Name string `json:"name"`
}

// +kubebuilder:object:root=true

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}
