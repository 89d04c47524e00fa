package statusowners

import (
	"context"

	"example.com/api"
	apiensure "example.com/generated/api/ensure"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The helpers are among the package's dependencies.
var _ = apiensure.EnsurePod

// Two reconcilers write the Pod's status: converting it whole would let
// each claim the other's fields, so neither is fixed.
type PhaseReconciler struct{ client.Client }

func (r *PhaseReconciler) phase(ctx context.Context, key client.ObjectKey) error {
	var pod api.Pod
	if err := r.Get(ctx, key, &pod); err != nil {
		return err
	}
	pod.Status.Phase = "Ready"
	return r.Status().Update(ctx, &pod) // want `no automatic fix: another writer of Pod's status is in evidence`
}

type ProbeReconciler struct{ client.Client }

func (r *ProbeReconciler) probe(ctx context.Context, key client.ObjectKey) error {
	var pod api.Pod
	if err := r.Get(ctx, key, &pod); err != nil {
		return err
	}
	return r.Status().Update(ctx, &pod) // want `no automatic fix: another writer of Pod's status is in evidence`
}
