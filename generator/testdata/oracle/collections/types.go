// +groupName=oracle.example.com
// +kubebuilder:object:generate=true
package collections

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Rule struct {
	Name  string `json:"name"`
	Proto string `json:"proto"`
	Port  int32  `json:"port"`
}

// Labels is a named map.
// +mapType=atomic
type Labels map[string]string

// Names is a named list of strings.
type Names []string

type Spec struct {
	// +listType=map
	// +listMapKey=name
	// +listMapKey=proto
	Rules []Rule `json:"rules,omitempty"`
	// +listType=atomic
	Atomic []Rule          `json:"atomic,omitempty"`
	Matrix [][]string      `json:"matrix,omitempty"`
	ByName map[string]Rule `json:"byName,omitempty"`
	// +mapType=atomic
	Fixed  map[string]string `json:"fixed,omitempty"`
	Labels Labels            `json:"labels,omitempty"`
	Names  Names             `json:"names,omitempty"`
	Bytes  []byte            `json:"bytes,omitempty"`
	Ptrs   []*Rule           `json:"ptrs,omitempty"`
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
