package retryonconflict

import (
	"context"
	"reflect"

	"example.com/api"
	apiensure "example.com/generated/api/ensure"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The helpers are among the package's dependencies.
var _ = apiensure.EnsurePod

type R struct{ client.Client }

// Every conflict is one more read and write. No helper for ConfigMaps:
// reported, no fix.
func (r *R) bump(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error { // want `RetryOnConflict around Get \+ Update.*no automatic fix: no Ensure helper`
		cm := &api.ConfigMap{}
		if err := r.Get(ctx, client.ObjectKey{Name: "bot"}, cm); err != nil {
			return err
		}
		cm.Data = map[string]string{"rotated": "yes"}
		return r.Update(ctx, cm)
	})
}

// Near miss: a retry around something that is not a read and an Update.
func (r *R) read(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		return r.Get(ctx, client.ObjectKey{Name: "bot"}, &api.ServiceAccount{})
	})
}

// Fixed: the status the retried function computes on the object it read
// is applied (capsule's tenant status): no resourceVersion, nothing to
// retry; the retry stays, harmless.
func (r *R) status(ctx context.Context, phase string) error {
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error { // want `RetryOnConflict around Get \+ Update`
		latest := &api.Pod{}
		if err := r.Get(ctx, client.ObjectKey{Name: "p"}, latest); err != nil {
			return err
		}
		original := latest.Status
		latest.Status.Phase = phase
		if reflect.DeepEqual(original, latest.Status) {
			return nil
		}
		return r.Status().Update(ctx, latest)
	})
}

// Fixed: the labels the retried function sets on the pod it read are
// applied as changes, under a field manager of their own.
func (r *R) label(ctx context.Context, value string) error {
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error { // want `RetryOnConflict around Get \+ Update`
		pod := &api.Pod{}
		if err := r.Get(ctx, client.ObjectKey{Name: "p"}, pod); err != nil {
			return err
		}
		if pod.Labels == nil {
			pod.Labels = map[string]string{}
		}
		pod.Labels["team"] = value
		return r.Update(ctx, pod)
	})
}

// No fix: the retried function writes twice.
func (r *R) twice(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error { // want `no automatic fix: the retried function writes more than once`
		pod := &api.Pod{}
		if err := r.Get(ctx, client.ObjectKey{Name: "p"}, pod); err != nil {
			return err
		}
		pod.Labels = map[string]string{"a": "b"}
		if err := r.Update(ctx, pod); err != nil {
			return err
		}
		return r.Status().Update(ctx, pod)
	})
}
