package controller

import (
	"context"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	"github.com/ssagen/ssagen/internal/testenv"
)

// Report is what a run of the example cost.
type Report struct {
	// Requests the operator sent, by verb and status code, during the
	// steady-state resyncs and the pod start.
	Resync, PodStart map[string]int
	// Reconciles of the Sandbox while its pod started.
	SandboxReconciles int64
	// Kubelet status writes during the pod start.
	KubeletWrites int
	// Requests the operator sent when the project dropped a namespace,
	// and when the project was deleted.
	Drop, Delete map[string]int
	// Leaked counts the project's children left after its deletion.
	Leaked int
}

// Run starts the example operator against cfg, creates a Project with
// three namespaces and a Sandbox, forces resyncs, walks the sandbox pod
// through its phases as a kubelet would, and reports the cost.
func Run(ctx context.Context, cfg *rest.Config, resyncs int, log io.Writer) (*Report, error) {
	scheme := runtime.NewScheme()
	clientgoscheme.AddToScheme(scheme)
	platformv1alpha1.AddToScheme(scheme)
	counted, counter := testenv.Count(cfg)
	if err := ensure.RegisterMetrics(metrics.Registry); err != nil {
		return nil, err
	}
	mgr, err := ctrl.NewManager(counted, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		return nil, err
	}
	c := NewClient(mgr.GetClient())
	projects := &ProjectReconciler{Client: c}
	sandboxes := &SandboxReconciler{Client: c}
	if err := projects.SetupWithManager(mgr); err != nil {
		return nil, err
	}
	if err := sandboxes.SetupWithManager(mgr); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go mgr.Start(ctx)

	direct, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	p := &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: "demo"}, Spec: platformv1alpha1.ProjectSpec{
		Namespaces: []string{"team-a", "team-b", "team-c"},
		Members:    []platformv1alpha1.ProjectMember{{Name: "alice", Kind: "User"}},
	}}
	for _, ns := range p.Spec.Namespaces {
		if err := direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return nil, err
		}
	}
	if err := direct.Create(ctx, p); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, func() bool {
		var cur platformv1alpha1.Project
		return direct.Get(ctx, client.ObjectKeyFromObject(p), &cur) == nil && cur.Status.Phase == platformv1alpha1.ProjectReady
	}); err != nil {
		return nil, fmt.Errorf("project never became ready: %w", err)
	}
	settle(ctx)

	// Steady state: resyncs of an unchanged project.
	before := counter.Snapshot()
	for i := 0; i < resyncs; i++ {
		if _, err := projects.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(p)}); err != nil {
			return nil, err
		}
	}
	rep := &Report{Resync: counter.Since(before)}
	fmt.Fprintf(log, "%d resyncs of a project with 3 namespaces (11 children): %s\n", resyncs, testenv.String(rep.Resync))

	// Seed 002: a sandbox pod walked through its phases by a "kubelet".
	s := &platformv1alpha1.Sandbox{ObjectMeta: metav1.ObjectMeta{Name: "box", Namespace: "team-a"},
		Spec: platformv1alpha1.SandboxSpec{PodTemplate: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}}}
	if err := direct.Create(ctx, s); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, func() bool {
		var pod corev1.Pod
		return direct.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: "box"}, &pod) == nil
	}); err != nil {
		return nil, err
	}
	settle(ctx)
	before = counter.Snapshot()
	startReconciles := sandboxes.Reconciles.Load()
	for _, st := range kubeletWalk() {
		if err := testenv.ApplyStatus(ctx, direct, corev1ac.Pod("box", "team-a").WithStatus(st), "kubelet"); err != nil {
			return nil, err
		}
		rep.KubeletWrites++
		time.Sleep(50 * time.Millisecond)
	}
	if err := waitFor(ctx, func() bool {
		var cur platformv1alpha1.Sandbox
		return direct.Get(ctx, client.ObjectKeyFromObject(s), &cur) == nil && cur.Status.Phase == "Running"
	}); err != nil {
		return nil, fmt.Errorf("sandbox never saw its pod running: %w", err)
	}
	settle(ctx)
	rep.PodStart = counter.Since(before)
	rep.SandboxReconciles = sandboxes.Reconciles.Load() - startReconciles
	fmt.Fprintf(log, "pod start, %d kubelet status writes: %d sandbox reconciles, operator sent %s\n", rep.KubeletWrites, rep.SandboxReconciles, testenv.String(rep.PodStart))

	// The project drops a namespace: its Role, RoleBinding and
	// ServiceAccount there are pruned.
	before = counter.Snapshot()
	var cur platformv1alpha1.Project
	if err := direct.Get(ctx, client.ObjectKeyFromObject(p), &cur); err != nil {
		return nil, err
	}
	cur.Spec.Namespaces = cur.Spec.Namespaces[:2]
	if err := direct.Update(ctx, &cur); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, func() bool { return children(ctx, direct, cur.UID) == 8 }); err != nil {
		return nil, fmt.Errorf("the dropped namespace's children were never pruned (%d children): %w", children(ctx, direct, cur.UID), err)
	}
	settle(ctx)
	rep.Drop = counter.Since(before)
	fmt.Fprintf(log, "the project drops a namespace (3 children): operator sent %s\n", testenv.String(rep.Drop))

	// The project is deleted: its 8 children go, then its finalizer.
	before = counter.Snapshot()
	if err := direct.Delete(ctx, &cur); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, func() bool {
		return apierrors.IsNotFound(direct.Get(ctx, client.ObjectKeyFromObject(p), &platformv1alpha1.Project{}))
	}); err != nil {
		return nil, fmt.Errorf("the project was never deleted: %w", err)
	}
	settle(ctx)
	rep.Delete = counter.Since(before)
	rep.Leaked = children(ctx, direct, cur.UID)
	fmt.Fprintf(log, "the project is deleted (8 children): operator sent %s; %d children left\n", testenv.String(rep.Delete), rep.Leaked)
	return rep, nil
}

