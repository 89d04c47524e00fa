package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	coreensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
	rbacensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"
)

// ProjectsResult is one pattern on the "projects" scenario (seed 000).
type ProjectsResult struct {
	Pattern string
	// P projects, K unchanged resyncs, Workers reconciling in parallel.
	P, K, Workers int
	// Initial is the first resync, creating 5 children per project;
	// Resync the K unchanged resyncs together; Change one resync after
	// one change per project (a member added: 2 children change).
	Initial, Resync, Change Measure
	// CrossCheck is "" when the API server counted what the controller did.
	CrossCheck string
}

// projectChildren is a project's desired RBAC: a Role, RoleBinding and
// ServiceAccount in each of its namespaces, a ClusterRole and
// ClusterRoleBinding.
func projectChildren(p *platformv1alpha1.Project) []Child {
	var subjects []*rbacv1ac.SubjectApplyConfiguration
	for _, m := range p.Spec.Members {
		subjects = append(subjects, rbacv1ac.Subject().WithKind(m.Kind).WithName(m.Name).WithAPIGroup("rbac.authorization.k8s.io"))
	}
	var out []Child
	for _, ns := range p.Spec.Namespaces {
		out = append(out,
			NewChild(rbacv1ac.Role(p.Name+"-member", ns).
				WithLabels(map[string]string{"project": p.Name}).
				WithRules(rbacv1ac.PolicyRule().WithAPIGroups("").WithResources("pods", "services").WithVerbs("get", "list", "watch")),
				func() *rbacv1.Role { return &rbacv1.Role{} }, rbacensure.EnsureRole),
			NewChild(rbacv1ac.RoleBinding(p.Name+"-member", ns).
				WithLabels(map[string]string{"project": p.Name}).
				WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup("rbac.authorization.k8s.io").WithKind("Role").WithName(p.Name+"-member")).
				WithSubjects(subjects...),
				func() *rbacv1.RoleBinding { return &rbacv1.RoleBinding{} }, rbacensure.EnsureRoleBinding),
			NewChild(corev1ac.ServiceAccount(p.Name, ns).WithLabels(map[string]string{"project": p.Name}),
				func() *corev1.ServiceAccount { return &corev1.ServiceAccount{} }, coreensure.EnsureServiceAccount))
	}
	return append(out,
		NewChild(rbacv1ac.ClusterRole(p.Name+"-admin").
			WithLabels(map[string]string{"project": p.Name}).
			WithRules(rbacv1ac.PolicyRule().WithAPIGroups("platform.ssagen.dev").WithResources("projects").WithResourceNames(p.Name).WithVerbs("get", "update")),
			func() *rbacv1.ClusterRole { return &rbacv1.ClusterRole{} }, rbacensure.EnsureClusterRole),
		NewChild(rbacv1ac.ClusterRoleBinding(p.Name+"-admin").
			WithLabels(map[string]string{"project": p.Name}).
			WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup("rbac.authorization.k8s.io").WithKind("ClusterRole").WithName(p.Name+"-admin")).
			WithSubjects(subjects...),
			func() *rbacv1.ClusterRoleBinding { return &rbacv1.ClusterRoleBinding{} }, rbacensure.EnsureClusterRoleBinding),
	)
}

