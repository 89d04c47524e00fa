package bench

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
)

// projectFinalizer holds a project until its children are deleted.
const projectFinalizer = "platform.ssagen.dev/children"

// Removal is a way of deleting the children a project no longer wants.
type Removal struct {
	Name, Title string
	// reconcile runs before the children are written; done: the project
	// is being deleted and the reconcile is over.
	finalize func(ctx context.Context, w *Writer, api client.Client, p *platformv1alpha1.Project) (done bool, err error)
	// prune runs after the children are written.
	prune func(ctx context.Context, w *Writer, api client.Client, p *platformv1alpha1.Project) error
}

// Removals are the removal methods compared, in report order.
var Removals = []Removal{
	{Name: "list-and-delete", Title: "the loop operators write by hand: List each child kind by the project's label from the API server, Delete what is not desired; a finalizer added and removed with controllerutil and Update",
		finalize: finalizeByHand, prune: pruneByHand},
	{Name: "ensure", Title: "ssagen: ensure.Prune of each namespaced kind (from the cache) and ensure.Finalize",
		finalize: finalizeEnsure, prune: pruneEnsure},
}

// namespacedLists are the kinds a dropped namespace takes children from;
// childLists all of a project's child kinds.
func namespacedLists() []client.ObjectList {
	return []client.ObjectList{&rbacv1.RoleList{}, &rbacv1.RoleBindingList{}, &corev1.ServiceAccountList{}}
}

func childLists() []client.ObjectList {
	return append(namespacedLists(), &rbacv1.ClusterRoleList{}, &rbacv1.ClusterRoleBindingList{})
}

func finalizeEnsure(ctx context.Context, w *Writer, _ client.Client, p *platformv1alpha1.Project) (bool, error) {
	return ensure.Finalize(ctx, w.Ensure, p, projectFinalizer, childLists())
}

func pruneEnsure(ctx context.Context, w *Writer, _ client.Client, p *platformv1alpha1.Project) error {
	var keep []client.ObjectKey
	for _, ns := range p.Spec.Namespaces {
		keep = append(keep, client.ObjectKey{Namespace: ns, Name: p.Name + "-member"}, client.ObjectKey{Namespace: ns, Name: p.Name})
	}
	for _, list := range namespacedLists() {
		if _, err := ensure.Prune(ctx, w.Ensure, p, list, keep); err != nil {
			return err
		}
	}
	return nil
}

func finalizeByHand(ctx context.Context, w *Writer, api client.Client, p *platformv1alpha1.Project) (bool, error) {
	if p.DeletionTimestamp.IsZero() {
		if controllerutil.AddFinalizer(p, projectFinalizer) {
			return false, w.Client.Update(ctx, p)
		}
		return false, nil
	}
	if !controllerutil.ContainsFinalizer(p, projectFinalizer) {
		return true, nil
	}
	if err := deleteByLabel(ctx, api, p, childLists(), func(client.Object) bool { return true }); err != nil {
		return true, err
	}
	controllerutil.RemoveFinalizer(p, projectFinalizer)
	return true, w.Client.Update(ctx, p)
}

func pruneByHand(ctx context.Context, _ *Writer, api client.Client, p *platformv1alpha1.Project) error {
	return deleteByLabel(ctx, api, p, namespacedLists(), func(obj client.Object) bool {
		return !slices.Contains(p.Spec.Namespaces, obj.GetNamespace())
	})
}

// deleteByLabel lists each kind by the project's label and deletes the
// objects unwanted says so of.
func deleteByLabel(ctx context.Context, api client.Client, p *platformv1alpha1.Project, lists []client.ObjectList, unwanted func(client.Object) bool) error {
	for _, list := range lists {
		if err := api.List(ctx, list, client.MatchingLabels{"project": p.Name}); err != nil {
			return err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return err
		}
		for _, item := range items {
			obj := item.(client.Object)
			if unwanted(obj) {
				if err := api.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
					return err
				}
			}
		}
	}
	return nil
}

// RemovalResult is one removal method on the "projects" scenario.
type RemovalResult struct {
	Method string
	// P projects of two namespaces each (8 children), Workers in parallel.
	P, Workers int
	// Steady is one resync with nothing to remove; Drop one after every
	// project dropped a namespace (3 children each to delete); Delete the
	// resync after every project was deleted (its 5 other children).
	Steady, Drop, Delete Measure
	// Leaked counts the children left once the projects are gone.
	Leaked int
	// CrossCheck is "" when the API server counted what the controller did.
	CrossCheck string
}

