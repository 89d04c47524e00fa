// +groupName=unsigned.example.com
// +kubebuilder:object:generate=true
package input

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Spec has every unsigned shape: structured-merge-diff's reflection
// converts uint, uint32, uint16 and uint8, and has no uint64, so Extract
// and the type converter read a Meter through its JSON.
type Spec struct {
	Plain  uint              `json:"plain,omitempty"`
	Mid    uint32            `json:"mid,omitempty"`
	Small  uint16            `json:"small,omitempty"`
	Ptr    *uint32           `json:"ptr,omitempty"`
	List   []uint32          `json:"list,omitempty"`
	Counts map[string]uint32 `json:"counts,omitempty"`
	Big    uint64            `json:"big,omitempty"`
	BigPtr *uint64           `json:"bigPtr,omitempty"`
	Bigs   []uint64          `json:"bigs,omitempty"`
	Sizes  map[string]Size   `json:"sizes,omitempty"`
}

// Size is a named uint64.
type Size uint64

// +kubebuilder:object:root=true

// Meter is a kind.
type Meter struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}
