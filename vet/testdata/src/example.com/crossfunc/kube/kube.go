// Package kube holds an operator's helpers that read and write through
// the client for its controllers, in a package of their own: what they do
// reaches the controllers as facts.
package kube

import (
	"context"

	"example.com/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Label sets a label and writes the object it is handed.
func Label(ctx context.Context, c client.Client, obj *api.Pod, key, value string) error { // want Label:`updates, updates params \[2\]`
	obj.Labels[key] = value
	return c.Update(ctx, obj)
}

// Relabel writes through Label: the parameter it hands on is written too.
func Relabel(ctx context.Context, c client.Client, pod *api.Pod) error { // want Relabel:`updates, updates params \[2\]`
	return Label(ctx, c, pod, "relabelled", "true")
}

// FreshPod reads a pod and returns it.
func FreshPod(ctx context.Context, c client.Client, name string) (*api.Pod, error) { // want FreshPod:`gets, returns read \[0\]`
	pod := &api.Pod{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, pod); err != nil {
		return nil, err
	}
	return pod, nil
}

// Touch reads and writes in one: a Get, then an Update.
func Touch(ctx context.Context, c client.Client, name string) error { // want Touch:`gets, updates`
	pod, err := FreshPod(ctx, c, name)
	if err != nil {
		return err
	}
	pod.Labels["touched"] = "true"
	return c.Update(ctx, pod)
}

// SetPhase writes the status only: not an Update of the parameter's
// object, which status writes are not.
func SetPhase(ctx context.Context, c client.Client, pod *api.Pod, phase string) error { // want SetPhase:`updates`
	pod.Status.Phase = phase
	return c.Status().Update(ctx, pod)
}

// NotARead returns a pod it built, not one it read.
func NotARead(name string) *api.Pod { // want NotARead:`returns built \[0\]`
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name}}
}

// Reconciler's methods summarise like functions.
type Reconciler struct{ client.Client }

// Bump reads and writes a ConfigMap: called by a retried closure.
func (r *Reconciler) Bump(ctx context.Context) error { // want Bump:`gets, updates`
	cm := &api.ConfigMap{}
	if err := r.Get(ctx, client.ObjectKey{Name: "counter"}, cm); err != nil {
		return err
	}
	cm.Data["n"] += "1"
	return r.Update(ctx, cm)
}

// MarkAll updates each pod of a slice it is handed.
func MarkAll(ctx context.Context, c client.Client, pods []api.Pod) error { // want MarkAll:`updates, updates items of params \[2\]`
	for i := range pods {
		pod := &pods[i]
		pod.Labels["marked"] = "true"
		if err := c.Update(ctx, pod); err != nil {
			return err
		}
	}
	return nil
}

// MarkList updates each item of a list it is handed.
func MarkList(ctx context.Context, c client.Client, list *api.PodList) error { // want MarkList:`updates, updates items of params \[2\]`
	for _, pod := range list.Items {
		pod.Labels["marked"] = "true"
		if err := c.Update(ctx, &pod); err != nil {
			return err
		}
	}
	return nil
}

// ListPods returns the items of the list it filled from the cache.
func ListPods(ctx context.Context, c client.Client) ([]api.Pod, error) { // want ListPods:`returns listed \[0\]`
	var pods api.PodList
	if err := c.List(ctx, &pods); err != nil {
		return nil, err
	}
	return pods.Items, nil
}
