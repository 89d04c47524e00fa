// +groupName=oracle.example.com
// +kubebuilder:object:generate=true
package embedding

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Common struct {
	Replicas *int32 `json:"replicas,omitempty"`
	// +listType=set
	Tags []string `json:"tags,omitempty"`
}

// +structType=atomic
type Pinned struct {
	Image string `json:"image,omitempty"`
	Tag   string `json:"tag,omitempty"`
}

type Spec struct {
	Common `json:",inline"`
	*Extra `json:",inline"`
	Pinned Pinned `json:"pinned,omitempty"`
	// +structType=atomic
	Whole Common `json:"whole,omitempty"`
}

type Extra struct {
	Note string `json:"note,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec   `json:"spec,omitempty"`
	Status            Status `json:"status,omitempty"`
}

type Status struct {
	// +listType=map
	// +listMapKey=type
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
}
