package updatecached

import (
	"context"
	"errors"

	"example.com/api"
	apiensure "example.com/generated/api/ensure"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The helpers are among the package's dependencies.
var _ = apiensure.EnsurePod

type SandboxReconciler struct{ client.Client }

// The labels of a pod the kubelet keeps writing: the copy goes right after
// the read, the write applies what the code changed.
func (r *SandboxReconciler) labelPod(ctx context.Context, hash string, extra map[string]string) error {
	pod := &api.Pod{}
	err := r.Get(ctx, client.ObjectKey{Name: "p"}, pod)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			return err
		}
		pod = nil
	}
	if pod == nil {
		return nil
	}
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels["sandbox"] = hash
	for k, v := range extra {
		pod.Labels[k] = v
	}
	if err := r.Update(ctx, pod); err != nil { // want `Update of a Pod read from the cache: another controller keeps writing it`
		return err
	}
	return nil
}

// The read in an if's init, the write in its else: the copy opens the else.
func (r *SandboxReconciler) adoptService(ctx context.Context, hash string) error {
	svc := &api.Service{}
	if err := r.Get(ctx, client.ObjectKey{Name: "s"}, svc); err != nil {
		return err
	} else {
		svc.Labels["sandbox"] = hash
		return r.Update(ctx, svc) // want `Update of a Service read from the cache: another controller keeps writing it`
	}
}

// Declined: the read is in a block that does not hold the write.
func (r *SandboxReconciler) readElsewhere(ctx context.Context, fresh bool) error {
	pod := &api.Pod{}
	if fresh {
		if err := r.Get(ctx, client.ObjectKey{Name: "p"}, pod); err != nil {
			return err
		}
	}
	pod.Labels["x"] = "y"
	return r.Update(ctx, pod) // want `Update of a Pod read from the cache: .*no automatic fix: the object is read in another block than the one that writes it`
}

// Declined: the variable points at another pod before the write.
func (r *SandboxReconciler) repointed(ctx context.Context, other *api.Pod) error {
	pod := &api.Pod{}
	if err := r.Get(ctx, client.ObjectKey{Name: "p"}, pod); err != nil {
		return errors.Join(err)
	}
	pod = other
	return r.Update(ctx, pod) // want `Update of a Pod read from the cache: .*no automatic fix: the variable is pointed at another object`
}
