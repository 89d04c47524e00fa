package ensure

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/csaupgrade"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// The repairs Ensure makes to what the API server keeps of an object's
// ownership, each counted in ssagen_repair_total{client,kind,repair} and
// logged (the context's logger, controller-runtime's log.FromContext):
const (
	// repairReset: the object's managedFields were reset — wiped and
	// rebuilt as one "before-first-apply" entry holding every field
	// (kubernetes #136919: a conversion webhook down) — and this manager's
	// entry went with them. No skip stands on that: one apply takes back
	// the intent's fields, which the API server then records as shared
	// with "before-first-apply"; one more patch takes them out of
	// "before-first-apply"'s entry (releaseShared), so that a field the
	// intent drops later is pruned, as if the reset had not happened.
	// "before-first-apply" keeps everything else: nothing is pruned that
	// someone else may have set.
	repairReset = "managed-fields-reset"
	// repairStaleVersion: entries recorded at an apiVersion of the kind's
	// group the API server no longer serves, which fail every apply
	// ("request to convert CR to an invalid group/version", kubernetes
	// #111937), are restamped with the version served now. Every
	// manager's entry keeps its fields: only the version is rewritten.
	repairStaleVersion = "stale-api-version"
	// repairFormer: fields this controller wrote under its former names
	// (MigrateFrom; with Update on the object or its status, or with apply)
	// or, on its first apply of the object, with Update under its own
	// name, moved to its apply manager — both subresources in one patch.
	repairFormer = "former-managers"
	// repairReused: the apply configuration carried a resourceVersion,
	// which is never sent (the apply would be an optimistic-locked one) —
	// typically one given to an Apply before, into which controller-runtime
	// v0.24 and later decode the API server's answer (#3475): every field
	// of the object, other writers' included, which are not sent either
	// (reduceSnapshot).
	repairReused = "reused-configuration"
)

// repaired counts and logs one repair of the object of in.
func repaired(ctx context.Context, c client.Client, in *intent, repair string) {
	repairTotal.WithLabelValues(metricsNameOf(c), in.gvk.Kind, repair).Inc()
	lg := log.FromContext(ctx).WithValues("kind", in.gvk.Kind, "namespace", in.namespace, "name", in.name, "repair", repair)
	if repair == repairReused {
		lg.V(1).Info("ensure: the apply configuration holds an earlier answer; its resourceVersion and other writers' fields are not sent")
		return
	}
	lg.Info("ensure: repaired the object's managedFields")
}

