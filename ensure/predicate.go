package ensure

import (
	"bytes"
	v1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// OwnedFieldsChanged is a predicate for Owns() and Watches() that drops
// update events changing nothing fieldManager owns: a kubelet walking a pod
// through its phases no longer requeues the pod's owner once per phase
// (seed 002). Creates, deletes, a deletion timestamp appearing, and any
// event it cannot judge pass. Generated packages offer it per kind with
// the kind's schema (Owned<Kind>Changes).
//
// On delete events it drops the object from DefaultCache, the cache
// Ensure uses without WithCache, and from no other cache.
// A controller whose Ensure calls use WithCache(c) uses
// c.OwnedFieldsChanged, or adds c.ForgetDeleted() beside the generated
// Owned<Kind>Changes.
func OwnedFieldsChanged(fieldManager string, t typed.ParseableType) predicate.Funcs {
	p := (*SkipCache)(nil).OwnedFieldsChanged(fieldManager, t)
	// DefaultCache as it is when the event comes.
	p.DeleteFunc = func(e event.DeleteEvent) bool { return DefaultCache.forgetDeleted(e) }
	return p
}

// OwnedFieldsChanged is the package's OwnedFieldsChanged for the
// controllers whose Ensure calls use this cache: a deleted object leaves
// c (and no other cache). On a nil cache it forgets nothing.
func (c *SkipCache) OwnedFieldsChanged(fieldManager string, t typed.ParseableType) predicate.Funcs {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			return ownedFieldsChanged(fieldManager, t, e.ObjectOld, e.ObjectNew)
		},
		DeleteFunc: c.forgetDeleted,
	}
}

// ForgetDeleted is a predicate that passes every event and, on delete
// events, drops the object from c: add it beside a generated
// Owned<Kind>Changes when the Ensure calls use WithCache(c), e.g.
// builder.WithPredicates(rbacensure.OwnedRoleChanges(m), c.ForgetDeleted()).
func (c *SkipCache) ForgetDeleted() predicate.Funcs {
	return predicate.Funcs{DeleteFunc: c.forgetDeleted}
}

func (c *SkipCache) forgetDeleted(e event.DeleteEvent) bool {
	if c != nil && e.Object != nil {
		c.ForgetObject(e.Object.GetNamespace(), e.Object.GetName())
	}
	return true
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
	tb, err := t.FromStructured(before, typed.AllowDuplicates)
	if err != nil {
		return true
	}
	ta, err := t.FromStructured(after, typed.AllowDuplicates)
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
