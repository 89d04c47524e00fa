// Package shared holds types the kinds use: no kind, no +groupName, but
// imported by a package with kinds, so it is generated.
package shared

type Size struct {
	Replicas int32 `json:"replicas,omitempty"`
}
