// +groupName=oracle.example.com
// +kubebuilder:object:generate=true
package clusterscope

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Spec struct {
	// +optional
	// +kubebuilder:default=3
	Count int32 `json:"count,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=gizmoz

// Gizmo is cluster-scoped with an odd plural.
type Gizmo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
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
