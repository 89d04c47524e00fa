// Package crossfunc has the shapes where the read and the write of an
// object are in different functions — of this package, or of another of
// the module (example.com/crossfunc/kube) — seen through flow's facts.
package crossfunc

import (
	"context"

	"example.com/api"
	"example.com/crossfunc/kube"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type Reconciler struct {
	client.Client
	kube *kube.Reconciler
}

// The caller reads the pod from the cache; a helper of another package
// writes it.
func (r *Reconciler) labelReadPod(ctx context.Context) error {
	pod := &api.Pod{}
	if err := r.Get(ctx, client.ObjectKey{Name: "p"}, pod); err != nil {
		return err
	}
	return kube.Label(ctx, r.Client, pod, "seen", "true") // want `Update of a Pod read from the cache, in Label, which this call hands it to`
}

// Through two helpers, and through one of this package.
func (r *Reconciler) relabel(ctx context.Context) error {
	pod := &api.Pod{}
	if err := r.Get(ctx, client.ObjectKey{Name: "p"}, pod); err != nil {
		return err
	}
	if err := kube.Relabel(ctx, r.Client, pod); err != nil { // want `Update of a Pod read from the cache, in Relabel`
		return err
	}
	return r.mark(ctx, pod) // want `Update of a Pod read from the cache, in mark`
}

func (r *Reconciler) mark(ctx context.Context, pod *api.Pod) error {
	pod.Labels["marked"] = "true"
	return r.Update(ctx, pod)
}

// A pod a helper read and returned, updated here.
func (r *Reconciler) updateReturned(ctx context.Context) error {
	pod, err := kube.FreshPod(ctx, r.Client, "p")
	if err != nil {
		return err
	}
	pod.Labels["fresh"] = "true"
	return r.Update(ctx, pod) // want `Update of a Pod read from the cache: another controller keeps writing it`
}

// The items of a cached List, updated in a loop: each a read.
func (r *Reconciler) labelListed(ctx context.Context) error {
	pods := &api.PodList{}
	if err := r.List(ctx, pods); err != nil {
		return err
	}
	for i := 0; i < len(pods.Items); i++ {
		pod := &pods.Items[i]
		pod.Labels["listed"] = "true"
		if err := r.Update(ctx, pod); err != nil { // want `Update of a Pod read from the cache: another controller keeps writing it`
			return err
		}
	}
	for _, pod := range pods.Items {
		pod.Labels["again"] = "true"
		if err := r.Update(ctx, &pod); err != nil { // want `Update of a Pod read from the cache: another controller keeps writing it`
			return err
		}
	}
	return nil
}

// The items of a cached List handed to helpers that Update them (JobSet's
// and rabbitmq's shape): the slice, and the list itself.
func (r *Reconciler) markListed(ctx context.Context) error {
	pods := &api.PodList{}
	if err := r.List(ctx, pods); err != nil {
		return err
	}
	if err := kube.MarkAll(ctx, r.Client, pods.Items); err != nil { // want `Update of a Pod read from the cache, in MarkAll`
		return err
	}
	return kube.MarkList(ctx, r.Client, pods) // want `Update of a Pod read from the cache, in MarkList`
}

// cass-operator's restart: the items a function listed, handed to a
// function that Updates them.
func (r *Reconciler) markReturned(ctx context.Context) error {
	pods, err := kube.ListPods(ctx, r.Client)
	if err != nil {
		return err
	}
	return kube.MarkAll(ctx, r.Client, pods) // want `Update of a Pod read from the cache, in MarkAll`
}

// The same items Updated here, one by one.
func (r *Reconciler) relabelReturned(ctx context.Context) error {
	pods, err := kube.ListPods(ctx, r.Client)
	if err != nil {
		return err
	}
	for _, pod := range pods {
		pod.Labels["seen"] = "true"
		if err := r.Update(ctx, &pod); err != nil { // want `Update of a Pod read from the cache`
			return err
		}
	}
	return nil
}

// cass-operator's reconciliation context: pods read in one method are
// kept in a field and Updated in another.
type rollout struct {
	client.Client
	pods  []*api.Pod
	built []*api.Pod
}

func (r *rollout) load(ctx context.Context, names []string) error {
	r.pods = make([]*api.Pod, len(names))
	for i, name := range names {
		pod := &api.Pod{}
		if err := r.Get(ctx, client.ObjectKey{Name: name}, pod); err != nil {
			return err
		}
		r.pods[i] = pod
		r.built = append(r.built, &api.Pod{ObjectMeta: api.ObjectMeta{Name: name}})
	}
	return nil
}

func (r *rollout) roll(ctx context.Context, i int) error {
	pod := r.pods[i]
	pod.Labels["rolled"] = "true"
	return r.Update(ctx, pod) // want `Update of a Pod read from the cache`
}

// Silent: a field that holds only what the package built.
func (r *rollout) rollBuilt(ctx context.Context, i int) error {
	pod := r.built[i]
	pod.ResourceVersion = "1"
	return r.Update(ctx, pod)
}

// Silent: items built here, not listed.
func (r *Reconciler) markBuilt(ctx context.Context) error {
	return kube.MarkAll(ctx, r.Client, []api.Pod{{ObjectMeta: api.ObjectMeta{Name: "p"}}})
}

// Silent: the pod handed to the helper was built here, not read.
func (r *Reconciler) labelBuilt(ctx context.Context) error {
	pod := kube.NotARead("p")
	return kube.Label(ctx, r.Client, pod, "built", "true")
}

// keda's HPA: the object a constructor of the module built, Updated
// with no read and no resourceVersion, overwrites what others set.
func (r *Reconciler) replaceBuilt(ctx context.Context) error {
	pod := kube.NotARead("p")
	return r.Update(ctx, pod) // want `Update of an object built from scratch`
}

// Silent: the constructor's object given the resourceVersion of the one
// read (optimistic locking).
func (r *Reconciler) replaceBuiltVersioned(ctx context.Context) error {
	found := &api.Pod{}
	if err := r.Get(ctx, client.ObjectKey{Name: "p"}, found); err != nil {
		return err
	}
	pod := kube.NotARead("p")
	pod.ResourceVersion = found.ResourceVersion
	return r.Update(ctx, pod)
}

// Silent: a helper that writes only the status.
func (r *Reconciler) phase(ctx context.Context) error {
	pod := &api.Pod{}
	if err := r.Get(ctx, client.ObjectKey{Name: "p"}, pod); err != nil {
		return err
	}
	return kube.SetPhase(ctx, r.Client, pod, "Running")
}

// The retried closure calls a method of another package that Gets and
// Updates.
func (r *Reconciler) retryThroughMethod(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error { // want `RetryOnConflict around Get \+ Update \(in Bump, which it calls\)`
		return r.kube.Bump(ctx)
	})
}

