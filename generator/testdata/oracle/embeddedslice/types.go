// +groupName=oracle.example.com
package embeddedslice

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// List is embedded with ",inline": encoding/json names it "List",
// controller-gen inlines it and fails. Found by FuzzOracle.
type List []string

type Spec struct {
	List `json:",inline"`
	Name string `json:"name,omitempty"`
}

// +kubebuilder:object:root=true

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}
