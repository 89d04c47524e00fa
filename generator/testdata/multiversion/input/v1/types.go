// +groupName=multi.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// WidgetSpec is version 1's spec.
type WidgetSpec struct {
	// +listType=map
	// +listMapKey=name
	Parts []Part `json:"parts,omitempty"`
	Size  int32  `json:"size,omitempty"`
}

// Part of a widget.
type Part struct {
	Name  string `json:"name"`
	Color string `json:"color,omitempty"`
}

// WidgetStatus is observed state.
type WidgetStatus struct {
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Widget is a namespaced kind.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

// DeepCopyObject is hand-written: this fixture has no deepcopy-gen step.
func (w *Widget) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Parts = append([]Part(nil), w.Spec.Parts...)
	out.Status.Conditions = append([]metav1.Condition(nil), w.Status.Conditions...)
	return &out
}
