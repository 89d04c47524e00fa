// +groupName=bad.example.com
package setstructs

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Item struct {
	Name string `json:"name"`
	Ref  Ref    `json:"ref"`
}

type Ref struct {
	Kind string `json:"kind"`
}

type Spec struct {
	// +listType=set
	Set []Item `json:"set,omitempty"`
	// +listType=map
	// +listMapKey=ref
	ByRef []Item    `json:"byRef,omitempty"`
	Pair  [2]string `json:"pair,omitempty"`
}

// +kubebuilder:object:root=true

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}
