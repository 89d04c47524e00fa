package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ssagen/ssagen/ensure"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/event"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// newManager starts a controller-runtime manager on the counted config,
// with the informers of watched counted as events.
func (r *run) newManager(ctx context.Context, watched ...client.Object) (ctrl.Manager, *Writer, error) {
	skip := true
	mgr, err := ctrl.NewManager(r.counted, ctrl.Options{
		Scheme:                 r.scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: &skip},
	})
	if err != nil {
		return nil, nil, err
	}
	for _, obj := range watched {
		inf, err := mgr.GetCache().GetInformer(ctx, obj)
		if err != nil {
			return nil, nil, err
		}
		if _, err := inf.AddEventHandler(r.events.Handler()); err != nil {
			return nil, nil, err
		}
	}
	w := newWriter(mgr.GetClient(), r.scheme, r.pattern)
	return mgr, w, nil
}

// simulate runs handle on every add and update of obj's kind seen by an
// uncounted informer (the simulated kubelet or kube-controller-manager),
// and waits for it and the manager's cache to sync.
func (r *run) simulate(ctx context.Context, mgr ctrl.Manager, obj client.Object, handle func(any)) error {
	informers, err := ctrlcache.New(r.env.Config, ctrlcache.Options{Scheme: r.scheme})
	if err != nil {
		return err
	}
	inf, err := informers.GetInformer(ctx, obj)
	if err != nil {
		return err
	}
	if _, err := inf.AddEventHandler(handlerFunc(handle)); err != nil {
		return err
	}
	go informers.Start(ctx)
	if !informers.WaitForCacheSync(ctx) || !mgr.GetCache().WaitForCacheSync(ctx) {
		return errNotSynced
	}
	return nil
}

// measured is a reconciler that counts its reconciles and stamps the
// objects it made Ready.
type measured struct {
	w         *Writer
	stats     reconcileStats
	ready     stamps
	reconcile func(r *measured, ctx context.Context, req ctrl.Request) error
}

// Reconcile runs the scenario's reconcile and records it.
func (r *measured) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	start := time.Now()
	err := r.reconcile(r, ctx, req)
	r.stats.record(start, err)
	return ctrl.Result{}, err
}

// newStatusChange builds a parent's StatusChange from its conditions, its
// status apply configuration and the generated EnsureXStatus helper.
func newStatusChange[A runtime.ApplyConfiguration, O client.Object](cond metav1.Condition, conditions func(client.Object) *[]metav1.Condition,
	build func(*metav1ac.ConditionApplyConfiguration) A, helper func(context.Context, client.Client, A, ...ensure.ApplyOption) (O, ensure.Result, error)) StatusChange {
	return StatusChange{
		Condition:  cond,
		Conditions: conditions,
		Apply:      func(c *metav1ac.ConditionApplyConfiguration) runtime.ApplyConfiguration { return build(c) },
		Ensure: func(ctx context.Context, cl client.Client, c *metav1ac.ConditionApplyConfiguration, opts ...ensure.ApplyOption) error {
			_, _, err := helper(ctx, cl, build(c), opts...)
			return err
		},
	}
}

// reconcileStats counts a controller's reconciles, their errors (each a
// rate-limited requeue) and their durations.
type reconcileStats struct {
	reconciles, errors atomic.Int64
	mu                 sync.Mutex
	durations          []time.Duration
}

func (s *reconcileStats) record(start time.Time, err error) {
	s.reconciles.Add(1)
	if err != nil {
		s.errors.Add(1)
	}
	d := time.Since(start)
	s.mu.Lock()
	s.durations = append(s.durations, d)
	s.mu.Unlock()
}

// stamps records, per object name, the first time something happened.
type stamps struct{ m sync.Map }

func (s *stamps) mark(name string)                { s.m.LoadOrStore(name, time.Now()) }
func (s *stamps) markAt(name string, t time.Time) { s.m.LoadOrStore(name, t) }
func (s *stamps) get(name string) (time.Time, bool) {
	v, ok := s.m.Load(name)
	if !ok {
		return time.Time{}, false
	}
	return v.(time.Time), true
}

// waitStamps waits until every name has a stamp.
func waitStamps(ctx context.Context, s *stamps, names []string, what string) error {
	return waitFor(ctx, 5*time.Minute, what, func() bool {
		for _, n := range names {
			if _, ok := s.get(n); !ok {
				return false
			}
		}
		return true
	})
}

// orPredicate passes an update event when either predicate does; the
// ensure patterns combine the generated Owned<Kind>Changes with the
// status change the controller reacts to.
type orPredicate struct {
	owned  predicate.Funcs
	status func(before, after client.Object) bool
}

func (p orPredicate) Create(event.CreateEvent) bool   { return true }
func (p orPredicate) Delete(event.DeleteEvent) bool   { return true }
func (p orPredicate) Generic(event.GenericEvent) bool { return true }
func (p orPredicate) Update(e event.UpdateEvent) bool {
	return p.status(e.ObjectOld, e.ObjectNew) || p.owned.Update(e)
}

func readyCondition(ok bool, generation int64, reason string) metav1.Condition {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	return metav1.Condition{Type: "Ready", Status: status, Reason: reason, ObservedGeneration: generation}
}

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%03d", prefix, i)
	}
	return out
}
