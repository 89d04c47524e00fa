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

// migrate moves the ownership of fields written with Update by the
// controller's former managers to its apply manager, once per object and
// process, so that fields it stopped setting are pruned (kubernetes #99003).
func migrate(ctx context.Context, c client.Client, live client.Object, o *options) error {
	former := sets.New(o.migrateFrom...)
	former.Insert(o.fieldManager) // the same name, formerly used with Update
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
