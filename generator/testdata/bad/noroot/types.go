// +groupName=bad.example.com
package noroot

// Spec has no kind around it.
type Spec struct {
	Name string `json:"name"`
}
