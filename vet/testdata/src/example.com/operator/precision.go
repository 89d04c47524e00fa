package operator

import (
	"context"
	"errors"

	"example.com/api"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// The shapes of the precision sample (docs/vet.md): Creates that run only
// when a cached read found nothing, AlreadyExists handled rather than
// ignored, one finding per write site, predicates held in variables, and
// event filters on the whole builder.

// A switch on the Get's error: silent.
func (r *Reconciler) switchNotFound(ctx context.Context) error {
	sa := &api.ServiceAccount{}
	err := r.Get(ctx, client.ObjectKey{Name: "sa"}, sa)
	switch {
	case apierrors.IsNotFound(err):
		sa = &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "sa"}}
		if err := r.Create(ctx, sa); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	case err != nil:
		return err
	}
	return nil
}

// A lookup in cached state left nil: silent.
func (r *Reconciler) createWhenNil(ctx context.Context, found *api.ServiceAccount) error {
	if found == nil {
		if err := r.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "sa"}}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// poolerResources holds the objects a reconcile read from the cache, nil
// where there was none (CloudNativePG's pooler reconciler).
type poolerResources struct {
	Account *api.ServiceAccount
}

// A field holding an object that was read, compared with nil: silent.
func (r *Reconciler) createWhenFieldNil(ctx context.Context, resources *poolerResources) error {
	if resources.Account == nil {
		if err := r.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "pooler"}}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// A helper called only from the NotFound branch of its caller: silent.
func (r *Reconciler) createRole(ctx context.Context) error {
	if err := r.Create(ctx, &api.Role{ObjectMeta: api.ObjectMeta{Name: "r"}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

func (r *Reconciler) reconcileRole(ctx context.Context) error {
	var role api.Role
	if err := r.Get(ctx, client.ObjectKey{Name: "r"}, &role); apierrors.IsNotFound(err) {
		return r.createRole(ctx)
	}
	return nil
}

var errNextLoop = errors.New("next loop")

// AlreadyExists handled — a requeue because the cache may be stale: silent.
func (r *Reconciler) createOrRequeue(ctx context.Context) error {
	if err := r.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "job"}}); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return errNextLoop
		}
		return err
	}
	return nil
}

// client.IgnoreAlreadyExists of the error in the if's condition: reported.
func (r *Reconciler) ignoreInCondition(ctx context.Context) error {
	if err := r.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "x"}}); client.IgnoreAlreadyExists(err) != nil { // want `Create that ignores AlreadyExists`
		return err
	}
	return nil
}

// A status Update inside RetryOnConflict around Get + Update: one finding,
// the retry's.
func (r *Reconciler) retryStatus(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error { // want `RetryOnConflict around Get \+ Update`
		cm := &api.ConfigMap{}
		if err := r.Get(ctx, client.ObjectKey{Name: "x"}, cm); err != nil {
			return err
		}
		return r.Status().Update(ctx, cm)
	})
}

// A label-selector predicate held in a variable passes every status
// write of a matching pod: reported.
func setupLabelSelector(b *builder.Builder) error {
	labelPred, err := predicate.LabelSelectorPredicate(predicate.LabelSelector{})
	if err != nil {
		return err
	}
	b.For(&api.Role{}).
		Owns(&api.Pod{}, builder.WithPredicates(labelPred)) // want `Owns\(&Pod\{\}\) with predicates that pass every status write`
	return nil
}

// An event filter on the whole builder drops the status churn: silent.
func setupEventFilter(b *builder.Builder) {
	b.For(&api.Role{}).
		WithEventFilter(predicate.GenerationChangedPredicate{}).
		Owns(&api.Pod{})
}

// The AlreadyExists path reads the existing object and updates it: that
// is Create → AlreadyExists → Update, whichever variable it updates.
func (r *Reconciler) createThenUpdateExisting(ctx context.Context) error {
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "copy"}}
	if err := r.Create(ctx, cm); err != nil { // want `Create → AlreadyExists → Update`
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		existing := &api.ConfigMap{}
		if err := r.Get(ctx, client.ObjectKey{Name: "copy"}, existing); err != nil {
			return err
		}
		existing.Data = cm.Data
		return r.Update(ctx, existing)
	}
	return nil
}

// The AlreadyExists path records a condition and carries on: ignored, a
// 409 on every reconcile — reported.
func (r *Reconciler) createAndNote(ctx context.Context, notes map[string]string) error {
	if err := r.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "n"}}); err != nil { // want `Create that ignores AlreadyExists`
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		notes["n"] = "already there"
	}
	return nil
}

