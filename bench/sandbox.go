package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	ac "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1"
	apiensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1/ensure"
	coreensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
)

var errNotSynced = errors.New("informers never synced")

// SandboxResult is one pattern on the "sandbox" scenario (seed 002).
type SandboxResult struct {
	Pattern string
	// N sandboxes started together, Workers reconciling.
	N, Workers int
	// KubeletWrites is the number of pod status writes per pod start.
	KubeletWrites int
	// Start covers the pod starts: from the first kubelet write until
	// the controller is quiet again.
	Start Measure
	// Running is, per sandbox, the time from its pod's Running status
	// write to the sandbox's Ready condition.
	Running    []time.Duration
	CrossCheck string
}

// RealChanges is the number of pod changes per start the controller has
// to react to: the phase going from Pending to Running.
const RealChanges = 1

const sandboxNamespace = "sandboxes"

func sandboxPod(s *platformv1alpha1.Sandbox) Child {
	return NewChild(corev1ac.Pod(s.Name, s.Namespace).WithLabels(map[string]string{"sandbox": s.Name}).
		WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("main").WithImage("busybox:1.36"))),
		func() *corev1.Pod { return &corev1.Pod{} }, coreensure.EnsurePod)
}

func sandboxStatus(s *platformv1alpha1.Sandbox, cond metav1.Condition) StatusChange {
	return newStatusChange(cond,
		func(o client.Object) *[]metav1.Condition { return &o.(*platformv1alpha1.Sandbox).Status.Conditions },
		func(c *metav1ac.ConditionApplyConfiguration) *ac.SandboxApplyConfiguration {
			return ac.Sandbox(s.Name, s.Namespace).WithStatus(ac.SandboxStatus().WithConditions(c))
		}, apiensure.EnsureSandboxStatus)
}

// reconcileSandbox writes the sandbox pod and mirrors its phase into the
// sandbox's Ready condition.
func reconcileSandbox(r *measured, ctx context.Context, req ctrl.Request) error {
	var s platformv1alpha1.Sandbox
	if err := r.w.Client.Get(ctx, req.NamespacedName, &s); err != nil {
		return client.IgnoreNotFound(err)
	}
	if err := r.w.write(ctx, &s, sandboxPod(&s)); err != nil {
		return err
	}
	var pod corev1.Pod
	if err := r.w.Client.Get(ctx, req.NamespacedName, &pod); err != nil {
		return client.IgnoreNotFound(err) // the pod's create event comes
	}
	running := pod.Status.Phase == corev1.PodRunning
	if err := r.w.pattern.status(ctx, r.w, &s, sandboxStatus(&s, readyCondition(running, s.Generation, "Pod"+phaseOr(pod.Status.Phase)))); err != nil {
		return err
	}
	if running {
		r.ready.mark(s.Name)
	}
	return nil
}

func phaseOr(p corev1.PodPhase) string {
	if p == "" {
		return "Unknown"
	}
	return string(p)
}

func phaseChanged(before, after client.Object) bool {
	b, ok1 := before.(*corev1.Pod)
	a, ok2 := after.(*corev1.Pod)
	return ok1 && ok2 && b.Status.Phase != a.Status.Phase
}

// kubelet simulates a pod start: seven status writes, 20 ms apart, the
// phase going Pending → Running at the fifth.
type kubelet struct {
	c       client.Client
	mu      sync.Mutex
	started map[string]bool
	running stamps
	writes  int
}

func (k *kubelet) handle(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.started[pod.Name] {
		return
	}
	k.started[pod.Name] = true
	go k.walk(pod.Name, pod.Namespace)
}

func (k *kubelet) walk(name, ns string) {
	ctx := context.Background()
	for _, st := range KubeletWalk() {
		time.Sleep(20 * time.Millisecond)
		at := time.Now()
		if st.Phase != nil && *st.Phase == corev1.PodRunning {
			k.running.markAt(name, at)
		}
		if err := k.c.Status().Apply(ctx, corev1ac.Pod(name, ns).WithStatus(st), client.FieldOwner("kubelet"), client.ForceOwnership); err != nil {
			return
		}
		k.mu.Lock()
		k.writes++
		k.mu.Unlock()
	}
}

