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

// Every conflict is one more read and write. Data merged into what was
// read: reported, no fix.
func (r *R) bump(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error { // want `RetryOnConflict around Get \+ Update.*no automatic fix: the retry re-reads`
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

// Fixed: the retried function sets the whole status from the value the
// reconcile computed (capsule's tenant status) and reads what it read
// only to skip an unchanged write: an apply of it writes what a retried
// Update would. No resourceVersion, nothing to retry; the retry stays.
func (r *R) status(ctx context.Context, computed api.PodStatus) error {
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error { // want `RetryOnConflict around Get \+ Update`
		latest := &api.Pod{}
		if err := r.Get(ctx, client.ObjectKey{Name: "p"}, latest); err != nil {
			return err
		}
		original := latest.Status
		latest.Status = computed
		if reflect.DeepEqual(original, latest.Status) {
			return nil
		}
		return r.Status().Update(ctx, latest)
	})
}

// No fix: the status is built on what was read (another writer's phase
// kept unless this one's differs); a forced apply would overwrite a
// change made in between, which the retry keeps.
func (r *R) statusField(ctx context.Context, phase string) error {
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error { // want `no automatic fix: the retry re-reads the object so that what another writer set in between is kept`
		latest := &api.Pod{}
		if err := r.Get(ctx, client.ObjectKey{Name: "p"}, latest); err != nil {
			return err
		}
		if latest.Status.Phase == "" {
			latest.Status.Phase = phase
		}
		return r.Status().Update(ctx, latest)
	})
}

// No fix: labels merged into what was read.
func (r *R) label(ctx context.Context, value string) error {
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error { // want `no automatic fix: the retry re-reads the object`
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
