// Package ensure is a stub of ssagen's runtime for analyzer tests.
package ensure

type ApplyOption func()

type Result string

const Created Result = "created"

func NoOwner() ApplyOption { return nil }

func Err[T any](_ T, _ Result, err error) error { return err }

type FieldManager string

func (FieldManager) apply() {}
