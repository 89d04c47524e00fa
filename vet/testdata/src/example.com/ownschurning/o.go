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