// reduceSnapshot makes an intent decoded from an earlier answer — every
// field of the object as it was, other writers' too, and server-set
// metadata — what this controller may send: of its endpoint's fields (the
// object's without status, or the status), those the live object's
// managedFields give to this field manager. A field of another writer is
// never sent: the snapshot's value of it may be older than theirs. Nor is
// a field nobody owns, even one the live object lacks: it may be one its
// owner removed since the answer, or no one's at all — encoding/json
// decodes a list's items into the configuration's earlier items, so an
// earlier listener's hostnames stay on the item the answer puts first,
// another writer's listener (the soak's seed 1795889629). Such fields are
// logged, not sent: a field added to a reused configuration needs a
// configuration built anew. The configuration has no managedFields of its
// own, so the live ones (the cache's) are what tell the writers apart. A
// snapshot with none of this manager's fields in it, of an object gone,
// or of a kind without its merge schema tells nothing: an error says to
// build the configuration anew.
func reduceSnapshot(ctx context.Context, c client.Client, in *intent, obj client.Object, o *options, sub string) error {
	anew := func(why string) error {
		return fmt.Errorf("ensure: the apply configuration of %s %s holds the API server's answer to an earlier Apply (controller-runtime v0.24 and later write it into the configuration they are given), "+
			"every writer's fields in it, and %s: build the configuration anew for each call", in.gvk.Kind, in.name, why)
	}
	if o.schema == nil {
		return anew("without the kind's merge schema nothing tells them apart")
	}
	live, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return fmt.Errorf("ensure: %T cannot be copied", obj)
	}
	key := client.ObjectKey{Namespace: in.namespace, Name: in.name}
	err := c.Get(ctx, key, live)
	if err == nil && stripped(live) {
		_, err = fromAPIServer(ctx, c, live) // the cache strips the managedFields this needs (APIReader)
	}
	if apierrors.IsNotFound(err) {
		return anew("the object is gone")
	} else if err != nil {
		return err
	}
	mine, owned := &fieldpath.Set{}, &fieldpath.Set{}
	for _, e := range live.GetManagedFields() {
		if e.Subresource != sub || e.FieldsV1 == nil {
			continue
		}
		set := &fieldpath.Set{}
		if err := set.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
			return fmt.Errorf("ensure: the managedFields of %s %s: %w", in.gvk.Kind, in.name, err)
		}
		if e.Manager == o.fieldManager && e.Operation == metav1.ManagedFieldsOperationApply {
			mine = mine.Union(set)
		}
		owned = owned.Union(set)
	}
	snap, err := o.schema.FromUnstructured(in.object().Object, typed.AllowDuplicates)
	if err != nil {
		return fmt.Errorf("ensure: the apply configuration of %s %s: %w", in.gvk.Kind, in.name, err)
	}
	tl, err := typedOf(*o.schema, live)
	if err != nil {
		return err
	}
	all, err := snap.ToFieldSet()
	if err != nil {
		return err
	}
	cmp, err := tl.Compare(snap)
	if err != nil {
		return err
	}
	keep := all.Intersection(mine)
	if keep.Difference(ignoredFields).Empty() {
		return anew(fmt.Sprintf("none of them is field manager %q's", o.fieldManager))
	}
	if unsent := all.Leaves().Difference(owned).Intersection(cmp.Added.Union(cmp.Modified)).Difference(ignoredFields); !unsent.Empty() {
		log.FromContext(ctx).Info("ensure: a reused apply configuration holds fields no manager owns; they are not sent (an earlier answer decoded into it may have put them there): build the configuration anew to add a field",
			"kind", in.gvk.Kind, "namespace", in.namespace, "name", in.name, "fields", unsent.String())
	}
	m, ok := extract(snap, keep)
	if !ok {
		m = map[string]any{}
	}
	md, _ := m["metadata"].(map[string]any)
	if sub == "" {
		delete(m, "status")
	} else {
		for k := range m {
			if k != "status" && k != "metadata" {
				delete(m, k)
			}
		}
		md = nil
	}
	for k := range md {
		if serverSet[k] {
			delete(md, k)
		}
	}
	if md == nil {
		md = map[string]any{}
	}
	m["metadata"] = md
	m["apiVersion"], m["kind"] = in.gvk.GroupVersion().String(), in.gvk.Kind
	md["name"] = in.name
	if in.namespace != "" {
		md["namespace"] = in.namespace
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	reduced, err := intentOf(b)
	if err != nil {
		return err
	}
	*in = *reduced
	return nil
}

// serverSet are the metadata fields the API server sets: an answer has
// them, an intent never.
var serverSet = map[string]bool{"uid": true, "resourceVersion": true, "generation": true, "creationTimestamp": true,
	"deletionTimestamp": true, "deletionGracePeriodSeconds": true, "selfLink": true, "managedFields": true}

