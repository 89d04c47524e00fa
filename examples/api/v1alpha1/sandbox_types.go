package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// SandboxSpec describes an isolated workload: one pod from a template.
type SandboxSpec struct {
	// PodTemplate of the sandbox pod. It maps to client-go's apply
	// configuration, never to the raw struct.
	PodTemplate corev1.PodTemplateSpec `json:"podTemplate"`

	// Resources available to the sandbox.
	// +optional
	Resources corev1.ResourceList `json:"resources,omitempty"`

	// Memory limit.
	// +optional
	Memory *resource.Quantity `json:"memory,omitempty"`

	// Port is a number or a name.
	// +optional
	Port *intstr.IntOrString `json:"port,omitempty"`

	// Timeout after which an idle sandbox is stopped.
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// Config is free-form configuration.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Config runtime.RawExtension `json:"config,omitempty"`

	// Steps run in order at start-up.
	// +listType=atomic
	// +optional
	Steps []Step `json:"steps,omitempty"`

	// Paused sandboxes keep their pod stopped.
	// +optional
	Paused bool `json:"paused,omitempty"`

	// Scratch is never serialised.
	Scratch string `json:"-"`
}

// Step is one start-up command.
type Step struct {
	// Command to run.
	// +listType=atomic
	Command []string `json:"command"`
	// Env for the command, by name.
	// +optional
	Env map[string]string `json:"env,omitempty"`
}

// SandboxPhase is where the sandbox pod is.
type SandboxPhase string

// SandboxStatus is written by the Sandbox controller with status apply.
type SandboxStatus struct {
	// Phase mirrors the pod's phase.
	// +optional
	Phase SandboxPhase `json:"phase,omitempty"`

	// Conditions of the sandbox.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// PodName is the sandbox pod.
	// +optional
	PodName string `json:"podName,omitempty"`

	// StartedAt is when the pod first ran.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Sandbox runs one isolated pod; its status has conditions (seed 002).
type Sandbox struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   SandboxSpec   `json:"spec,omitempty"`
	Status SandboxStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// SandboxList is a list of Sandboxes.
type SandboxList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Sandbox `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Sandbox{}, &SandboxList{})
}
