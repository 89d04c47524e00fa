// Package errors is a stub for analyzer tests.
package errors

func IsAlreadyExists(err error) bool { return false }
func IsNotFound(err error) bool      { return false }

func NewAlreadyExists(qualifiedResource any, name string) error { return nil }
func IsConflict(err error) bool                                 { return false }