// repair mends live's managedFields before Ensure decides (none of it is
// needed for a skip to be right, all of it for the next apply to be): the
// entries of this controller's former names moved to its apply manager,
// and entries at an apiVersion no longer served restamped, in one patch.
// first says this client has not applied the object before: only then
// are Update entries under the field manager's own name taken, on the
// subresource being applied (the controller may still write other fields
// with Update under that name). It never takes another writer's fields:
// an entry of any other manager ("manager" of another Kubebuilder
// operator, a person's "kubectl-client-side-apply", "before-first-apply")
// stays theirs, and our apply leaves those fields alone.
func repair(ctx context.Context, c client.Client, in *intent, live client.Object, o *options, sub string, first bool) error {
	entries := live.GetManagedFields()
	if !mayNeedRepair(entries, in.gvk.GroupVersion().String(), o, first) {
		return nil
	}
	stale := staleVersions(c, in.gvk, entries)
	declared := sets.New(o.migrateFrom...)
	declared.Delete(o.fieldManager)
	own := sets.New[string]()
	if first {
		own.Insert(o.fieldManager) // the same name, formerly used with Update
	}
	if first {
		// A failed release after an earlier apply (its patch lost a race),
		// or one made by an earlier process: the fields stay shared until
		// this client sees the object first.
		if released, ok := releaseShared(entries, o.fieldManager, sub); ok {
			if err := patchManagedFields(ctx, c, live, released); err != nil {
				return err
			}
			repaired(ctx, c, in, repairReset)
			entries = live.GetManagedFields()
		}
	}
	subs := []string{sub}
	if other := otherSubresource(sub); hasEntries(entries, other) {
		subs = append(subs, other)
	}
	migrating := false
	for _, s := range subs {
		former := declared.Clone()
		if s == sub {
			former = former.Union(own)
		}
		if needsMigration(entries, former, declared, s) {
			migrating = true
		}
	}
	if len(stale) == 0 && !migrating {
		return nil
	}
	cp, ok := live.DeepCopyObject().(client.Object)
	if !ok {
		return fmt.Errorf("ensure: %T cannot be copied", live)
	}
	if len(stale) > 0 {
		cp.SetManagedFields(restamp(cp.GetManagedFields(), stale, in.gvk.GroupVersion().String()))
	}
	for _, s := range subs {
		former := declared.Clone()
		if s == sub {
			former = former.Union(own)
		}
		var copts []csaupgrade.Option
		if s != "" {
			copts = append(copts, csaupgrade.Subresource(s))
		}
		if err := csaupgrade.UpgradeManagedFields(cp, former, o.fieldManager, copts...); err != nil {
			return fmt.Errorf("ensure: migrating %s from Update to apply: %w", live.GetName(), err)
		}
		merged, err := mergeRenamed(cp.GetManagedFields(), declared, o.fieldManager, s)
		if err != nil {
			return fmt.Errorf("ensure: migrating %s from a former field manager: %w", live.GetName(), err)
		}
		cp.SetManagedFields(merged)
	}
	if reflect.DeepEqual(cp.GetManagedFields(), entries) {
		return nil
	}
	if err := patchManagedFields(ctx, c, live, cp.GetManagedFields()); err != nil {
		return err
	}
	if len(stale) > 0 {
		repaired(ctx, c, in, repairStaleVersion)
	}
	if migrating {
		repaired(ctx, c, in, repairFormer)
	}
	return nil
}

// mayNeedRepair is repair's first look, with no allocation: an entry of
// another apiVersion, of a former name, an Update under our own, or
// "before-first-apply" beside our apply entry.
func mayNeedRepair(entries []metav1.ManagedFieldsEntry, current string, o *options, first bool) bool {
	for _, e := range entries {
		if e.APIVersion != current || slices.Contains(o.migrateFrom, e.Manager) ||
			(first && (e.Manager == o.fieldManager && e.Operation == metav1.ManagedFieldsOperationUpdate || e.Manager == beforeFirstApply)) {
			return true
		}
	}
	return false
}

