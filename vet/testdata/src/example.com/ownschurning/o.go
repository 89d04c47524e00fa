package ownschurning

import (
	"example.com/api"
	podensure "example.com/generated/pods/ensure"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// Every kubelet status write of the pod requeues the owner.
func noPredicate(b *builder.Builder) {
	b.For(&api.Role{}).Owns(&api.Pod{}) // want `Owns\(&Pod\{\}\) without a predicate`
}

// Near misses: the generated predicate, found through the helper
// package, and a kind whose status does not churn.
func generated(b *builder.Builder, c client.Client) {
	b.For(&api.Role{}).
		Owns(&api.Pod{}, builder.WithPredicates(podensure.OwnedPodChanges(c))).
		Owns(&api.Pod{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&api.ConfigMap{})
}

func labeled(o client.Object) bool { return o != nil }

// cass-operator: an UpdateFunc that filters the old and the new object
// each alone passes every status write of a labelled child.
func filterEach(b *builder.Builder) {
	managed := predicate.Funcs{
		UpdateFunc: func(e predicate.UpdateEvent) bool {
			return labeled(e.ObjectOld) || labeled(e.ObjectNew)
		},
	}
	b.For(&api.Role{}).
		Owns(&api.Pod{}, builder.WithPredicates(managed)) // want `Owns\(&Pod\{\}\) with predicates that pass every status write`
}

// Silent: an UpdateFunc that compares the two.
func compares(b *builder.Builder) {
	b.For(&api.Role{}).
		Owns(&api.Pod{}, builder.WithPredicates(predicate.Funcs{
			UpdateFunc: func(e predicate.UpdateEvent) bool {
				return labeled(e.ObjectNew) && e.ObjectOld.GetName() != e.ObjectNew.GetName()
			},
		}))
}
