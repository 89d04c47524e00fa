package bench

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	discoveryv1ac "k8s.io/client-go/applyconfigurations/discovery/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	ac "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1"
	apiensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1/ensure"
	appsensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/apps/v1/ensure"
	coreensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
	discoveryensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/discovery/v1/ensure"
)

// ProxyResult is one pattern on the "proxy" scenario (seed 001).
type ProxyResult struct {
	Pattern string
	// N proxies created one after another, Workers reconciling.
	N, Workers int
	// Measure covers the N proxies from creation until quiet.
	Measure Measure
	// ToReady is, per proxy, the time from its creation to its Ready
	// condition being written; Reaction the time from its Deployment
	// becoming available (the last status write of the simulated
	// deployment controller) to Ready.
	ToReady, Reaction []time.Duration
	// Baseline is the Reaction of single proxies created alone, one at a
	// time, whose Deployment turns available in one status write.
	Baseline   []time.Duration
	CrossCheck string
}

const proxyNamespace = "proxies"

// proxyChildren is a proxy's desired Deployment, Service and EndpointSlice.
func proxyChildren(p *platformv1alpha1.Proxy) []Child {
	labels := map[string]string{"app.kubernetes.io/name": "proxy", "proxy": p.Name}
	return []Child{
		NewChild(appsv1ac.Deployment(p.Name, p.Namespace).WithLabels(labels).
			WithSpec(appsv1ac.DeploymentSpec().WithReplicas(1).
				WithSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"proxy": p.Name})).
				WithTemplate(corev1ac.PodTemplateSpec().WithLabels(labels).
					WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("envoy").WithImage("envoyproxy/envoy:v1.31.0").
						WithPorts(corev1ac.ContainerPort().WithName("http").WithContainerPort(8080).WithProtocol(corev1.ProtocolTCP)))))),
			func() *appsv1.Deployment { return &appsv1.Deployment{} }, appsensure.EnsureDeployment),
		NewChild(corev1ac.Service(p.Name, p.Namespace).WithLabels(labels).
			WithSpec(corev1ac.ServiceSpec().WithSelector(map[string]string{"proxy": p.Name}).
				WithPorts(corev1ac.ServicePort().WithName("http").WithPort(80).WithTargetPort(intstr.FromString("http")).WithProtocol(corev1.ProtocolTCP))),
			func() *corev1.Service { return &corev1.Service{} }, coreensure.EnsureService),
		NewChild(discoveryv1ac.EndpointSlice(p.Name+"-external", p.Namespace).
			WithLabels(map[string]string{"kubernetes.io/service-name": p.Name, "endpointslice.kubernetes.io/managed-by": "bench-controller"}).
			WithAddressType(discoveryv1.AddressTypeIPv4).
			WithEndpoints(discoveryv1ac.Endpoint().WithAddresses("192.0.2.10")).
			WithPorts(discoveryv1ac.EndpointPort().WithName("http").WithPort(8080).WithProtocol(corev1.ProtocolTCP)),
			func() *discoveryv1.EndpointSlice { return &discoveryv1.EndpointSlice{} }, discoveryensure.EnsureEndpointSlice),
	}
}

func proxyStatus(p *platformv1alpha1.Proxy, cond metav1.Condition) StatusChange {
	return newStatusChange(cond,
		func(o client.Object) *[]metav1.Condition { return &o.(*platformv1alpha1.Proxy).Status.Conditions },
		func(c *metav1ac.ConditionApplyConfiguration) *ac.ProxyApplyConfiguration {
			return ac.Proxy(p.Name, p.Namespace).WithStatus(ac.ProxyStatus().WithConditions(c))
		}, apiensure.EnsureProxyStatus)
}