// releaseShared takes out of "before-first-apply"'s entry on sub the
// fields manager's apply entry holds: after a managedFields reset the API
// server records our next apply's fields as shared with it, and a field
// shared with it is never pruned when the intent drops it. It returns the
// entries and whether any field moved. Of "before-first-apply"'s other
// fields nothing moves: they may be anyone's.
func releaseShared(entries []metav1.ManagedFieldsEntry, manager, sub string) ([]metav1.ManagedFieldsEntry, bool) {
	var ours *fieldpath.Set
	shared := false
	for _, e := range entries {
		switch {
		case e.Subresource != sub || e.FieldsV1 == nil:
		case e.Manager == manager && e.Operation == metav1.ManagedFieldsOperationApply:
			ours = &fieldpath.Set{}
			if err := ours.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
				return entries, false
			}
		case e.Manager == beforeFirstApply:
			shared = true
		}
	}
	if ours == nil || !shared {
		return entries, false
	}
	out := make([]metav1.ManagedFieldsEntry, 0, len(entries))
	moved := false
	for _, e := range entries {
		if e.Manager == beforeFirstApply && e.Subresource == sub && e.FieldsV1 != nil {
			theirs := &fieldpath.Set{}
			if err := theirs.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
				return entries, false
			}
			rest := theirs.Difference(ours)
			if !rest.Equals(theirs) {
				moved = true
				if rest.Empty() {
					continue
				}
				raw, err := rest.ToJSON()
				if err != nil {
					return entries, false
				}
				e.FieldsV1 = &metav1.FieldsV1{Raw: raw}
			}
		}
		out = append(out, e)
	}
	return out, moved
}

// patchManagedFields replaces live's managedFields with entries. As
// csaupgrade does, the resourceVersion is replaced too, so that a copy
// the cache had not caught up with fails rather than overwrite newer
// managedFields. The answer lands in live.
func patchManagedFields(ctx context.Context, c client.Client, live client.Object, entries []metav1.ManagedFieldsEntry) error {
	patch, err := json.Marshal([]map[string]any{
		{"op": "replace", "path": "/metadata/managedFields", "value": entries},
		{"op": "replace", "path": "/metadata/resourceVersion", "value": live.GetResourceVersion()},
	})
	if err != nil {
		return err
	}
	if err := c.Patch(ctx, live, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		return fmt.Errorf("ensure: repairing the managedFields of %s: %w", live.GetName(), err)
	}
	return nil
}

// otherSubresource is the endpoint a migration also covers: the status
// when the object is applied, the object when its status is.
func otherSubresource(sub string) string {
	if sub == "" {
		return "status"
	}
	return ""
}

func hasEntries(entries []metav1.ManagedFieldsEntry, sub string) bool {
	for _, e := range entries {
		if e.Subresource == sub {
			return true
		}
	}
	return false
}

// staleVersions are the apiVersions of entries, in the kind's group, that
// the client's REST mapper says the API server does not serve, when it
// does know the version applied: an empty mapper (a fake client's) or a
// failing one proves nothing, and nothing is restamped on its word.
func staleVersions(c client.Client, gvk schema.GroupVersionKind, entries []metav1.ManagedFieldsEntry) sets.Set[string] {
	var stale sets.Set[string]
	current := gvk.GroupVersion().String()
	checked := false
	for _, e := range entries {
		if e.APIVersion == current || e.APIVersion == "" || (stale != nil && stale.Has(e.APIVersion)) {
			continue
		}
		gv, err := schema.ParseGroupVersion(e.APIVersion)
		if err != nil || gv.Group != gvk.Group {
			continue
		}
		m := c.RESTMapper()
		if m == nil {
			return nil
		}
		if !checked {
			if _, err := m.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
				return nil
			}
			checked = true
		}
		if _, err := m.RESTMapping(gvk.GroupKind(), gv.Version); meta.IsNoMatchError(err) {
			if stale == nil {
				stale = sets.New[string]()
			}
			stale.Insert(e.APIVersion)
		}
	}
	return stale
}

// staleInError is the apiVersion an apply's refusal names as one it
// cannot convert to, when an entry of live holds it: what a REST mapper
// that had not yet seen the version go would have missed.
func staleInError(err error, entries []metav1.ManagedFieldsEntry) string {
	const marker = "request to convert CR to an invalid group/version: "
	msg := err.Error()
	i := strings.Index(msg, marker)
	if i < 0 {
		return ""
	}
	gv := msg[i+len(marker):]
	if j := strings.IndexAny(gv, " ,;\"\n"); j >= 0 {
		gv = gv[:j]
	}
	for _, e := range entries {
		if e.APIVersion == gv {
			return gv
		}
	}
	return ""
}

