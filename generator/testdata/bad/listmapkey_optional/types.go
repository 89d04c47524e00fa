// +groupName=bad.example.com
package listmapkey_optional

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Spec struct {
	// +listType=map
	// +listMapKey=name
	Items []Item `json:"items"`
}

type Item struct {
	// +optional
	Name string `json:"name,omitempty"`
}

// +kubebuilder:object:root=true

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}
