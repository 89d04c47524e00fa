// Package client is a stub of controller-runtime's client for analyzer tests.
package client

import "context"

type Object interface{ GetName() string }

type ObjectList interface{}

type CreateOption interface{}

type ObjectKey struct{ Namespace, Name string }

type Patch interface{ Type() string }

type applyPatch struct{}

func (applyPatch) Type() string { return "apply" }

var Apply Patch = applyPatch{}

type SubResourceWriter interface {
	Update(ctx context.Context, obj Object, opts ...any) error
	Patch(ctx context.Context, obj Object, patch Patch, opts ...any) error
}

type Client interface {
	Get(ctx context.Context, key ObjectKey, obj Object, opts ...any) error
	List(ctx context.Context, list ObjectList, opts ...any) error
	Create(ctx context.Context, obj Object, opts ...CreateOption) error
	Update(ctx context.Context, obj Object, opts ...any) error
	Patch(ctx context.Context, obj Object, patch Patch, opts ...any) error
	Status() SubResourceWriter
	SubResource(name string) SubResourceWriter
	Scheme() any
}

func IgnoreAlreadyExists(err error) error { return err }
func IgnoreNotFound(err error) error      { return err }

func MergeFrom(obj Object) Patch { return nil }
