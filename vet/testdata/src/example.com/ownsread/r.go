// Package ownsread: the owns-churning fix lists what the reconciler
// reads of the owned kind.
package ownsread

import (
	"context"
	"fmt"

	"example.com/api"
	"example.com/podutil"
	_ "github.com/ssagen/ssagen/ensure"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

type SandboxReconciler struct{ client.Client }

func (r *SandboxReconciler) Reconcile(ctx context.Context, key client.ObjectKey) error {
	pod := &api.Pod{}
	if err := r.Get(ctx, key, pod); err != nil {
		return err
	}
	if owned(pod) && ready(pod) {
		fmt.Println("pod", pod.Name, "is", pod.Status.Phase)
	}
	_ = key // blank, labels and keys have no type
outer:
	for range 2 {
		break outer
	}
	return nil
}

// ready reads the conditions' types and statuses, item by item, and the
// host, a pointer read whole.
func ready(pod *api.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == "Ready" {
			return c.Status == "True" && pod.Status.Host != nil
		}
	}
	return false
}

// owned reads through the object interface: its getters, and what
// metav1.GetControllerOf reads.
func owned(obj labeled) bool {
	return metav1.GetControllerOf(obj) != nil && obj.GetLabels()["app"] != ""
}

type labeled interface {
	client.Object
	GetLabels() map[string]string
}

// Unreached from Reconcile: what it reads is not listed.
func (r *SandboxReconciler) unused(pod *api.Pod) bool { return pod.Status.Phase == "" }

func (r *SandboxReconciler) SetupWithManager(b *builder.Builder) {
	b.For(&api.Role{}).
		Owns(&api.Pod{}) // want `Owns\(&Pod\{\}\) without a predicate`
}

// The fix joins the predicates the Owns() has.
type LabeledReconciler struct{ client.Client }

func (r *LabeledReconciler) Reconcile(ctx context.Context, key client.ObjectKey) error {
	var pods api.PodList
	if err := r.List(ctx, &pods); err != nil {
		return err
	}
	for _, p := range pods.Items {
		fmt.Println(p.ObjectMeta.Labels)
		for _, c := range p.Status.Conditions {
			fmt.Println(c.Reason)
		}
		fmt.Println(len(p.Status.Conditions)) // the conditions read whole, too
	}
	return nil
}

func (r *LabeledReconciler) SetupWithManager(b *builder.Builder) {
	labeled := predicate.NewPredicateFuncs(func(o client.Object) bool { return true })
	b.For(&api.Role{}).
		Owns(&api.Pod{}, builder.WithPredicates(labeled)) // want `Owns\(&Pod\{\}\) with predicates that pass every status write`
}

// Listed through another package of the module: podutil's facts say
// what its functions read of the pod, of its status handed by value and
// of its metadata; a merge patch's base is read for no decision.
type ElsewhereReconciler struct{ client.Client }

func (r *ElsewhereReconciler) Reconcile(ctx context.Context, key client.ObjectKey) error {
	pod := &api.Pod{}
	if err := r.Get(ctx, key, pod); err != nil {
		return err
	}
	if podutil.Ready(pod) || podutil.Hosted(pod.Status) || podutil.Labelled(&pod.ObjectMeta) {
		return nil
	}
	base := pod.DeepCopy()
	return r.Patch(ctx, pod, client.MergeFrom(base))
}

func (r *ElsewhereReconciler) SetupWithManager(b *builder.Builder) {
	b.For(&api.Role{}).Owns(&api.Pod{}) // want `Owns\(&Pod\{\}\) without a predicate`
}

// Followed where it is held: a variable of an interface type, and the
// answer of meta.Accessor, read by their getters.
type HeldReconciler struct{ client.Client }

func (r *HeldReconciler) Reconcile(ctx context.Context, key client.ObjectKey) error {
	var obj client.Object
	obj = &api.Pod{}
	if err := r.Get(ctx, key, obj); err != nil {
		return err
	}
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	fmt.Println(accessor.GetLabels()["app"])
	return nil
}

func (r *HeldReconciler) SetupWithManager(b *builder.Builder) {
	b.For(&api.Role{}).Owns(&api.Pod{}) // want `Owns\(&Pod\{\}\) without a predicate`
}

// Declined: a function of another package keeps the pod where vet cannot
// see what is read of it.
type OpaqueReconciler struct{ client.Client }

func (r *OpaqueReconciler) Reconcile(ctx context.Context, key client.ObjectKey) error {
	pod := &api.Pod{}
	if err := r.Get(ctx, key, pod); err != nil {
		return err
	}
	podutil.Keep(pod)
	return nil
}

func (r *OpaqueReconciler) SetupWithManager(b *builder.Builder) {
	b.For(&api.Role{}).Owns(&api.Pod{}) // want `Owns\(&Pod\{\}\) without a predicate.*no automatic fix: a Pod is held as an interface \(podutil.go:\d+:\d+\): vet cannot list what is read of it`
}

// Declined: the reconciler reads the resourceVersion.
type VersionReconciler struct{ client.Client }

func (r *VersionReconciler) Reconcile(ctx context.Context, key client.ObjectKey) error {
	pod := &api.Pod{}
	if err := r.Get(ctx, key, pod); err != nil {
		return err
	}
	fmt.Println(pod.ResourceVersion)
	return nil
}

func (r *VersionReconciler) SetupWithManager(b *builder.Builder) {
	b.For(&api.Role{}).Owns(&api.Pod{}) // want `no automatic fix: the reconciler reads the ResourceVersion of a Pod`
}

// On multicluster-runtime: the builder's Owns() and a reconciler of
// mcreconcile.Request, reading through the request cluster's client.
type FleetReconciler struct {
	Manager mcmanager.Manager
}

func (r *FleetReconciler) Reconcile(ctx context.Context, req mcreconcile.Request) error {
	cl, err := r.Manager.GetCluster(ctx, req.ClusterName)
	if err != nil {
		return err
	}
	pod := &api.Pod{}
	if err := cl.GetClient().Get(ctx, req.ObjectKey, pod); err != nil {
		return err
	}
	fmt.Println(pod.Status.Phase)
	return nil
}

func (r *FleetReconciler) SetupWithManager(b *mcbuilder.Builder) {
	b.For(&api.Role{}).Owns(&api.Pod{}) // want `Owns\(&Pod\{\}\) without a predicate`
}
