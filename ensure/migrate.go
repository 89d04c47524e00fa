package ensure

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/csaupgrade"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// migrate moves the ownership of fields written with Update by this
// controller — its field manager's own name, and the former names given
// with MigrateFrom — to its apply manager, once per object and process,
// so that fields it stopped setting are pruned (kubernetes #99003).
//
// It never takes another writer's fields: an Update entry of any other
// manager ("manager" of another Kubebuilder operator, a person's
// "kubectl-client-side-apply", "before-first-apply") stays theirs, and
// our apply leaves those fields alone.
func migrate(ctx context.Context, c client.Client, live client.Object, o *options) error {
	former := formerManagers(o)
	found := false
	for _, e := range live.GetManagedFields() {
		if e.Operation == metav1.ManagedFieldsOperationUpdate && former.Has(e.Manager) && e.Subresource == "" {
			found = true
		}
	}
	if !found {
		return nil
	}
	patch, err := csaupgrade.UpgradeManagedFieldsPatch(live, former, o.fieldManager)
	if err != nil {
		return fmt.Errorf("ensure: migrating %s from Update to apply: %w", live.GetName(), err)
	}
	if patch == nil {
		return nil
	}
	if err := c.Patch(ctx, live, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		return fmt.Errorf("ensure: migrating %s from Update to apply: %w", live.GetName(), err)
	}
	return nil
}

// formerManagers is the set of names whose Update entries are this
// controller's: the field manager itself and what MigrateFrom named.
func formerManagers(o *options) sets.Set[string] {
	former := sets.New(o.migrateFrom...)
	former.Insert(o.fieldManager) // the same name, formerly used with Update
	return former
}
