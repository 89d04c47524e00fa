// Package builder is a stub of multicluster-runtime's builder for analyzer tests.
package builder

import "sigs.k8s.io/controller-runtime/pkg/client"

type Builder struct{}

func (b *Builder) For(obj client.Object, opts ...any) *Builder  { return b }
func (b *Builder) Owns(obj client.Object, opts ...any) *Builder { return b }

func WithPredicates(p ...any) any { return nil }
