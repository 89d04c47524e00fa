package ensure

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Prune deletes the objects of list's kind that owner controls (their
// controller reference is owner's UID) and that keep does not name: the
// children an owner no longer wants (a namespace dropped from a project,
// a replica set scaled down to fewer children). It reads them with the
// client, from its cache: no request when nothing is to be pruned, one
// DELETE per object no longer desired, preconditioned on the UID it read
// so that a namesake created meanwhile is not touched. Objects owner does
// not control — another owner's, or nobody's — are never deleted. opts
// narrow the list (client.InNamespace, client.MatchingLabels). It returns
// how many objects it deleted.
//
// Children that cannot carry an owner reference to owner (cluster-scoped
// children of a namespaced owner) are not found this way.
func Prune(ctx context.Context, c client.Client, owner client.Object, list client.ObjectList, keep []client.ObjectKey, opts ...client.ListOption) (int, error) {
	if owner.GetUID() == "" {
		return 0, &OwnerError{Cause: ErrOwnerNoUID, Reason: fmt.Sprintf("owner %s has no UID: pass the object read from the API server", owner.GetName())}
	}
	if err := c.List(ctx, list, opts...); err != nil {
		return 0, fmt.Errorf("ensure: listing children to prune: %w", err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return 0, fmt.Errorf("ensure: listing children to prune: %w", err)
	}
	wanted := make(map[client.ObjectKey]bool, len(keep))
	for _, k := range keep {
		wanted[k] = true
	}
	deleted := 0
	for _, item := range items {
		obj, ok := item.(client.Object)
		if !ok {
			continue
		}
		ref := metav1.GetControllerOf(obj)
		if ref == nil || ref.UID != owner.GetUID() || wanted[client.ObjectKeyFromObject(obj)] || obj.GetDeletionTimestamp() != nil {
			continue
		}
		uid := obj.GetUID()
		err := c.Delete(ctx, obj, client.Preconditions{UID: &uid}, client.PropagationPolicy(metav1.DeletePropagationBackground))
		switch {
		case apierrors.IsNotFound(err), apierrors.IsConflict(err):
			// Gone already, or a namesake: not ours to delete.
		case err != nil:
			return deleted, fmt.Errorf("ensure: pruning %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
		default:
			deleted++
		}
	}
	return deleted, nil
}
