package statusupdate

import (
	"context"

	"example.com/api"
	apiensure "example.com/generated/api/ensure"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The helpers are among the package's dependencies.
var _ = apiensure.EnsurePod

type R struct{ client.Client }

// The cached copy may be stale: 409, or another writer's status lost.
// Fixed: the status helper with the status converted.
func (r *R) phase(ctx context.Context, key client.ObjectKey) error {
	var pod api.Pod
	if err := r.Get(ctx, key, &pod); err != nil {
		return err
	}
	pod.Status.Phase = "Ready"
	return r.Status().Update(ctx, &pod) // want `Status\(\).Update\(\) of an object read from the cache`
}

// Near miss: a status built here, not read.
func (r *R) built(ctx context.Context) error {
	return r.Status().Update(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p"}})
}
