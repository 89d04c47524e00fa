package ensure

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/csaupgrade"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// migrate moves to this controller's apply manager, once per object,
// subresource and process, the fields this controller wrote under other
// names, so that fields it stopped setting are pruned (kubernetes #99003):
//
//   - fields written with Update (or Create) by its field manager's own
//     name or a name given with MigrateFrom — on the object, or on its
//     status subresource (a controller that used Status().Update);
//   - fields applied under a former name given with MigrateFrom (a
//     renamed field manager, kro #1355), merged into its apply entry.
//
// It never takes another writer's fields: an entry of any other manager
// ("manager" of another Kubebuilder operator, a person's
// "kubectl-client-side-apply", "before-first-apply") stays theirs, and
// our apply leaves those fields alone.
func migrate(ctx context.Context, c client.Client, live client.Object, o *options, sub string) error {
	former := formerManagers(o)
	renamed := sets.New(o.migrateFrom...)
	renamed.Delete(o.fieldManager)
	if !needsMigration(live, former, renamed, sub) {
		return nil
	}
	cp, ok := live.DeepCopyObject().(client.Object)
	if !ok {
		return fmt.Errorf("ensure: %T cannot be copied", live)
	}
	var copts []csaupgrade.Option
	if sub != "" {
		copts = append(copts, csaupgrade.Subresource(sub))
	}
	if err := csaupgrade.UpgradeManagedFields(cp, former, o.fieldManager, copts...); err != nil {
		return fmt.Errorf("ensure: migrating %s from Update to apply: %w", live.GetName(), err)
	}
	entries, err := mergeRenamed(cp.GetManagedFields(), renamed, o.fieldManager, sub)
	if err != nil {
		return fmt.Errorf("ensure: migrating %s from a former field manager: %w", live.GetName(), err)
	}
	if reflect.DeepEqual(entries, live.GetManagedFields()) {
		return nil
	}
	// As csaupgrade does: the resourceVersion replaced, so that a copy
	// the cache had not caught up with fails rather than overwrite newer
	// managedFields.
	patch, err := json.Marshal([]map[string]any{
		{"op": "replace", "path": "/metadata/managedFields", "value": entries},
		{"op": "replace", "path": "/metadata/resourceVersion", "value": live.GetResourceVersion()},
	})
	if err != nil {
		return err
	}
	if err := c.Patch(ctx, live, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		return fmt.Errorf("ensure: migrating %s to apply: %w", live.GetName(), err)
	}
	return nil
}

// needsMigration reports entries of sub that migrate would move.
func needsMigration(live client.Object, former, renamed sets.Set[string], sub string) bool {
	for _, e := range live.GetManagedFields() {
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
		a, b := &fieldpath.Set{}, &fieldpath.Set{}
		if err := a.FromJSON(bytes.NewReader(target.FieldsV1.Raw)); err != nil {
			return nil, err
		}
		if err := b.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
			return nil, err
		}
		raw, err := a.Union(b).ToJSON()
		if err != nil {
			return nil, err
		}
		target.FieldsV1 = &metav1.FieldsV1{Raw: raw}
	}
	return out, nil
}

// formerManagers is the set of names whose Update entries are this
// controller's: the field manager itself and what MigrateFrom named.
func formerManagers(o *options) sets.Set[string] {
	former := sets.New(o.migrateFrom...)
	former.Insert(o.fieldManager) // the same name, formerly used with Update
	return former
}