// children counts the objects owner controls among a Project's child
// kinds, read from the API server.
func children(ctx context.Context, c client.Client, owner types.UID) int {
	n := 0
	for _, list := range projectChildren() {
		if err := c.List(ctx, list); err != nil {
			return -1
		}
		items, _ := meta.ExtractList(list)
		for _, item := range items {
			if ref := metav1.GetControllerOf(item.(client.Object)); ref != nil && ref.UID == owner {
				n++
			}
		}
	}
	return n
}

// kubeletWalk is the status sequence of a pod start, seven writes.
func kubeletWalk() []*corev1ac.PodStatusApplyConfiguration {
	cond := func(t corev1.PodConditionType, s corev1.ConditionStatus) *corev1ac.PodConditionApplyConfiguration {
		return corev1ac.PodCondition().WithType(t).WithStatus(s)
	}
	return []*corev1ac.PodStatusApplyConfiguration{
		corev1ac.PodStatus().WithPhase(corev1.PodPending).WithConditions(cond(corev1.PodScheduled, corev1.ConditionTrue)),
		corev1ac.PodStatus().WithPhase(corev1.PodPending).WithConditions(cond(corev1.PodScheduled, corev1.ConditionTrue), cond(corev1.PodInitialized, corev1.ConditionTrue)),
		corev1ac.PodStatus().WithPhase(corev1.PodPending).WithConditions(cond(corev1.PodScheduled, corev1.ConditionTrue), cond(corev1.PodInitialized, corev1.ConditionTrue)).WithHostIP("10.0.0.1"),
		corev1ac.PodStatus().WithPhase(corev1.PodPending).WithConditions(cond(corev1.PodScheduled, corev1.ConditionTrue), cond(corev1.PodInitialized, corev1.ConditionTrue)).WithHostIP("10.0.0.1").WithPodIP("10.1.0.5"),
		corev1ac.PodStatus().WithPhase(corev1.PodRunning).WithConditions(cond(corev1.PodScheduled, corev1.ConditionTrue), cond(corev1.PodInitialized, corev1.ConditionTrue)).WithHostIP("10.0.0.1").WithPodIP("10.1.0.5"),
		corev1ac.PodStatus().WithPhase(corev1.PodRunning).WithConditions(cond(corev1.PodScheduled, corev1.ConditionTrue), cond(corev1.PodInitialized, corev1.ConditionTrue), cond(corev1.ContainersReady, corev1.ConditionTrue)).WithHostIP("10.0.0.1").WithPodIP("10.1.0.5"),
		corev1ac.PodStatus().WithPhase(corev1.PodRunning).WithConditions(cond(corev1.PodScheduled, corev1.ConditionTrue), cond(corev1.PodInitialized, corev1.ConditionTrue), cond(corev1.ContainersReady, corev1.ConditionTrue), cond(corev1.PodReady, corev1.ConditionTrue)).WithHostIP("10.0.0.1").WithPodIP("10.1.0.5"),
	}
}

func waitFor(ctx context.Context, cond func() bool) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("timed out")
}

// settle lets queued events drain.
func settle(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(500 * time.Millisecond):
	}
}