// The Get's error: anything but NotFound returns first, so the Create in
// the rest of the error branch runs only when the object is missing.
func (r *Reconciler) createAfterIgnoreNotFound(ctx context.Context) error {
	var sa api.ServiceAccount
	if err := r.Get(ctx, client.ObjectKey{Name: "w"}, &sa); err != nil {
		if client.IgnoreNotFound(err) != nil {
			return err
		}
		if err := r.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "w"}}); client.IgnoreAlreadyExists(err) != nil {
			return err
		}
	}
	return nil
}

// The same with !IsNotFound, the Create in a helper.
func (r *Reconciler) ensureSA(ctx context.Context) error {
	var sa api.ServiceAccount
	if err := r.Get(ctx, client.ObjectKey{Name: "v"}, &sa); err != nil {
		if !apierrors.IsNotFound(err) {
			return err
		}
		return r.createSA(ctx)
	}
	return nil
}

func (r *Reconciler) createSA(ctx context.Context) error {
	if err := r.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "v"}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// spark-operator's driver PDB: the Get's outcomes leave in an if-else-if
// chain (found: return; another error: return); the Create after it runs
// only when the object is missing.
func (r *Reconciler) ensurePDB(ctx context.Context) error {
	existing := &api.ServiceAccount{}
	if err := r.Get(ctx, client.ObjectKey{Name: "pdb"}, existing); err == nil {
		return nil
	} else if !apierrors.IsNotFound(err) {
		return err
	}
	if err := r.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "pdb"}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// velero's EnsureRepo: an empty cached List answers with a sentinel
// error, which a predicate named for absence recognises; the helper that
// Creates runs only in its branch.
var errRepoNotFound = errors.New("repository not found")

func (r *Reconciler) getRepo(ctx context.Context) (*api.ServiceAccount, error) {
	var list api.PodList
	if err := r.List(ctx, &list); err != nil {
		return nil, err
	}
	if len(list.Items) == 0 {
		return nil, errRepoNotFound
	}
	return &api.ServiceAccount{}, nil
}

func isRepoNotFoundError(err error) bool { return err == errRepoNotFound }

func (r *Reconciler) ensureRepo(ctx context.Context) error {
	_, err := r.getRepo(ctx)
	if err == nil {
		return nil
	} else if isRepoNotFoundError(err) {
		return r.createRepo(ctx)
	}
	return err
}

func (r *Reconciler) createRepo(ctx context.Context) error {
	if err := r.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "repo"}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// A chain one branch of which goes on (found: relabel) lets the Create
// run when the object exists.
func (r *Reconciler) ensurePDBRelabel(ctx context.Context) error {
	existing := &api.ServiceAccount{}
	if err := r.Get(ctx, client.ObjectKey{Name: "pdb2"}, existing); err == nil {
		existing.Labels = map[string]string{"a": "b"}
	} else if !apierrors.IsNotFound(err) {
		return err
	}
	if err := r.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "pdb2"}}); err != nil && !apierrors.IsAlreadyExists(err) { // want `Create that ignores AlreadyExists`
		return err
	}
	return nil
}

// A field of the object read compared with nil (not being deleted) says
// nothing of absence: the helper it guards is reported.
func (r *Reconciler) reconcileBindings(ctx context.Context, owner *api.Role) error {
	if owner.Rules == nil {
		return r.grantBinding(ctx)
	}
	return nil
}

func (r *Reconciler) grantBinding(ctx context.Context) error {
	role := &api.Role{ObjectMeta: api.ObjectMeta{Name: "binding"}}
	if err := r.Create(ctx, role); err != nil { // want `Create → AlreadyExists → Update`
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		return r.Update(ctx, role)
	}
	return nil
}

// controller-runtime's root package re-exports CreateOrUpdate as a
// variable (ctrl.CreateOrUpdate): the same finding (held-out sample,
// docs/vet.md).
func (r *Reconciler) ctrlAlias(ctx context.Context) error {
	role := &api.Role{}
	_, err := ctrl.CreateOrUpdate(ctx, r.Client, role, func() error { return nil }) // want `CreateOrUpdate reads the cached object`
	return err
}

