// +groupName=oracle.example.com
// +kubebuilder:object:generate=true
package wellknown

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

type Spec struct {
	When     metav1.Time                 `json:"when,omitempty"`
	Every    metav1.Duration             `json:"every,omitempty"`
	Size     resource.Quantity           `json:"size,omitempty"`
	Port     intstr.IntOrString          `json:"port,omitempty"`
	Limits   corev1.ResourceList         `json:"limits,omitempty"`
	Selector *metav1.LabelSelector       `json:"selector,omitempty"`
	Secret   corev1.SecretKeySelector    `json:"secret,omitempty"`
	Ref      corev1.LocalObjectReference `json:"ref,omitempty"`
	Env      []corev1.EnvVar             `json:"env,omitempty"`
	Template corev1.PodTemplateSpec      `json:"template,omitempty"`
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