// KubeletWalk is the status sequence of a pod start, seven writes.
func KubeletWalk() []*corev1ac.PodStatusApplyConfiguration {
	cond := func(t corev1.PodConditionType) *corev1ac.PodConditionApplyConfiguration {
		return corev1ac.PodCondition().WithType(t).WithStatus(corev1.ConditionTrue)
	}
	pending := func(conds ...corev1.PodConditionType) *corev1ac.PodStatusApplyConfiguration {
		st := corev1ac.PodStatus().WithPhase(corev1.PodPending)
		for _, c := range conds {
			st.WithConditions(cond(c))
		}
		return st
	}
	return []*corev1ac.PodStatusApplyConfiguration{
		pending(corev1.PodScheduled),
		pending(corev1.PodScheduled, corev1.PodInitialized),
		pending(corev1.PodScheduled, corev1.PodInitialized).WithHostIP("10.0.0.1"),
		pending(corev1.PodScheduled, corev1.PodInitialized).WithHostIP("10.0.0.1").WithPodIP("10.1.0.5"),
		pending(corev1.PodScheduled, corev1.PodInitialized).WithHostIP("10.0.0.1").WithPodIP("10.1.0.5").WithPhase(corev1.PodRunning),
		pending(corev1.PodScheduled, corev1.PodInitialized, corev1.ContainersReady).WithHostIP("10.0.0.1").WithPodIP("10.1.0.5").WithPhase(corev1.PodRunning),
		pending(corev1.PodScheduled, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady).WithHostIP("10.0.0.1").WithPodIP("10.1.0.5").WithPhase(corev1.PodRunning),
	}
}

// RunSandbox runs pattern p on the "sandbox" scenario: n Sandboxes, each
// owning a pod that a simulated kubelet walks through a start, reconciled
// by a manager with workers; the sandbox mirrors its pod's phase.
func RunSandbox(ctx context.Context, p Pattern, n, workers int) (*SandboxResult, error) {
	r, err := newRun(p, nil, "pods", "sandboxes/status")
	if err != nil {
		return nil, err
	}
	defer r.stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	mgr, w, err := r.newManager(ctx, &corev1.Pod{}, &platformv1alpha1.Sandbox{})
	if err != nil {
		return nil, err
	}
	rec := &measured{w: w, reconcile: reconcileSandbox}
	b := ctrl.NewControllerManagedBy(mgr).Named("sandbox").
		For(&platformv1alpha1.Sandbox{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers})
	if p.Ensure {
		b = b.Owns(&corev1.Pod{}, builder.WithPredicates(orPredicate{coreensure.OwnedPodChanges(w.Ensure), phaseChanged}))
	} else {
		b = b.Owns(&corev1.Pod{})
	}
	if err := b.Complete(rec); err != nil {
		return nil, err
	}
	go mgr.Start(ctx)

	kl := &kubelet{c: r.direct, started: map[string]bool{}}
	// The kubelet starts a pod once the controller has settled after
	// creating it, so the measured window holds the pod start alone.
	var gate sync.WaitGroup
	gate.Add(1)
	if err := r.simulate(ctx, mgr, &corev1.Pod{}, func(obj any) { go func() { gate.Wait(); kl.handle(obj) }() }); err != nil {
		return nil, err
	}
	if err := r.direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: sandboxNamespace}}); err != nil {
		return nil, err
	}
	boxes := names("box-", n)
	for _, name := range boxes {
		if err := r.direct.Create(ctx, &platformv1alpha1.Sandbox{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: sandboxNamespace},
			Spec: platformv1alpha1.SandboxSpec{PodTemplate: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox:1.36"}}}}}}); err != nil {
			return nil, err
		}
	}
	if err := waitFor(ctx, time.Minute, "the sandbox pods", func() bool {
		var pods corev1.PodList
		return r.direct.List(ctx, &pods, client.InNamespace(sandboxNamespace)) == nil && len(pods.Items) == n
	}); err != nil {
		return nil, err
	}
	if err := quiet(ctx, r.counter, r.events, 500*time.Millisecond); err != nil {
		return nil, err
	}

	ph, err := r.begin(ctx)
	if err != nil {
		return nil, err
	}
	startReconciles, startErrors := rec.stats.reconciles.Load(), rec.stats.errors.Load()
	gate.Done()
	if err := waitStamps(ctx, &rec.ready, boxes, "every sandbox to see its pod Running"); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, time.Minute, "the kubelet's writes", func() bool {
		kl.mu.Lock()
		defer kl.mu.Unlock()
		return kl.writes == n*len(KubeletWalk())
	}); err != nil {
		return nil, err
	}
	if err := quiet(ctx, r.counter, r.events, 500*time.Millisecond); err != nil {
		return nil, err
	}
	res := &SandboxResult{Pattern: p.Name, N: n, Workers: workers, KubeletWrites: len(KubeletWalk())}
	if res.Start, err = ph.end(ctx); err != nil {
		return nil, err
	}
	res.Start.Reconciles = int(rec.stats.reconciles.Load() - startReconciles)
	res.Start.Errors = int(rec.stats.errors.Load() - startErrors)
	res.Start.External = n * len(KubeletWalk())
	for _, name := range boxes {
		running, ok := kl.running.get(name)
		ready, ok2 := rec.ready.get(name)
		if !ok || !ok2 {
			return nil, fmt.Errorf("sandbox %s: no Running stamp", name)
		}
		res.Running = append(res.Running, ready.Sub(running))
	}
	res.Start.Durations = res.Running
	res.CrossCheck = r.crossCheck(res.Start)
	return res, nil
}

// handlerFunc calls f with the object of every add and update.
func handlerFunc(f func(obj any)) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) { f(obj) }, UpdateFunc: func(_, obj any) { f(obj) }}
}
