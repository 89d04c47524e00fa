// Package unstructured is a stub for analyzer tests.
package unstructured

type Unstructured struct{ Name string }

func (u *Unstructured) GetName() string { return u.Name }

// MarshalJSON encodes the object's map, as the real one does.
func (u *Unstructured) MarshalJSON() ([]byte, error) { return []byte("{}"), nil }