// A map of what a cached List found, by name; objects are created only
// for names missing from it (LeaderWorkerSet's scalers): the helper's
// create-and-ignore runs only when the List did not find the object.
func (r *Reconciler) createMissingScalers(ctx context.Context, wanted []string) error {
	list := &api.PodList{}
	if err := r.List(ctx, list); err != nil {
		return err
	}
	existing := map[string]*api.Pod{}
	for i := range list.Items {
		existing[list.Items[i].Name] = &list.Items[i]
	}
	for _, name := range wanted {
		if _, ok := existing[name]; ok {
			continue
		}
		if err := r.createScaler(ctx, name); err != nil {
			return err
		}
	}
	for _, name := range wanted {
		if _, ok := existing[name]; !ok {
			if err := r.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: name}}); err != nil && !apierrors.IsAlreadyExists(err) {
				return err
			}
		}
	}
	return nil
}

func (r *Reconciler) createScaler(ctx context.Context, name string) error {
	if err := r.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: name}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// Reported: the map is not what a List found.
func (r *Reconciler) createNotInMap(ctx context.Context, known map[string]bool, wanted []string) error {
	for _, name := range wanted {
		if _, ok := known[name]; ok {
			continue
		}
		if err := r.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: name}}); err != nil && !apierrors.IsAlreadyExists(err) { // want `Create that ignores AlreadyExists`
			return err
		}
	}
	return nil
}

// A live read in a loop guards each Create: an object found (err == nil)
// or a read that failed otherwise skips the iteration, so the Create runs
// only when the read found nothing (issue 55). continue and break leave
// as return does.
func (r *Reconciler) createEachMissing(ctx context.Context, wanted []string) error {
	for _, name := range wanted {
		var sa api.ServiceAccount
		if err := r.Get(ctx, client.ObjectKey{Name: name}, &sa); err == nil {
			continue
		} else if !apierrors.IsNotFound(err) {
			continue
		}
		if err := r.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: name}}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// The same guarded by the NotFound check alone, leaving with break.
func (r *Reconciler) createFirstMissing(ctx context.Context, wanted []string) error {
	for _, name := range wanted {
		err := r.Get(ctx, client.ObjectKey{Name: name}, &api.ServiceAccount{})
		if !apierrors.IsNotFound(err) {
			break
		}
		if err := r.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: name}}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// Found objects skip the iteration: the Create runs only when the read
// failed.
func (r *Reconciler) createUnlessFound(ctx context.Context, wanted []string) error {
	for _, name := range wanted {
		if err := r.Get(ctx, client.ObjectKey{Name: name}, &api.ServiceAccount{}); err == nil {
			continue
		}
		if err := r.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: name}}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// Reported: err == nil of a Create, not of a read.
func (r *Reconciler) createAfterCreate(ctx context.Context, wanted []string) error {
	for _, name := range wanted {
		if err := r.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: name}}); err == nil {
			continue
		}
		if err := r.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: name}}); err != nil && !apierrors.IsAlreadyExists(err) { // want `Create that ignores AlreadyExists`
			return err
		}
	}
	return nil
}

// Predicates kept in package-level variables with one initialiser are
// judged by it (issue 55): one that filters the new object alone passes
// every status write, one that compares generations drops them.
var (
	childPredicate  = predicate.NewPredicateFuncs(func(o client.Object) bool { return o != nil })
	specPredicate   = predicate.GenerationChangedPredicate{}
	changedLater    = predicate.NewPredicateFuncs(func(client.Object) bool { return true })
	changedLaterSet = func() bool {
		changedLater = predicate.NewPredicateFuncs(func(client.Object) bool { return false })
		return true
	}()
)

func setupPackagePredicates(b *builder.Builder) {
	b.For(&api.Role{}).
		Owns(&api.Pod{}, builder.WithPredicates(childPredicate)). // want `Owns\(&Pod\{\}\) with predicates that pass every status write`
		Owns(&api.Deployment{}, builder.WithPredicates(specPredicate)).
		Owns(&api.Pod{}, builder.WithPredicates(changedLater)) // assigned twice: not judged
}

// A wrapper that takes a typed client before the object: the finding
// names the object's kind's helper, not one after the client's type
// (issue 55's EnsureInterface).
type typedClient interface {
	Create(ctx context.Context, obj *api.ConfigMap) error
}

func createConfigMap(ctx context.Context, cs typedClient, cm *api.ConfigMap) error {
	return cs.Create(ctx, cm)
}

func (r *Reconciler) viaTypedWrapper(ctx context.Context, cs typedClient) error {
	if err := createConfigMap(ctx, cs, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "typed"}}); err != nil && !apierrors.IsAlreadyExists(err) { // want `Create that ignores AlreadyExists.*fix: EnsureConfigMap \(`
		return err
	}
	return nil
}
