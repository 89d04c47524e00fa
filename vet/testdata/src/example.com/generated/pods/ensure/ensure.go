// Package ensure stands for ssagen's generated helpers of a pod kind: only
// the predicate, which ownschurning recognises by its package and name.
package ensure

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

func OwnedPodChanges(c client.Client) predicate.Funcs { return predicate.Funcs{} }
