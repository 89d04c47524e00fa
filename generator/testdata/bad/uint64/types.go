// +groupName=bad.example.com
package uint64s

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Spec has uint64 fields: controller-gen makes them int64 integers, but
// structured-merge-diff's reflection has no uint64, so the generated
// Extract and the Ensure helpers' skip check would panic. Refused.
type Spec struct {
	Big  uint64            `json:"big,omitempty"`
	Ptr  *uint64           `json:"ptr,omitempty"`
	List []uint64          `json:"list,omitempty"`
	Map  map[string]uint64 `json:"map,omitempty"`
}

// +kubebuilder:object:root=true

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}