// RunProjects runs pattern p on P projects: one resync creating the
// children, K resyncs with nothing changed, one change per project and a
// resync, with workers reconciling in parallel as a controller's
// MaxConcurrentReconciles does.
func RunProjects(ctx context.Context, p Pattern, projects, resyncs, workers int, opts ...Option) (*ProjectsResult, error) {
	r, err := newRun(p, opts, "roles", "rolebindings", "serviceaccounts", "clusterroles", "clusterrolebindings")
	if err != nil {
		return nil, err
	}
	defer r.stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	w, err := r.projectsWriter(ctx)
	if err != nil {
		return nil, err
	}

	// Setup, not measured: namespaces and projects.
	names := make([]string, projects)
	for i := range names {
		names[i] = fmt.Sprintf("p%04d", i)
		ns := "project-" + names[i]
		if err := r.direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return nil, err
		}
		if err := r.direct.Create(ctx, &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: names[i]}, Spec: platformv1alpha1.ProjectSpec{
			Namespaces: []string{ns}, Members: []platformv1alpha1.ProjectMember{{Name: "alice", Kind: "User"}},
		}}); err != nil {
			return nil, err
		}
	}
	if err := waitProjects(ctx, w.Client, names, 1); err != nil {
		return nil, err
	}

	res := &ProjectsResult{Pattern: p.Name, P: projects, K: resyncs, Workers: workers}
	resync := func(m *Measure) {
		reconcileAll(names, workers, m, func(n string) error { return reconcileProject(ctx, w, n) })
	}
	measure := func(times int) (Measure, error) {
		ph, err := r.begin(ctx)
		if err != nil {
			return Measure{}, err
		}
		var m Measure
		for i := 0; i < times; i++ {
			resync(&m)
			// Let the informers catch up, as between a controller's resyncs.
			if err := quiet(ctx, r.counter, r.events, 300*time.Millisecond); err != nil {
				return Measure{}, err
			}
		}
		out, err := ph.end(ctx)
		out.Reconciles, out.Errors, out.Durations = m.Reconciles, m.Errors, m.Durations
		return out, err
	}

	if res.Initial, err = measure(1); err != nil {
		return nil, err
	}
	if res.Resync, err = measure(resyncs); err != nil {
		return nil, err
	}
	// One change per project: a member joins.
	for _, n := range names {
		var pr platformv1alpha1.Project
		if err := r.direct.Get(ctx, client.ObjectKey{Name: n}, &pr); err != nil {
			return nil, err
		}
		pr.Spec.Members = append(pr.Spec.Members, platformv1alpha1.ProjectMember{Name: "bob", Kind: "User"})
		if err := r.direct.Update(ctx, &pr); err != nil {
			return nil, err
		}
	}
	if err := waitProjects(ctx, w.Client, names, 2); err != nil {
		return nil, err
	}
	if res.Change, err = measure(1); err != nil {
		return nil, err
	}
	res.CrossCheck = r.crossCheck(sum(res.Initial, res.Resync, res.Change))
	return res, nil
}

// projectsWriter starts the informers of the "projects" scenario — the
// five child kinds, their events counted, and Projects — and returns the
// writer reading from them.
func (r *run) projectsWriter(ctx context.Context) (*Writer, error) {
	informers, err := ctrlcache.New(r.counted, ctrlcache.Options{Scheme: r.scheme})
	if err != nil {
		return nil, err
	}
	for _, obj := range []client.Object{&rbacv1.Role{}, &rbacv1.RoleBinding{}, &corev1.ServiceAccount{}, &rbacv1.ClusterRole{}, &rbacv1.ClusterRoleBinding{}} {
		inf, err := informers.GetInformer(ctx, obj)
		if err != nil {
			return nil, err
		}
		if _, err := inf.AddEventHandler(r.events.Handler()); err != nil {
			return nil, err
		}
	}
	if _, err := informers.GetInformer(ctx, &platformv1alpha1.Project{}); err != nil {
		return nil, err
	}
	go informers.Start(ctx)
	if !informers.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("informers never synced")
	}
	return r.newWriter(informers)
}

// reconcileAll reconciles every name once, workers at a time, as a
// controller's MaxConcurrentReconciles does, and adds the reconciles,
// their errors and durations to m.
func reconcileAll(names []string, workers int, m *Measure, reconcile func(string) error) {
	var mu sync.Mutex
	work := make(chan string)
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range work {
				start := time.Now()
				err := reconcile(name)
				d := time.Since(start)
				mu.Lock()
				m.Reconciles++
				m.Durations = append(m.Durations, d)
				if err != nil {
					m.Errors++
				}
				mu.Unlock()
			}
		}()
	}
	for _, n := range names {
		work <- n
	}
	close(work)
	wg.Wait()
}

// waitProjects waits until the cache holds every project with members.
func waitProjects(ctx context.Context, c client.Client, names []string, members int) error {
	return waitFor(ctx, time.Minute, "the project cache", func() bool {
		for _, n := range names {
			var p platformv1alpha1.Project
			if c.Get(ctx, client.ObjectKey{Name: n}, &p) != nil || len(p.Spec.Members) != members {
				return false
			}
		}
		return true
	})
}

// reconcileProject is the controller's reconcile of one project: read it
// from the cache and write its five children with the pattern.
func reconcileProject(ctx context.Context, w *Writer, name string) error {
	var p platformv1alpha1.Project
	if err := w.Client.Get(ctx, client.ObjectKey{Name: name}, &p); err != nil {
		return err
	}
	var first error
	for _, ch := range projectChildren(&p) {
		// A controller returns at its first error and retries later;
		// going on keeps every pattern's request count comparable.
		if err := w.write(ctx, &p, ch); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (w *Writer) write(ctx context.Context, owner client.Object, ch Child) error {
	return w.pattern.write(ctx, w, owner, ch)
}

// sum adds measures up (for the cross-check).
func sum(ms ...Measure) Measure {
	out := Measure{Requests: Requests{}, Server: Requests{}}
	for _, m := range ms {
		for k, v := range m.Requests {
			out.Requests[k] += v
		}
		for k, v := range m.Server {
			out.Server[k] += v
		}
	}
	return out
}
