package input

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Named has a name; it is inlined before an outer field of the same JSON
// name, which dominates by depth.
type Named struct {
	Name  string `json:"name,omitempty"`
	Inner string `json:"inner,omitempty"`
}

// Shadow inlines Named before declaring its own "name".
type Shadow struct {
	Named `json:",inline"`
	// Title is written as "name": it hides Named.Name.
	Title string `json:"name,omitempty"`
}

// Item is a list-map item.
type Item struct {
	Name string `json:"name"`
	Port int32  `json:"port,omitempty"`
}

// Items is a named list of structs with its semantics on the type.
// +listType=map
// +listMapKey=name
type Items []Item

// Sub is a map value.
type Sub struct {
	Value string `json:"value,omitempty"`
	Count int32  `json:"count,omitempty"`
}

// SubMap is a named map of structs.
type SubMap map[string]Sub

// Tree is a map of itself.
type Tree map[string]Tree

// Box is generic and unused: only reachable types matter.
type Box[T any] struct {
	V T `json:"v"`
}

// Env is an older scaffold's list with patch tags and no +listType: the
// CRD controller-gen writes makes it atomic.
type Env struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

// WidgetSpec holds every construct.
type WidgetSpec struct {
	Shadow Shadow `json:"shadow,omitempty"`
	Items  Items  `json:"items,omitempty"`
	Subs   SubMap `json:"subs,omitempty"`
	Tree   Tree   `json:"tree,omitempty"`
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	Any map[string]interface{} `json:"any,omitempty"`
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	Free interface{} `json:"free,omitempty"`
	// +optional
	Env []Env `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	// +k8s:listType=map
	// +k8s:listMapKey=name
	Ports []Item `json:"ports,omitempty"`
	// +kubebuilder:pruning:PreserveUnknownFields
	Raw runtime.RawExtension `json:"raw,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Widget is a kind.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

// WidgetStatus is Widget's status.
type WidgetStatus struct {
	Ready bool `json:"ready,omitempty"`
}

// +kubebuilder:object:root=true

// WidgetFrom is a kind whose ExtractWidgetFrom collides with Widget's.
type WidgetFrom struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Sub `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster

// FieldManager is a kind named like a parameter of generated code.
type FieldManager struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Sub `json:"spec,omitempty"`
}
