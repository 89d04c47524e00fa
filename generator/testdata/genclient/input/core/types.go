package core

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// +genclient
// +genclient:nonNamespaced
// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale

// Thing is cluster-scoped.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ThingSpec   `json:"spec,omitempty"`
	Status            ThingStatus `json:"status,omitempty"`
}

// ThingSpec embeds an external type inline and a local one by pointer.
type ThingSpec struct {
	corev1.LocalObjectReference `json:",inline"`
	*Extra                      `json:"extra,omitempty"`
	Matrix                      [][]Cell        `json:"matrix,omitempty"`
	Cells                       map[string]Cell `json:"cells,omitempty"`
	Untagged                    string
	Skipped                     string `json:"-"`
	hidden                      string
}

// Extra is embedded by pointer under its own JSON key.
type Extra struct {
	Note string `json:"note,omitempty"`
}

// Cell is recursive: CRDs cannot say so, but built-in style APIs can.
type Cell struct {
	Value *int64 `json:"value,omitempty"`
	Next  *Cell  `json:"next,omitempty"`
}

// ThingStatus has a phase.
type ThingStatus struct {
	Phase string `json:"phase,omitempty"`
}

// +genclient
// +genclient:noStatus

// Gadget is namespaced and has a status field but no status subresource.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status            ThingStatus `json:"status,omitempty"`
}

// DeepCopyObject is hand-written: this fixture has no deepcopy-gen step.
func (t *Thing) DeepCopyObject() runtime.Object {
	out := *t
	t.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject is hand-written: this fixture has no deepcopy-gen step.
func (g *Gadget) DeepCopyObject() runtime.Object {
	out := *g
	g.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}
