// Package unstructured is a stub for analyzer tests.
package unstructured

type Unstructured struct{ Name string }

func (u *Unstructured) GetName() string { return u.Name }
