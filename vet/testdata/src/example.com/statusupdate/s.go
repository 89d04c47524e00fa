package statusupdate

import (
	"context"

	"example.com/api"
	apiensure "example.com/generated/api/ensure"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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

// Kinds known only at run time: no generated helper writes them, and the
// finding says so rather than asking for one to be generated.
func (r *R) syncAll(ctx context.Context, objs []client.Object) error {
	for _, obj := range objs {
		if err := r.Status().Update(ctx, obj); err != nil { // want `no automatic fix: the object's kind is known only at run time \(client\.Object\)`
			return err
		}
	}
	return nil
}

func (r *R) syncUnstructured(ctx context.Context, key client.ObjectKey) error {
	u := &unstructured.Unstructured{}
	if err := r.Get(ctx, key, u); err != nil {
		return err
	}
	return r.Status().Update(ctx, u) // want `no automatic fix: the object's kind is known only at run time \(unstructured\.Unstructured\)`
}
