// +groupName=meta.example.com
// +kubebuilder:object:generate=true
package input

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true

// Tagged is a kind with root-level fields named as metadata's: Labels,
// Finalizers, and a LabelsField already taken. WithLabels and
// WithFinalizers stay metadata's; the fields' setters are
// WithLabelsField2 and WithFinalizersField.
type Tagged struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	Finalizers        []string          `json:"finalizers,omitempty"`
	LabelsField       string            `json:"labelsField,omitempty"`
}
