package operator

import (
	"context"

	"example.com/api"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

type Reconciler struct {
	client.Client
	create func(ctx context.Context, obj client.Object) error
}

// Seed 000: Create → AlreadyExists → Update.
func (r *Reconciler) role(ctx context.Context, role *api.Role) error {
	err := r.Create(ctx, role) // want `Create → AlreadyExists → Update.*EnsureRole`
	if apierrors.IsAlreadyExists(err) {
		return r.Update(ctx, role)
	}
	return err
}

// The same through a function-typed field, in the if's init.
func (r *Reconciler) roleViaField(ctx context.Context, role *api.Role) error {
	if err := r.create(ctx, role); err != nil && apierrors.IsAlreadyExists(err) { // want `Create → AlreadyExists → Update`
		return r.Patch(ctx, role, nil)
	}
	return nil
}

// A small wrapper.
func createObject(ctx context.Context, c client.Client, obj client.Object) error {
	return c.Create(ctx, obj)
}

func (r *Reconciler) roleViaWrapper(ctx context.Context, role *api.Role) error {
	err := createObject(ctx, r.Client, role) // want `Create → AlreadyExists → Update`
	if apierrors.IsAlreadyExists(err) {
		return r.Update(ctx, role)
	}
	return err
}

// Seed 000's ServiceAccounts: Create and ignore AlreadyExists.
func (r *Reconciler) serviceAccount(ctx context.Context, sa *api.ServiceAccount) error {
	if err := r.Create(ctx, sa); err != nil && !apierrors.IsAlreadyExists(err) { // want `Create that ignores AlreadyExists.*CreateOnly`
		return err
	}
	return nil
}

func (r *Reconciler) serviceAccount2(ctx context.Context, sa *api.ServiceAccount) error {
	return client.IgnoreAlreadyExists(r.Create(ctx, sa)) // want `Create that ignores AlreadyExists`
}

// Near miss: generateName never collides.
func (r *Reconciler) job(ctx context.Context) error {
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{GenerateName: "job-"}}
	if err := r.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// Seed 001: CreateOrUpdate.
func (r *Reconciler) service(ctx context.Context) error {
	svc := &api.Service{}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, svc, func() error { return nil }) // want `CreateOrUpdate reads the cached object.*EnsureService`
	if err != nil {
		return err
	}
	_, err = controllerutil.CreateOrPatch(ctx, r.Client, svc, func() error { return nil }) // want `CreateOrPatch reads`
	return err
}

// Gardener: RetryOnConflict around Get + Update.
func (r *Reconciler) retry(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error { // want `RetryOnConflict around Get \+ Update`
		cm := &api.ConfigMap{}
		if err := r.Get(ctx, client.ObjectKey{Name: "x"}, cm); err != nil {
			return err
		}
		cm.Data = map[string]string{"a": "b"}
		return r.Update(ctx, cm)
	})
}

// Near miss: a Create that runs only when a cached Get found nothing costs
// a 409 only when it races another writer.
func (r *Reconciler) createIfMissing(ctx context.Context) error {
	sa := &api.ServiceAccount{}
	err := r.Get(ctx, client.ObjectKey{Name: "s"}, sa)
	if apierrors.IsNotFound(err) {
		sa = &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "s"}}
		if err := r.Create(ctx, sa); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		return client.IgnoreAlreadyExists(r.Create(ctx, sa))
	}
	return err
}

// Seed 002: Status().Update() of a cached object.
func (r *Reconciler) status(ctx context.Context) error {
	var pod api.Pod
	if err := r.Get(ctx, client.ObjectKey{Name: "p"}, &pod); err != nil {
		return err
	}
	pod.Status.Phase = "Running"
	return r.Status().Update(ctx, &pod) // want `Status\(\).Update\(\) of an object read from the cache.*EnsurePodStatus`
}

// A variable declared as &Pod{} and filled by a cached Get is read, not built.
func (r *Reconciler) statusFilled(ctx context.Context) error {
	pod := &api.Pod{}
	if err := r.Get(ctx, client.ObjectKey{Name: "p"}, pod); err != nil {
		return err
	}
	pod.Status.Phase = "Running"
	return r.Status().Update(ctx, pod) // want `Status\(\).Update\(\) of an object read from the cache`
}

