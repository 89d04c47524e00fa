package ensure

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// ApplyChanges writes what code changed on an object it read, instead of
// an Update of the whole object: the fields after holds that before (the
// object as read, copied before the changes) did not, or held otherwise,
// applied with force under the field manager, together with the fields
// that manager already owns (with after's values), so that none of those
// is pruned; a field it owns that the code removed is (another writer's
// field the code removed stays: an apply removes only its own). Nothing
// is sent when the code changed nothing. The API server's answer lands in after,
// as an Update's does.
//
// It is how an Update of a cached object of a kind other controllers
// keep writing (a Pod the kubelet writes, a Service) stops 409ing and
// stops claiming every field: give it a field manager of its own
// (FieldManager), apart from the one that created the object, so the
// creator's fields stay the creator's (docs/ensure.md, "Fields written
// with Update before apply"). The generated Ensure<Kind>Changes helpers
// call it with the kind's merge schema, which it needs: without one it
// cannot tell a granular map from an atomic one.
//
// The fields it owns are sent with the values after holds: what the code
// read, when it did not change them. Within the cache's lag, another
// writer may have changed one since; the apply (with force, as the Update
// overwrote) sets it back, as the retry of the Update's 409 would have
// when the code sets it on every reconcile. A field the code sets only
// at times is better applied with the kind's Ensure helper, from values
// the controller computes.
//
// An object read without managedFields (a cache that strips them, a fake
// client that keeps none) says nothing of what the manager owns, and an
// apply of the changed fields alone could prune the rest: when the code
// changed something, the ownership is read from c's APIReader (an
// ensure.Client given one: one GET per write, none when nothing changed),
// and without a reader the Update the code did is sent instead, under the
// field manager.
func ApplyChanges(ctx context.Context, c client.Client, before, after client.Object, opts ...ApplyOption) (Result, error) {
	o := newOptions(c, opts)
	gvk, err := apiutil.GVKForObject(after, c.Scheme())
	if err != nil {
		return "", fmt.Errorf("ensure: the object's kind: %w", err)
	}
	if o.schema == nil {
		return "", fmt.Errorf("ensure: ApplyChanges of %s %s needs the kind's merge schema (Schema; the generated Ensure%sChanges passes it)", gvk.Kind, after.GetName(), gvk.Kind)
	}
	label := func(res Result, err error) (Result, error) {
		l := string(res)
		if err != nil {
			l = "error"
			if asConflict(err) != nil {
				l = "conflict"
			}
		}
		applyTotal.WithLabelValues(metricsNameOf(c), gvk.Kind, l).Inc()
		return res, err
	}
	tb, err := typedOf(*o.schema, before)
	if err != nil {
		return "", err
	}
	ta, err := typedOf(*o.schema, after)
	if err != nil {
		return "", err
	}
	cmp, err := tb.Compare(ta)
	if err != nil {
		return "", fmt.Errorf("ensure: comparing %s %s with the object read: %w", gvk.Kind, after.GetName(), err)
	}
	changed := mainFields(cmp.Added.Union(cmp.Modified))
	entries := before.GetManagedFields()
	if len(entries) == 0 {
		if changed.Empty() && mainFields(cmp.Removed).Empty() {
			return label(Skipped, nil)
		}
		if entries = ownershipOf(ctx, c, before); len(entries) == 0 {
			return updated(ctx, c, after, o, label)
		}
	}
	owned := &fieldpath.Set{}
	for _, e := range entries {
		if e.Manager != o.fieldManager || e.Operation != metav1.ManagedFieldsOperationApply || e.Subresource != "" || e.FieldsV1 == nil {
			continue
		}
		set := &fieldpath.Set{}
		if err := set.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
			return "", fmt.Errorf("ensure: the managedFields of %s %s: %w", gvk.Kind, after.GetName(), err)
		}
		owned = owned.Union(mainFields(set))
	}
	// A field the code removed goes when this manager owns it (the apply
	// leaves it out); another writer's stays: an apply removes only its
	// own fields.
	if changed.Empty() && owned.Leaves().Intersection(cmp.Removed.Leaves()).Empty() {
		return label(Skipped, nil)
	}
	want := changed.Union(owned)
	m, ok := extract(ta, want)
	if !ok {
		m = map[string]any{}
	}
	md, _ := m["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		m["metadata"] = md
	}
	m["apiVersion"], m["kind"] = gvk.GroupVersion().String(), gvk.Kind
	md["name"] = after.GetName()
	if ns := after.GetNamespace(); ns != "" {
		md["namespace"] = ns
	}
	body, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	rv := after.GetResourceVersion()
	// An apply carries no resourceVersion (the patch's body asks the
	// object for one: it is zeroed first), and the answer lands in after.
	reset(after, gvk)
	start := time.Now()
	err = c.Patch(ctx, after, applyPatch(body), client.FieldOwner(o.fieldManager), client.ForceOwnership)
	applyLatency.WithLabelValues(metricsNameOf(c), gvk.Kind).Observe(time.Since(start).Seconds())
	if _, ok := after.(runtime.Unstructured); !ok {
		after.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{}) // as an Update leaves a typed object
	}
	if err != nil {
		if conflict := asConflict(err); conflict != nil {
			return label("", conflict)
		}
		return label("", err)
	}
	if after.GetResourceVersion() == rv {
		return label(Unchanged, nil)
	}
	return label(Configured, nil)
}