// RunRemoval runs method on P projects: the children are written with
// EnsureX (skip cache on) in every case; only the removal differs.
func RunRemoval(ctx context.Context, method Removal, projects, workers int) (*RemovalResult, error) {
	ensurePattern, _ := PatternByName("ensure")
	r, err := newRun(ensurePattern, nil, "roles", "rolebindings", "serviceaccounts", "clusterroles", "clusterrolebindings", "projects")
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
	// The hand-written loop's reader: the API server, counted.
	api, err := client.New(r.counted, client.Options{Scheme: r.scheme})
	if err != nil {
		return nil, err
	}
	reconcile := func(name string) error {
		var p platformv1alpha1.Project
		if err := w.Client.Get(ctx, client.ObjectKey{Name: name}, &p); err != nil {
			return client.IgnoreNotFound(err)
		}
		if done, err := method.finalize(ctx, w, api, &p); err != nil || done {
			return err
		}
		var first error
		for _, ch := range projectChildren(&p) {
			if err := w.write(ctx, &p, ch); err != nil && first == nil {
				first = err
			}
		}
		if first != nil {
			return first
		}
		return method.prune(ctx, w, api, &p)
	}

	// Setup, not measured: namespaces, projects, their children.
	names := make([]string, projects)
	for i := range names {
		names[i] = fmt.Sprintf("p%04d", i)
		nss := []string{"project-" + names[i] + "-a", "project-" + names[i] + "-b"}
		for _, ns := range nss {
			if err := r.direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
				return nil, err
			}
		}
		if err := r.direct.Create(ctx, &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: names[i]}, Spec: platformv1alpha1.ProjectSpec{
			Namespaces: nss, Members: []platformv1alpha1.ProjectMember{{Name: "alice", Kind: "User"}},
		}}); err != nil {
			return nil, err
		}
	}
	if err := waitProjects(ctx, w.Client, names, 1); err != nil {
		return nil, err
	}
	res := &RemovalResult{Method: method.Name, P: projects, Workers: workers}
	measure := func() (Measure, error) {
		ph, err := r.begin(ctx)
		if err != nil {
			return Measure{}, err
		}
		var m Measure
		reconcileAll(names, workers, &m, reconcile)
		if err := quiet(ctx, r.counter, r.events, 300*time.Millisecond); err != nil {
			return Measure{}, err
		}
		out, err := ph.end(ctx)
		out.Reconciles, out.Errors, out.Durations = m.Reconciles, m.Errors, m.Durations
		return out, err
	}
	var setup Measure
	reconcileAll(names, workers, &setup, reconcile)
	if setup.Errors > 0 {
		return nil, fmt.Errorf("%d reconciles failed while creating the children", setup.Errors)
	}
	if err := waitCache(ctx, w.Client, names, func(p *platformv1alpha1.Project) bool { return len(p.Finalizers) == 1 }); err != nil {
		return nil, err
	}
	if err := quiet(ctx, r.counter, r.events, 300*time.Millisecond); err != nil {
		return nil, err
	}

	if res.Steady, err = measure(); err != nil {
		return nil, err
	}
	// Every project drops its second namespace.
	for _, n := range names {
		var p platformv1alpha1.Project
		if err := r.direct.Get(ctx, client.ObjectKey{Name: n}, &p); err != nil {
			return nil, err
		}
		p.Spec.Namespaces = p.Spec.Namespaces[:1]
		if err := r.direct.Update(ctx, &p); err != nil {
			return nil, err
		}
	}
	if err := waitCache(ctx, w.Client, names, func(p *platformv1alpha1.Project) bool { return len(p.Spec.Namespaces) == 1 }); err != nil {
		return nil, err
	}
	if res.Drop, err = measure(); err != nil {
		return nil, err
	}
	// Every project is deleted; its finalizer holds it for the controller.
	for _, n := range names {
		if err := r.direct.Delete(ctx, &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: n}}); err != nil {
			return nil, err
		}
	}
	if err := waitCache(ctx, w.Client, names, func(p *platformv1alpha1.Project) bool { return p.DeletionTimestamp != nil }); err != nil {
		return nil, err
	}
	if res.Delete, err = measure(); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, time.Minute, "the projects to go", func() bool {
		var list platformv1alpha1.ProjectList
		return r.direct.List(ctx, &list) == nil && len(list.Items) == 0
	}); err != nil {
		return nil, err
	}
	for _, list := range childLists() {
		if err := r.direct.List(ctx, list, client.HasLabels{"project"}); err != nil {
			return nil, err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return nil, err
		}
		res.Leaked += len(items)
	}
	res.CrossCheck = r.crossCheck(sum(res.Steady, res.Drop, res.Delete))
	return res, nil
}

// waitCache waits until the cache shows every project as ok says.
func waitCache(ctx context.Context, c client.Client, names []string, ok func(*platformv1alpha1.Project) bool) error {
	return waitFor(ctx, time.Minute, "the project cache", func() bool {
		for _, n := range names {
			var p platformv1alpha1.Project
			if c.Get(ctx, client.ObjectKey{Name: n}, &p) != nil || !ok(&p) {
				return false
			}
		}
		return true
	})
}
