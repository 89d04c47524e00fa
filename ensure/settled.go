package ensure

import (
	"bytes"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// ignoredFields are the paths the API server strips from every manager's
// set (its stripMeta field manager): they are never owned.
var ignoredFields = fieldpath.NewSet(
	fieldpath.MakePathOrDie("apiVersion"),
	fieldpath.MakePathOrDie("kind"),
	fieldpath.MakePathOrDie("metadata"),
	fieldpath.MakePathOrDie("metadata", "name"),
	fieldpath.MakePathOrDie("metadata", "namespace"),
	fieldpath.MakePathOrDie("metadata", "creationTimestamp"),
	fieldpath.MakePathOrDie("metadata", "selfLink"),
	fieldpath.MakePathOrDie("metadata", "uid"),
	fieldpath.MakePathOrDie("metadata", "clusterName"),
	fieldpath.MakePathOrDie("metadata", "generation"),
	fieldpath.MakePathOrDie("metadata", "managedFields"),
	fieldpath.MakePathOrDie("metadata", "resourceVersion"),
)

// settled reports, with no memory of an earlier apply, whether applying
// desired to live now would change nothing: this manager's Apply entry
// owns exactly the intent's fields (an apply would neither prune nor take
// over a field), and merging the intent into live changes no value. It is
// how the first resync after a restart or a leader failover sends no
// request for an unchanged object: the informer already holds the object
// and its managedFields. Any doubt is false: one apply, never a wrong skip.
func settled(t *typed.ParseableType, live client.Object, desired *unstructured.Unstructured, o *options, sub string) bool {
	var owned *fieldpath.Set
	for _, e := range live.GetManagedFields() {
		switch {
		case e.Operation == metav1.ManagedFieldsOperationUpdate && ((e.Manager == o.fieldManager && e.Subresource == sub) || slices.Contains(o.migrateFrom, e.Manager)),
			e.Operation == metav1.ManagedFieldsOperationApply && e.Subresource == sub && e.Manager != o.fieldManager && slices.Contains(o.migrateFrom, e.Manager):
			return false // a migration is due first
		case e.Manager != o.fieldManager || e.Operation != metav1.ManagedFieldsOperationApply || e.Subresource != sub:
			continue
		case owned != nil || e.FieldsV1 == nil:
			return false // two entries, or an empty one: a doubt
		}
		owned = &fieldpath.Set{}
		if err := owned.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
			return false
		}
	}
	if owned == nil {
		return false
	}
	if t == nil {
		return ownsExactly(owned, desired) && satisfies(live, desired.Object)
	}
	td, err := t.FromUnstructured(desired.Object, typed.AllowDuplicates)
	if err != nil {
		return false
	}
	intent, err := td.ToFieldSet()
	if err != nil || !intent.Difference(ignoredFields).Equals(owned) {
		return false
	}
	// The sets are equal, so every field of the intent is still ours: no
	// other write has touched it since our last apply, and its live value
	// is what that apply wrote, after the API server's defaulting (an
	// atomic list of RBAC subjects gains apiGroup). The intent is unchanged
	// when merging it changes nothing, or, for values the server
	// completed, when each of its values is in the live object.
	return mergeIsNoop(*t, live, desired) || satisfies(live, desired.Object)
}

// ownsExactly is settled's comparison of sets without the kind's schema:
// the intent's fields are deduced from its JSON, every list atomic, so
// a field of the intent is owned when owned holds it or a field below it,
// and an owned field belongs to the intent when one of its parents (or
// itself) is a field of the intent.
func ownsExactly(owned *fieldpath.Set, desired *unstructured.Unstructured) bool {
	td, err := typed.DeducedParseableType.FromUnstructured(desired.Object)
	if err != nil {
		return false
	}
	intent, err := td.ToFieldSet()
	if err != nil {
		return false
	}
	leaves := intent.Difference(ignoredFields).Leaves()
	ok := true
	leaves.Iterate(func(p fieldpath.Path) {
		if ok && !owned.Has(p) && below(owned, p).Empty() {
			ok = false
		}
	})
	owned.Leaves().Iterate(func(p fieldpath.Path) {
		for i := len(p); ok && i > 0; i-- {
			if leaves.Has(p[:i]) {
				return
			}
		}
		ok = false
	})
	return ok
}

// below is the part of set under path p.
func below(set *fieldpath.Set, p fieldpath.Path) *fieldpath.Set {
	for _, pe := range p {
		set = set.WithPrefix(pe)
	}
	return set
}