// reconcileProxy writes the three children, and Ready once the
// Deployment reports an available replica; at its first error it
// returns, and the controller requeues with backoff.
func reconcileProxy(r *measured, ctx context.Context, req ctrl.Request) error {
	var p platformv1alpha1.Proxy
	if err := r.w.Client.Get(ctx, req.NamespacedName, &p); err != nil {
		return client.IgnoreNotFound(err)
	}
	for _, ch := range proxyChildren(&p) {
		if err := r.w.write(ctx, &p, ch); err != nil {
			return err
		}
	}
	var d appsv1.Deployment
	available := r.w.Client.Get(ctx, req.NamespacedName, &d) == nil && deploymentAvailable(&d)
	reason := "DeploymentProgressing"
	if available {
		reason = "Available"
	}
	if err := r.w.pattern.status(ctx, r.w, &p, proxyStatus(&p, readyCondition(available, p.Generation, reason))); err != nil {
		return err
	}
	if available {
		r.ready.mark(p.Name)
	}
	return nil
}

func deploymentAvailable(d *appsv1.Deployment) bool {
	return d.Status.ObservedGeneration == d.Generation && d.Status.AvailableReplicas >= 1
}

func availabilityChanged(before, after client.Object) bool {
	b, ok1 := before.(*appsv1.Deployment)
	a, ok2 := after.(*appsv1.Deployment)
	return ok1 && ok2 && deploymentAvailable(b) != deploymentAvailable(a)
}

// deploymentController simulates kube-controller-manager: when a
// Deployment's generation is not yet observed it writes its status in
// steps (replicas, updated, available) as the rollout progresses.
type deploymentController struct {
	c         client.Client
	steps     sync.Map // proxy name → number of status writes
	available stamps
	mu        sync.Mutex
	walking   map[string]int64
	writes    atomic.Int64
}

func (d *deploymentController) handle(obj any) {
	dep, ok := obj.(*appsv1.Deployment)
	if !ok || dep.Status.ObservedGeneration == dep.Generation {
		return
	}
	d.mu.Lock()
	if d.walking[dep.Name] == dep.Generation {
		d.mu.Unlock()
		return
	}
	d.walking[dep.Name] = dep.Generation
	d.mu.Unlock()
	steps := 3
	if v, ok := d.steps.Load(dep.Name); ok {
		steps = v.(int)
	}
	go d.walk(dep.Name, dep.Namespace, dep.Generation, steps)
}

func (d *deploymentController) walk(name, ns string, gen int64, steps int) {
	ctx := context.Background()
	all := []*appsv1ac.DeploymentStatusApplyConfiguration{
		appsv1ac.DeploymentStatus().WithObservedGeneration(gen).WithReplicas(1).WithUnavailableReplicas(1),
		appsv1ac.DeploymentStatus().WithObservedGeneration(gen).WithReplicas(1).WithUpdatedReplicas(1).WithUnavailableReplicas(1),
		appsv1ac.DeploymentStatus().WithObservedGeneration(gen).WithReplicas(1).WithUpdatedReplicas(1).WithReadyReplicas(1).WithAvailableReplicas(1),
	}
	for i, st := range all[len(all)-steps:] {
		time.Sleep(20 * time.Millisecond)
		if i == steps-1 {
			d.available.mark(name) // the moment the Deployment turns available
		}
		if err := d.c.Status().Apply(ctx, appsv1ac.Deployment(name, ns).WithStatus(st), client.FieldOwner("kube-controller-manager"), client.ForceOwnership); err != nil {
			return
		}
		d.writes.Add(1)
	}
}

