// +groupName=unreachable.example.com
// +kubebuilder:object:generate=true
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ssagen/ssagen/generator/testdata/unreachable/input/errs"
)

// MachineSpec uses errs for one string type, as cluster-api's API uses its
// deprecated/errors package.
type MachineSpec struct {
	// +optional
	FailureReason *errs.Reason `json:"failureReason,omitempty"`
}

// +kubebuilder:object:root=true

// Machine is a kind.
type Machine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              MachineSpec `json:"spec,omitempty"`
}

func (in *Machine) DeepCopyObject() runtime.Object { out := *in; return &out }
