// Package predicate is a stub for analyzer tests.
package predicate

import "sigs.k8s.io/controller-runtime/pkg/client"

type UpdateEvent struct{ ObjectOld, ObjectNew client.Object }

type Predicate interface{ Update(UpdateEvent) bool }

type Funcs struct {
	UpdateFunc func(UpdateEvent) bool
}

func (f Funcs) Update(e UpdateEvent) bool { return f.UpdateFunc == nil || f.UpdateFunc(e) }

type GenerationChangedPredicate struct{ Funcs }
type LabelChangedPredicate struct{ Funcs }
type AnnotationChangedPredicate struct{ Funcs }
type ResourceVersionChangedPredicate struct{ Funcs }

func NewPredicateFuncs(filter func(client.Object) bool) Funcs { return Funcs{} }
func And(p ...Predicate) Predicate                            { return nil }
func Or(p ...Predicate) Predicate                             { return nil }

type LabelSelector struct{}

func LabelSelectorPredicate(s LabelSelector) (Predicate, error) { return nil, nil }
