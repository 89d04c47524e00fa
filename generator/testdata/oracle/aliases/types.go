// +groupName=oracle.example.com
// +kubebuilder:object:generate=true
package aliases

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Mode string

type Level = int32

type Inner struct {
	Mode Mode `json:"mode,omitempty"`
}

type InnerAlias = Inner

type Spec struct {
	Mode  Mode       `json:"mode,omitempty"`
	Level Level      `json:"level,omitempty"`
	Inner InnerAlias `json:"inner,omitempty"`
	// +kubebuilder:validation:XIntOrString
	Either string `json:"either,omitempty"`
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
