// Package ids holds types that common/v1 uses and no kind imports: a
// package of shared types of shared types (capsule's pkg/runtime/gvk,
// which its pkg/api/meta embeds).
package ids

// ResourceID names an object of any kind.
type ResourceID struct {
	Kind string `json:"kind,omitempty"`
	Name string `json:"name,omitempty"`
}
