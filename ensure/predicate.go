package ensure

import (
	"bytes"

	"k8s.io/apimachinery/pkg/api/equality"
	v1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// OwnedFieldsChanged is a predicate for Owns() and Watches() that drops
// update events changing nothing the field manager of c owns: a kubelet
// walking a pod through its phases no longer requeues the pod's owner
// once per phase (seed 002). Creates, deletes, a deletion timestamp
// appearing, and any event it cannot judge pass. On delete events the
// object leaves c's memory (a Client's; a plain client has none, and its
// field manager is DefaultFieldManager). Generated packages offer it per
// kind with the kind's schema (Owned<Kind>Changes).
func OwnedFieldsChanged(c client.Client, t typed.ParseableType) predicate.Funcs {
	fieldManager, mem := managerOf(c), memory(c)
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			return ownedFieldsChanged(fieldManager, t, e.ObjectOld, e.ObjectNew)
		},
		DeleteFunc: func(e event.DeleteEvent) bool {
			if e.Object != nil {
				mem.forgetObject(e.Object.GetNamespace(), e.Object.GetName())
			}
			return true
		},
	}
}

func ownedFieldsChanged(fieldManager string, t typed.ParseableType, before, after client.Object) bool {
	if before == nil || after == nil {
		return true
	}
	if (before.GetDeletionTimestamp() == nil) != (after.GetDeletionTimestamp() == nil) {
		return true
	}
	// What the manager owned before or after: a field another manager
	// took over by force has left the new set but changed all the same.
	owned, was := ownedFields(after, fieldManager), ownedFields(before, fieldManager)
	if owned == nil || was == nil {
		return true
	}
	owned = owned.Union(was)
	if owned.Empty() {
		return true
	}
	tb, err := typedOf(t, before)
	if err != nil {
		return true
	}
	ta, err := typedOf(t, after)
	if err != nil {
		return true
	}
	cmp, err := tb.ExtractItems(owned).Compare(ta.ExtractItems(owned))
	if err == nil {
		return !cmp.IsSame()
	}
	// structured-merge-diff v6.3.0 (k8s.io v0.34) extracts an associative
	// list with holes, which Compare refuses: compare the whole objects
	// and look for an owned field among the changes.
	full, err := tb.Compare(ta)
	if err != nil {
		return true
	}
	return !full.Modified.Union(full.Added).Union(full.Removed).Intersection(owned).Empty()
}

// ownedFields is the union of what fieldManager applied to the object
// itself (not its subresources), or nil.
func ownedFields(obj client.Object, fieldManager string) *fieldpath.Set {
	var out *fieldpath.Set
	for _, e := range obj.GetManagedFields() {
		if e.Manager != fieldManager || e.Operation != v1.ManagedFieldsOperationApply || e.Subresource != "" || e.FieldsV1 == nil {
			continue
		}
		s := &fieldpath.Set{}
		if err := s.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
			return nil
		}
		if out == nil {
			out = s
		} else {
			out = out.Union(s)
		}
	}
	return out
}

// FieldsChanged is a predicate for Owns() and Watches() that passes an
// update only when read gives different values for the old and the new
// object (equality.Semantic), or when a deletion starts: the updates of a
// child that change nothing its owner's reconciler reads — a kubelet's
// other status writes of a pod start — no longer requeue the owner.
// Creations, deletions, generic events and objects that are not a T pass.
//
// read lists what the reconciler reads of a T, as a slice of the fields:
//
//	Owns(&corev1.Pod{}, builder.WithPredicates(ensure.FieldsChanged(func(pod *corev1.Pod) any {
//		return []any{pod.OwnerReferences, pod.Status.Phase, pod.Status.Conditions}
//	})))
//
// ssagen vet -fix writes it for an Owns() whose child's status churns,
// listing what the package's reconciler reads of the kind; keep the list
// in step when the reconciler reads more. Unlike OwnedFieldsChanged it
// needs no field manager, so it also judges children that were created
// with Create and are only read since.
func FieldsChanged[T client.Object](read func(T) any) predicate.Funcs {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			before, ok1 := e.ObjectOld.(T)
			after, ok2 := e.ObjectNew.(T)
			if !ok1 || !ok2 {
				return true
			}
			if (before.GetDeletionTimestamp() == nil) != (after.GetDeletionTimestamp() == nil) {
				return true
			}
			return !equality.Semantic.DeepEqual(read(before), read(after))
		},
	}
}

// Each is what read gives for each item of items: in a FieldsChanged
// list, the fields a reconciler reads of each item of a slice, so that a
// change to another field of an item does not pass —
//
//	ensure.Each(pod.Status.Conditions, func(c corev1.PodCondition) any { return []any{c.Status, c.Type} })
//
// compares the conditions' types and statuses, not their probe times.
func Each[E any](items []E, read func(E) any) []any {
	out := make([]any, len(items))
	for i, item := range items {
		out[i] = read(item)
	}
	return out
}
