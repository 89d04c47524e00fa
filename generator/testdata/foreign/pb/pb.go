// Package pb stands for protobuf messages beside an API: no kind, no
// +groupName, imported by no kind; controller-gen does not read it, and
// ssagen skips it (its unexported fields would be errors).
package pb

type Message struct {
	state int
	Name  string `json:"name,omitempty"`
}