// The retried function is a method value.
func (r *Reconciler) retryMethodValue(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultRetry, r.touchAll) // want `RetryOnConflict around Get \+ Update \(in touchAll, which it calls\)`
}

func (r *Reconciler) touchAll() error {
	return kube.Touch(context.Background(), r.Client, "p")
}

// The retried closure, defined before the retry, reads through one helper
// and writes through another.
func (r *Reconciler) retryClosure(ctx context.Context) error {
	update := func() error {
		pod, err := kube.FreshPod(ctx, r.Client, "p")
		if err != nil {
			return err
		}
		return kube.Label(ctx, r.Client, pod, "k", "v") // want `Update of a Pod read from the cache, in Label`
	}
	return retry.RetryOnConflict(retry.DefaultRetry, update) // want `RetryOnConflict around Get \+ Update \(in FreshPod, which it calls\)`
}

// retry.OnError retrying conflicts (and NotFound) through a predicate of
// the package, around a Get and an Update of an object handed in
// (rabbitmq's updateAnnotation): a retry on conflict too.
func (r *Reconciler) annotate(ctx context.Context, obj *api.ConfigMap, key, value string) error {
	return retry.OnError(retry.DefaultRetry, conflictOrNotFound, func() error { // want `RetryOnConflict around Get \+ Update`
		if err := r.Get(ctx, client.ObjectKey{Name: obj.Name}, obj); err != nil {
			return err
		}
		obj.Data[key] = value
		return r.Update(ctx, obj)
	})
}

func conflictOrNotFound(err error) bool {
	return apierrors.IsConflict(err) || apierrors.IsNotFound(err)
}

// Silent: retry.OnError whose predicate does not retry conflicts.
func (r *Reconciler) onNotFound(ctx context.Context, obj *api.ConfigMap) error {
	return retry.OnError(retry.DefaultRetry, apierrors.IsNotFound, func() error {
		if err := r.Get(ctx, client.ObjectKey{Name: obj.Name}, obj); err != nil {
			return err
		}
		return r.Update(ctx, obj)
	})
}

// Silent: the retried function only reads.
func (r *Reconciler) retryRead(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		_, err := kube.FreshPod(ctx, r.Client, "p")
		return err
	})
}