// Seed 002: Update of a pod read from the cache, which the kubelet writes too.
func (r *Reconciler) relabelPod(ctx context.Context) error {
	pod := &api.Pod{}
	if err := r.Get(ctx, client.ObjectKey{Name: "p"}, pod); err != nil {
		return err
	}
	return r.Update(ctx, pod) // want `Update of a Pod read from the cache: another controller keeps writing it`
}

// Status().Update() of an object handed in by the reconciler.
func (r *Reconciler) updateStatus(ctx context.Context, pod *api.Pod) error {
	return r.Status().Update(ctx, pod) // want `Status\(\).Update\(\) of an object read from the cache`
}

// Near miss: a status built here is not from the cache.
func (r *Reconciler) freshStatus(ctx context.Context) error {
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p"}}
	return r.Status().Update(ctx, pod)
}

// Status().Update() of a copy of an object handed in as an interface.
func (r *Reconciler) updateJobStatus(ctx context.Context, job any) error {
	pod, ok := job.(*api.Pod)
	if !ok {
		return nil
	}
	return r.Status().Update(ctx, pod) // want `Status\(\).Update\(\) of an object read from the cache`
}

// Update of an object built from scratch.
func (r *Reconciler) overwrite(ctx context.Context) error {
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "c"}, Data: map[string]string{"k": "v"}}
	return r.Update(ctx, cm) // want `Update of an object built from scratch.*EnsureConfigMap`
}

// One finding per write site: the Update of a Create → AlreadyExists →
// Update built from scratch is the create-update finding's, not another.
func (r *Reconciler) oneSite(ctx context.Context) error {
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "c"}, Data: map[string]string{"k": "v"}}
	if err := r.Create(ctx, cm); err != nil { // want `Create → AlreadyExists → Update.*EnsureConfigMap`
		if apierrors.IsAlreadyExists(err) {
			return r.Update(ctx, cm)
		}
		return err
	}
	return nil
}

// The same with the check negated.
func (r *Reconciler) oneSiteNegated(ctx context.Context) error {
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "d"}}
	if err := r.Create(ctx, cm); err != nil && !apierrors.IsAlreadyExists(err) { // want `Create → AlreadyExists → Update`
		return err
	}
	return r.Update(ctx, cm)
}

// Near miss: Update after a Get in the same function is optimistic locking on purpose.
func (r *Reconciler) lockedUpdate(ctx context.Context) error {
	cm := &api.ConfigMap{}
	if err := r.Get(ctx, client.ObjectKey{Name: "c"}, cm); err != nil {
		return err
	}
	cm.Data = map[string]string{"k": "v"}
	return r.Update(ctx, cm)
}

// Apply of a typed struct.
func (r *Reconciler) applyTyped(ctx context.Context) error {
	d := &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "d"}}
	return r.Patch(ctx, d, client.Apply) // want `server-side apply of a typed Go struct.*EnsureDeployment`
}

// Near miss: applying unstructured content sends only what is set.
func (r *Reconciler) applyUnstructured(ctx context.Context) error {
	u := &unstructured.Unstructured{Name: "d"}
	return r.Patch(ctx, u, client.Apply)
}

// Owns on a churning kind without a predicate.
func setup(b *builder.Builder) {
	b.For(&api.Role{}).
		Owns(&api.Pod{}).                                  // want `Owns\(&Pod\{\}\) without a predicate`
		Owns(&api.Deployment{}, builder.WithPredicates()). // want `Owns\(&Deployment\{\}\) with predicates that pass every status write`
		Owns(&api.ConfigMap{})
}

// Seed 002: a predicate that filters by label lets every kubelet status
// write of a matching pod through.
func setupLabelFilter(b *builder.Builder) {
	b.For(&api.Role{}).
		Owns(&api.Pod{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return true }))) // want `Owns\(&Pod\{\}\) with predicates that pass every status write`
}

// Near misses: predicates that compare old and new, or that cannot be judged.
func setupFiltered(b *builder.Builder, custom predicate.Predicate) {
	b.For(&api.Role{}).
		Owns(&api.Pod{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&api.Deployment{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return true }), predicate.LabelChangedPredicate{})).
		Owns(&api.Pod{}, builder.WithPredicates(custom)).
		Owns(&api.Pod{}, builder.WithPredicates(predicate.Funcs{UpdateFunc: func(e predicate.UpdateEvent) bool { return e.ObjectOld != e.ObjectNew }}))
}
