// Package ensure is a stub of ssagen's runtime for analyzer tests.
package ensure

import "sigs.k8s.io/controller-runtime/pkg/predicate"

// FieldsChanged stands for the runtime's predicate of what a reconciler reads.
func FieldsChanged[T any](read func(T) any) predicate.Funcs { return predicate.Funcs{} }

// Each stands for the runtime's projection of a slice's items.
func Each[E any](items []E, read func(E) any) []any { return nil }

type ApplyOption func()

type Result string

const Created Result = "created"

func NoOwner() ApplyOption { return nil }

func Err[T any](_ T, _ Result, err error) error { return err }

type FieldManager string

func (FieldManager) apply() {}

func IsUpdateError(err error) bool { return false }