// restamp sets the apiVersion of the entries at a stale version to
// current. An entry of the same manager, operation and subresource
// already at current absorbs the stale one's fields.
func restamp(entries []metav1.ManagedFieldsEntry, stale sets.Set[string], current string) []metav1.ManagedFieldsEntry {
	out := make([]metav1.ManagedFieldsEntry, 0, len(entries))
	for _, e := range entries {
		if stale.Has(e.APIVersion) {
			e.APIVersion = current
			if i := slices.IndexFunc(out, func(o metav1.ManagedFieldsEntry) bool {
				return o.Manager == e.Manager && o.Operation == e.Operation && o.Subresource == e.Subresource && o.APIVersion == current
			}); i >= 0 && out[i].FieldsV1 != nil && e.FieldsV1 != nil {
				if u, err := unionFields(out[i].FieldsV1, e.FieldsV1); err == nil {
					out[i].FieldsV1 = u
					continue
				}
			}
		}
		out = append(out, e)
	}
	return out
}

// needsMigration reports entries of sub that repair would move: Update
// entries of former, Apply entries of renamed.
func needsMigration(entries []metav1.ManagedFieldsEntry, former, renamed sets.Set[string], sub string) bool {
	for _, e := range entries {
		if e.Subresource != sub {
			continue
		}
		if (e.Operation == metav1.ManagedFieldsOperationUpdate && former.Has(e.Manager)) ||
			(e.Operation == metav1.ManagedFieldsOperationApply && renamed.Has(e.Manager)) {
			return true
		}
	}
	return false
}

// mergeRenamed folds the Apply entries of renamed managers on sub into
// manager's Apply entry (renaming the first one when manager has none).
// An entry of another apiVersion than manager's stays: its field set
// cannot be merged safely.
func mergeRenamed(entries []metav1.ManagedFieldsEntry, renamed sets.Set[string], manager, sub string) ([]metav1.ManagedFieldsEntry, error) {
	var out, old []metav1.ManagedFieldsEntry
	ours := -1
	for _, e := range entries {
		switch {
		case e.Operation == metav1.ManagedFieldsOperationApply && e.Subresource == sub && renamed.Has(e.Manager):
			old = append(old, e)
		case e.Operation == metav1.ManagedFieldsOperationApply && e.Subresource == sub && e.Manager == manager:
			ours = len(out)
			out = append(out, e)
		default:
			out = append(out, e)
		}
	}
	for _, e := range old {
		if ours < 0 {
			e.Manager = manager
			ours = len(out)
			out = append(out, e)
			continue
		}
		target := &out[ours]
		if target.APIVersion != e.APIVersion || target.FieldsV1 == nil || e.FieldsV1 == nil {
			out = append(out, e)
			continue
		}
		u, err := unionFields(target.FieldsV1, e.FieldsV1)
		if err != nil {
			return nil, err
		}
		target.FieldsV1 = u
	}
	return out, nil
}

// unionFields is the union of two entries' field sets.
func unionFields(x, y *metav1.FieldsV1) (*metav1.FieldsV1, error) {
	if x == nil || y == nil {
		return nil, fmt.Errorf("an entry without fields")
	}
	a, b := &fieldpath.Set{}, &fieldpath.Set{}
	if err := a.FromJSON(bytes.NewReader(x.Raw)); err != nil {
		return nil, err
	}
	if err := b.FromJSON(bytes.NewReader(y.Raw)); err != nil {
		return nil, err
	}
	raw, err := a.Union(b).ToJSON()
	if err != nil {
		return nil, err
	}
	return &metav1.FieldsV1{Raw: raw}, nil
}
