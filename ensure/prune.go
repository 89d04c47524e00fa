package ensure

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Prune deletes the objects of list's kind that owner controls and that
// keep does not name: the children an owner no longer wants (a namespace
// dropped from a project, a replica set scaled down to fewer children).
// owner controls an object whose controller reference is owner's UID, or
// — for children that cannot carry a reference, written with
// OwnerLabels — whose OwnerUIDLabel is. It reads them with the client,
// from its cache: no request when nothing is to be pruned, one DELETE per
// object no longer desired, preconditioned on the UID it read so that a
// namesake created meanwhile is not touched. Objects owner does not
// control — another owner's, or nobody's — are never deleted. opts narrow
// the list (client.InNamespace, client.MatchingLabels). It returns how
// many objects it deleted.
func Prune(ctx context.Context, c client.Client, owner client.Object, list client.ObjectList, keep []client.ObjectKey, opts ...client.ListOption) (int, error) {
	deleted, _, err := prune(ctx, c, owner, list, keep, opts)
	return deleted, err
}

// prune is Prune, also counting the children it leaves that are still
// being deleted (they have finalizers of their own).
func prune(ctx context.Context, c client.Client, owner client.Object, list client.ObjectList, keep []client.ObjectKey, opts []client.ListOption) (deleted, pending int, err error) {
	if owner.GetUID() == "" {
		return 0, 0, &OwnerError{Cause: ErrOwnerNoUID, Reason: fmt.Sprintf("owner %s has no UID: pass the object read from the API server", owner.GetName())}
	}
	if err := c.List(ctx, list, opts...); err != nil {
		return 0, 0, fmt.Errorf("ensure: listing children to prune: %w", err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return 0, 0, fmt.Errorf("ensure: listing children to prune: %w", err)
	}
	wanted := make(map[client.ObjectKey]bool, len(keep))
	for _, k := range keep {
		wanted[k] = true
	}
	for _, item := range items {
		obj, ok := item.(client.Object)
		if !ok || !controls(owner.GetUID(), obj) || wanted[client.ObjectKeyFromObject(obj)] {
			continue
		}
		if obj.GetDeletionTimestamp() != nil {
			pending++
			continue
		}
		uid := obj.GetUID()
		err := c.Delete(ctx, obj, client.Preconditions{UID: &uid}, client.PropagationPolicy(metav1.DeletePropagationBackground))
		switch {
		case apierrors.IsNotFound(err), apierrors.IsConflict(err):
			// Gone already, or a namesake: not ours to delete.
		case err != nil:
			return deleted, pending, fmt.Errorf("ensure: pruning %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
		default:
			deleted++
			if len(obj.GetFinalizers()) > 0 {
				pending++ // its own finalizers hold it
			}
		}
	}
	return deleted, pending, nil
}

// controls reports whether the owner with UID uid controls obj: by its
// controller reference, or by the label OwnerLabels sets.
func controls(uid types.UID, obj client.Object) bool {
	if ref := metav1.GetControllerOf(obj); ref != nil {
		return ref.UID == uid
	}
	return obj.GetLabels()[OwnerUIDLabel] == string(uid)
}

// ErrChildrenRemain: Finalize deleted the owner's children, and some are
// still there, held by finalizers of their own; the owner keeps its
// finalizer until they are gone. Requeue and call Finalize again.
var ErrChildrenRemain = errors.New("children are still being deleted")

// Finalize keeps finalizer on owner while it lives and, once it is being
// deleted, deletes the children of the kinds in children that it controls
// (Prune keeping none) before it lets the owner go. It is what a
// namespaced owner needs for the children it owns through OwnerLabels,
// which the garbage collector never collects, and what any owner needs
// where no garbage collector runs (envtest).
//
// It returns deleting = true when owner is being deleted: the reconciler
// has nothing else to do. Requests, all from a read of the cache: none
// while the finalizer is in place; one apply to add it (AddFinalizer); on
// deletion one DELETE per child still present, then one patch removing
// the finalizer (RemoveFinalizer) in the same call, unless a child has
// finalizers of its own: then the error wraps ErrChildrenRemain and the
// finalizer stays until a later call finds them gone.
//
// An owner being deleted that never got the finalizer (deleted before its
// first reconcile, held by another writer's finalizer) has its children
// deleted all the same — labelled ones, and referenced ones, which the
// garbage collector would delete too, in the background only once the
// owner is gone — and no finalizer is removed: the other writer's stays. Finalize does not read the
// deletion's propagation policy: under Orphan, a child still found
// controlled by owner is deleted too.
func Finalize(ctx context.Context, c client.Client, owner client.Object, finalizer string, children []client.ObjectList, opts ...FinalizerOption) (deleting bool, err error) {
	if owner.GetDeletionTimestamp() == nil {
		_, err := AddFinalizer(ctx, c, owner, finalizer, opts...)
		return false, err
	}
	// Being deleted: the children go whether or not the finalizer was
	// ever added (another writer's finalizer may hold the owner, and the
	// garbage collector never deletes labelled children).
	pending := 0
	for _, list := range children {
		_, p, err := prune(ctx, c, owner, list, nil, nil)
		if err != nil {
			return true, err
		}
		pending += p
	}
	if pending > 0 {
		return true, fmt.Errorf("ensure: %d children of %s: %w", pending, owner.GetName(), ErrChildrenRemain)
	}
	if !slices.Contains(owner.GetFinalizers(), finalizer) {
		return true, nil
	}
	_, err = RemoveFinalizer(ctx, c, owner, finalizer)
	return true, err
}

// LabelledOwner maps an event of a child written with OwnerLabels to a
// reconcile request for its owner, when the owner is of ownerType's kind:
// the handler.EnqueueRequestForOwner of children that cannot carry an
// owner reference.
//
//	Watches(&rbacv1.ClusterRole{}, handler.EnqueueRequestsFromMapFunc(ensure.LabelledOwner(mgr.GetScheme(), &v1.Sandbox{})))
func LabelledOwner(scheme *runtime.Scheme, ownerType client.Object) handler.MapFunc {
	gvk, err := apiutil.GVKForObject(ownerType, scheme)
	want := gvk.GroupKind()
	return func(_ context.Context, obj client.Object) []reconcile.Request {
		if err != nil {
			return nil
		}
		gk, ns, name, ok := parseOwner(obj.GetAnnotations()[OwnerAnnotation])
		if !ok || gk != want || obj.GetLabels()[OwnerUIDLabel] == "" {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}}
	}
}

// parseOwner reads OwnerAnnotation's value, <Kind>[.<group>]/<ns>/<name>.
func parseOwner(v string) (schema.GroupKind, string, string, bool) {
	parts := strings.Split(v, "/")
	if len(parts) != 3 || parts[0] == "" || parts[2] == "" {
		return schema.GroupKind{}, "", "", false
	}
	return schema.ParseGroupKind(parts[0]), parts[1], parts[2], true
}
