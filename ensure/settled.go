package ensure

import (
	"bytes"
	"encoding/json"
	"reflect"
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
		// The live object's JSON, decoded once for both comparisons.
		have, ok := jsonOf(live)
		return ok && ownsExactly(owned, desired, have) && subset(desired.Object, have)
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
// a field of the intent is owned when owned holds it, a field below it,
// or one of its parents (an atomic struct), and an owned field belongs to
// the intent when one of its parents (or itself) is a field of the intent,
// or fields of the intent lie below it.
// Below a list, the deduced set cannot
// tell a field the intent dropped from one it sends: there the live list
// must equal the intent's, or it is a doubt.
func ownsExactly(owned *fieldpath.Set, desired *unstructured.Unstructured, have map[string]any) bool {
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
		under := below(owned, p)
		if ok && !owned.Has(p) && under.Empty() && !hasPrefix(owned, p) {
			ok = false
		}
		if w := valueAt(desired.Object, p); ok && !under.Empty() {
			if _, list := w.([]any); list && !reflect.DeepEqual(normal(w), normal(valueAt(have, p))) {
				ok = false
			}
		}
	})
	owned.Leaves().Iterate(func(p fieldpath.Path) {
		if !below(leaves, p).Empty() {
			return // owned whole, the intent's fields below it
		}
		for i := len(p); ok && i > 0; i-- {
			if leaves.Has(p[:i]) {
				return
			}
		}
		ok = false
	})
	return ok
}

// hasPrefix reports a set holding a parent of p (an atomic struct or map
// owned whole: a Deployment's selector).
func hasPrefix(set *fieldpath.Set, p fieldpath.Path) bool {
	for i := len(p) - 1; i > 0; i-- {
		if set.Has(p[:i]) {
			return true
		}
	}
	return false
}

// valueAt is the JSON value at p, a path of field names.
func valueAt(m map[string]any, p fieldpath.Path) any {
	var v any = m
	for _, pe := range p {
		obj, isObj := v.(map[string]any)
		if pe.FieldName == nil || !isObj {
			return nil
		}
		v = obj[*pe.FieldName]
	}
	return v
}

// normal is v as encoding/json decodes it (numbers as float64).
func normal(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// below is the part of set under path p.
func below(set *fieldpath.Set, p fieldpath.Path) *fieldpath.Set {
	for _, pe := range p {
		set = set.WithPrefix(pe)
	}
	return set
}
