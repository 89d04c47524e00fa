package testenv

import (
	"context"
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ApplyStatus applies ac to the status subresource as manager, forcing,
// the way another writer (a kubelet, a cloud controller) would. It is an
// apply patch, which every controller-runtime release ssagen supports
// has; a typed Status().Apply exists only from v0.23 on.
func ApplyStatus(ctx context.Context, c client.Client, ac runtime.ApplyConfiguration, manager string) error {
	b, err := json.Marshal(ac)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(b); err != nil {
		return err
	}
	return c.Status().Patch(ctx, u, client.RawPatch(types.ApplyPatchType, b), client.FieldOwner(manager), client.ForceOwnership)
}
