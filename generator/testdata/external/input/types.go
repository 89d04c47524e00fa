// +groupName=ext.example.com
package input

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ssagen/ssagen/generator/testdata/external/thirdparty"
)

// LinkSpec refers to a third-party type, mapped with
// --external-applyconfigurations.
type LinkSpec struct {
	Target  thirdparty.Endpoint   `json:"target"`
	Mirrors []thirdparty.Endpoint `json:"mirrors,omitempty"`
}

// +kubebuilder:object:root=true

// Link is a kind.
type Link struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              LinkSpec `json:"spec,omitempty"`
}

// DeepCopyObject is hand-written: this fixture has no deepcopy-gen step.
func (l *Link) DeepCopyObject() runtime.Object {
	out := *l
	l.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Mirrors = append([]thirdparty.Endpoint(nil), l.Spec.Mirrors...)
	return &out
}