// RunProxy runs pattern p on the "proxy" scenario: a manager with workers
// reconciling Proxies that own a Deployment, a Service and an
// EndpointSlice through Owns(); first single proxies alone (the
// uncontended baseline), then n proxies one after another while the
// simulated deployment controller walks each Deployment's status in
// three writes.
func RunProxy(ctx context.Context, p Pattern, n, workers int) (*ProxyResult, error) {
	r, err := newRun(p, nil, "deployments", "services", "endpointslices", "proxies/status")
	if err != nil {
		return nil, err
	}
	defer r.stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	mgr, w, err := r.newManager(ctx, &appsv1.Deployment{}, &corev1.Service{}, &discoveryv1.EndpointSlice{}, &platformv1alpha1.Proxy{})
	if err != nil {
		return nil, err
	}
	rec := &measured{w: w, reconcile: reconcileProxy}
	b := ctrl.NewControllerManagedBy(mgr).Named("proxy").
		For(&platformv1alpha1.Proxy{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers})
	if p.Ensure {
		b = b.Owns(&appsv1.Deployment{}, builder.WithPredicates(orPredicate{appsensure.OwnedDeploymentChanges(w.Ensure), availabilityChanged})).
			Owns(&corev1.Service{}, builder.WithPredicates(coreensure.OwnedServiceChanges(w.Ensure))).
			Owns(&discoveryv1.EndpointSlice{}, builder.WithPredicates(discoveryensure.OwnedEndpointSliceChanges(w.Ensure)))
	} else {
		b = b.Owns(&appsv1.Deployment{}).Owns(&corev1.Service{}).Owns(&discoveryv1.EndpointSlice{})
	}
	if err := b.Complete(rec); err != nil {
		return nil, err
	}
	go mgr.Start(ctx)

	sim := &deploymentController{c: r.direct, walking: map[string]int64{}}
	if err := r.simulate(ctx, mgr, &appsv1.Deployment{}, sim.handle); err != nil {
		return nil, err
	}
	if err := r.direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: proxyNamespace}}); err != nil {
		return nil, err
	}
	create := func(name string) error {
		return r.direct.Create(ctx, &platformv1alpha1.Proxy{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: proxyNamespace},
			Spec: platformv1alpha1.ProxySpec{Listeners: []platformv1alpha1.Listener{{Name: "http", Port: 80}}}})
	}

	res := &ProxyResult{Pattern: p.Name, N: n, Workers: workers}
	// Baseline: one proxy at a time, its Deployment available in one write.
	for _, name := range names("alone-", 5) {
		sim.steps.Store(name, 1)
		if err := create(name); err != nil {
			return nil, err
		}
		if err := waitStamps(ctx, &rec.ready, []string{name}, "a proxy alone to be Ready"); err != nil {
			return nil, err
		}
		if err := quiet(ctx, r.counter, r.events, 300*time.Millisecond); err != nil {
			return nil, err
		}
		avail, _ := sim.available.get(name)
		ready, _ := rec.ready.get(name)
		res.Baseline = append(res.Baseline, ready.Sub(avail))
	}

	ph, err := r.begin(ctx)
	if err != nil {
		return nil, err
	}
	startReconciles, startErrors, startSim := rec.stats.reconciles.Load(), rec.stats.errors.Load(), sim.writes.Load()
	// Seed 001: each proxy's own child events requeue it while the
	// Deployment's status moves; proxies one after another, so what is
	// measured is that race, not a queue of many proxies on two cores.
	burst := names("proxy-", n)
	created := map[string]time.Time{}
	for _, name := range burst {
		sim.steps.Store(name, 3)
		created[name] = time.Now()
		if err := create(name); err != nil {
			return nil, err
		}
		if err := waitStamps(ctx, &rec.ready, []string{name}, "a proxy to be Ready"); err != nil {
			return nil, err
		}
		if err := quiet(ctx, r.counter, r.events, 150*time.Millisecond); err != nil {
			return nil, err
		}
	}
	if res.Measure, err = ph.end(ctx); err != nil {
		return nil, err
	}
	res.Measure.Reconciles = int(rec.stats.reconciles.Load() - startReconciles)
	res.Measure.Errors = int(rec.stats.errors.Load() - startErrors)
	res.Measure.External = n + int(sim.writes.Load()-startSim)
	for _, name := range burst {
		ready, _ := rec.ready.get(name)
		avail, _ := sim.available.get(name)
		res.ToReady = append(res.ToReady, ready.Sub(created[name]))
		res.Reaction = append(res.Reaction, ready.Sub(avail))
	}
	res.Measure.Durations = res.ToReady
	res.CrossCheck = r.crossCheck(res.Measure)
	return res, nil
}