// ownershipOf is the managedFields of before read from the client's
// APIReader, for an object read where the cache strips them: nil without
// a reader, on error, or when the API server's object is not the one read.
func ownershipOf(ctx context.Context, c client.Client, before client.Object) []metav1.ManagedFieldsEntry {
	full, ok := before.DeepCopyObject().(client.Object)
	if !ok {
		return nil
	}
	if read, err := fromAPIServer(ctx, c, full); !read || err != nil || full.GetUID() != before.GetUID() {
		return nil
	}
	return full.GetManagedFields()
}

// updated is ApplyChanges without ownership to tell the manager's fields
// from others': the Update the code did, under the field manager.
func updated(ctx context.Context, c client.Client, after client.Object, o *options, label func(Result, error) (Result, error)) (Result, error) {
	rv := after.GetResourceVersion()
	if err := c.Update(ctx, after, client.FieldOwner(o.fieldManager)); err != nil {
		return label("", err)
	}
	if after.GetResourceVersion() == rv {
		return label(Unchanged, nil)
	}
	return label(Configured, nil)
}

// mainFields is set without what an apply of the object does not send:
// the status (another endpoint) and the metadata the API server sets.
func mainFields(set *fieldpath.Set) *fieldpath.Set {
	return set.Difference(ignoredFields).RecursiveDifference(notSent)
}

// notSent are the trees an apply of the object never sends, besides
// ignoredFields' paths.
var notSent = fieldpath.NewSet(
	fieldpath.MakePathOrDie("status"),
	fieldpath.MakePathOrDie("metadata", "managedFields"),
	fieldpath.MakePathOrDie("metadata", "deletionTimestamp"),
	fieldpath.MakePathOrDie("metadata", "deletionGracePeriodSeconds"),
)

// extract is the part of tv that set names, as a JSON object: every
// field below a path of set, and the key fields of the list-map items on
// the way. (structured-merge-diff's ExtractItems with WithAppendKeyFields
// does the same, but v6.3.0 — k8s.io v0.34's — appends a list item twice
// when the set names both the item and a field of it; so the set handed
// to it names leaves only: an item's own path is replaced by its fields.)
func extract(tv *typed.TypedValue, set *fieldpath.Set) (map[string]any, bool) {
	full, err := tv.ToFieldSet()
	if err != nil {
		return nil, false
	}
	leaves := fieldpath.NewSet()
	set.Leaves().Iterate(func(p fieldpath.Path) {
		sub := full
		for _, pe := range p {
			sub = sub.WithPrefix(pe)
		}
		if sub.Empty() {
			leaves.Insert(p)
			return
		}
		sub.Leaves().Iterate(func(rel fieldpath.Path) {
			abs := make(fieldpath.Path, 0, len(p)+len(rel))
			leaves.Insert(append(append(abs, p...), rel...))
		})
	})
	keyed := leaves.Union(fieldpath.NewSet())
	leaves.Iterate(func(p fieldpath.Path) {
		for i, pe := range p {
			if pe.Key == nil {
				continue
			}
			for _, f := range *pe.Key {
				name := f.Name
				kp := make(fieldpath.Path, i+1, i+2)
				copy(kp, p[:i+1])
				keyed.Insert(append(kp, fieldpath.PathElement{FieldName: &name}))
			}
		}
	})
	m, ok := tv.ExtractItems(keyed.Leaves()).AsValue().Unstructured().(map[string]any)
	return m, ok
}
