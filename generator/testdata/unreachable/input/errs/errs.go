// Package errs is a package of the same module that the API imports for
// one string type; its error structs have no json tags and no kind uses
// them (cluster-api's api/deprecated/errors).
package errs

// Reason is used by the API.
type Reason string

// Failure is used by no kind.
type Failure struct {
	Reason  Reason
	Message string
}

func (e *Failure) Error() string { return e.Message }

// Scratch is used by no kind and has no json tags: no CRD holds it, so
// controller-gen's rules for CRD fields do not apply; it gets a builder
// with encoding/json's names, as Failure does.
type Scratch struct {
	Name  string
	Count int32
}

// Item is an item of Broken's list.
type Item struct {
	Name string `json:"name"`
}

// Broken is used by no kind and breaks a builder rule (a list map without
// a key): it is left out of the output, with a warning.
type Broken struct {
	// +listType=map
	Items []Item `json:"items,omitempty"`
}

// UsesBroken is used by no kind and uses Broken: left out with it.
type UsesBroken struct {
	Broken Broken `json:"broken"`
}
