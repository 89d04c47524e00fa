package fixmutate

import (
	"context"
	"fmt"

	"example.com/fixmutate/meta"
	rbacv1ensure "example.com/generated/rbac/v1/ensure"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// The helpers are among the package's dependencies.
var _ = rbacv1ensure.EnsureRole

type Reconciler struct {
	client.Client
	Scheme any
}

// CreateOrUpdate whose mutate function assigns fields and sets the
// controller reference: fixed; the literal and the assignments merge.
func (r *Reconciler) mutated(ctx context.Context, owner client.Object, ns, app string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: ns}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		role.Labels = map[string]string{"app": app}
		role.Rules = []rbacv1.PolicyRule{{APIGroups: []string{""}, Verbs: []string{"get"}}}
		return controllerutil.SetControllerReference(owner, role, r.Scheme)
	})
	return err
}

// CreateOrUpdate whose mutate function assigns a typed value (the rules
// built elsewhere), which no builder carries exactly: fixed; the object the
// mutate function leaves is converted by the generated FromRole.
func (r *Reconciler) mutatedTyped(ctx context.Context, owner client.Object, ns string, rules []rbacv1.PolicyRule) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: ns}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		role.Labels = map[string]string{"app": "t"}
		role.Rules = rules
		return controllerutil.SetControllerReference(owner, role, r.Scheme)
	})
	return err
}

// Fixed: the object is changed outside the mutate function:
// ensure.CreateOrUpdate (a CreateOrPatch whose function sets no status)
// starts from the object as built.
func (r *Reconciler) mutatedIf(ctx context.Context, owner client.Object) error {
	cr := &rbacv1.ClusterRole{}
	cr.Name = "x"
	if _, err := controllerutil.CreateOrPatch(ctx, r.Client, cr, func() error { // want `CreateOrPatch reads the cached object`
		cr.Rules = []rbacv1.PolicyRule{{Verbs: []string{"list"}}}
		return nil
	}); err != nil {
		return err
	}
	return nil
}

// Fixed: the mutate function appends to the object's own list, which on a
// fresh object is the rule alone (on the live one it grew every reconcile).
func (r *Reconciler) mutatedReads(ctx context.Context, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: ns}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		role.Rules = append(role.Rules, rbacv1.PolicyRule{Verbs: []string{"get"}})
		return nil
	})
	return err
}

// Fixed without an owner: the ClusterRole, NoOwner.
func (r *Reconciler) mutatedNoOwner(ctx context.Context, verbs []string) error {
	cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "viewer"}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cr, func() error { // want `CreateOrUpdate reads the cached object`
		cr.Rules = []rbacv1.PolicyRule{{Verbs: verbs}}
		return nil
	}); err != nil {
		return err
	}
	return nil
}

// desiredRoles holds typed desired objects built elsewhere.
type desiredRoles struct {
	role *rbacv1.Role
	name string
}

func (d desiredRoles) copyRole() *rbacv1.Role { r := *d.role; return &r }

// Fixed: the object is a copy of a typed desired object built elsewhere;
// the mutate function's assignments move before the helper, on the typed
// object, which the generated FromRole converts (exactly the fields its
// JSON sends, which the Update wrote).
func (r *Reconciler) mutatedTypedDesired(ctx context.Context, desired desiredRoles) error {
	role := desired.copyRole()
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		role.Rules = desired.role.Rules
		return nil
	})
	return err
}

// Fixed: a copy of a typed desired object, with its controller, read and
// its result logged after the write (network-services-operator's
// HTTPRouteFilter): the variable takes the live object the helper returns.
func (r *Reconciler) mutatedTypedDesiredRead(ctx context.Context, owner client.Object, desired desiredRoles) (string, error) {
	role := desired.copyRole()
	result, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		if err := controllerutil.SetControllerReference(owner, role, r.Scheme); err != nil {
			return err
		}
		role.Rules = desired.role.Rules
		return nil
	})
	if err != nil {
		return "", err
	}
	fmt.Println("processed role", "result", result)
	return role.ResourceVersion, nil
}

// The operation result only logged: fixed; the helper's Result is logged.
func (r *Reconciler) mutatedResultLogged(ctx context.Context, owner client.Object, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "l", Namespace: ns}}
	result, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		role.Rules = []rbacv1.PolicyRule{{Verbs: []string{"get"}}}
		return controllerutil.SetControllerReference(owner, role, r.Scheme)
	})
	fmt.Println("processed role", "result", result)
	return err
}

// Fixed: the operation result is used after the call as a string (the
// runtime's CreateOrUpdate returns controllerutil's OperationResult).
func (r *Reconciler) mutatedResultUsed(ctx context.Context, ns string) (bool, error) {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "u", Namespace: ns}}
	result, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		role.Rules = []rbacv1.PolicyRule{{Verbs: []string{"get"}}}
		return nil
	})
	return result == "created", err
}

// Fixed: the operation result compared with controllerutil's constants
// and switched over: the helper's Results they stand for (None: no
// change, whether an apply was sent or none was needed).
func (r *Reconciler) mutatedResultCompared(ctx context.Context, ns string) (string, error) {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: ns}}
	result, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		role.Rules = []rbacv1.PolicyRule{{Verbs: []string{"get"}}}
		return nil
	})
	if err != nil {
		return "", err
	}
	if result != controllerutil.OperationResultNone {
		fmt.Println("changed")
	}
	switch result {
	case controllerutil.OperationResultCreated:
		return "created", nil
	case controllerutil.OperationResultUpdated, controllerutil.OperationResultUpdatedStatus:
		return "updated", nil
	}
	return "", nil
}

// Fixed in two rounds: the second write assigns the result variable the
// first declared. It gets a variable of its own, which its log takes;
// then the first, whose variable is its own now, is rewritten.
func (r *Reconciler) mutatedResultShared(ctx context.Context, owner client.Object, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "first", Namespace: ns}}
	result, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		role.Rules = []rbacv1.PolicyRule{{Verbs: []string{"get"}}}
		return controllerutil.SetControllerReference(owner, role, r.Scheme)
	})
	if err != nil {
		return err
	}
	fmt.Println("role", "result", result)
	binding := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "second"}}
	result, err = controllerutil.CreateOrUpdate(ctx, r.Client, binding, func() error { // want `CreateOrUpdate reads the cached object`
		binding.Rules = []rbacv1.PolicyRule{{Verbs: []string{"list"}}}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Println("cluster role", "result", result)
	return nil
}

// Fixed: the mutate function is a local variable holding a literal.
func (r *Reconciler) mutatedNamedFunc(ctx context.Context, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "n", Namespace: ns}}
	mutate := func() error { role.Rules = nil; return nil }
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, mutate) // want `CreateOrUpdate reads the cached object`
	return err
}

// Fixed: a value literal written as &role, a label merged into the live
// object's (the map made when missing, one key set), its name and
// namespace read after the write: the typed value stays and is converted;
// the apply sends the one label, which leaves the others' alone.
func (r *Reconciler) mutatedValueLabels(ctx context.Context, ns string, rules []rbacv1.PolicyRule, log func(string, ...any)) error {
	role := rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "v", Namespace: ns}}
	result, err := controllerutil.CreateOrUpdate(ctx, r.Client, &role, func() error { // want `CreateOrUpdate reads the cached object`
		if role.Labels == nil {
			role.Labels = make(map[string]string)
		}
		role.Labels["managed"] = "true"
		role.Rules = rules
		return nil
	})
	if err != nil {
		return fmt.Errorf("writing %s/%s: %w", role.Namespace, role.Name, err)
	}
	log("applied", "name", role.Name, "result", result)
	return nil
}

// No fix: a map key set from the live object's value.
func (r *Reconciler) mutatedLabelsRead(ctx context.Context, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "lr", Namespace: ns}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `no automatic fix: the mutate function reads role.Labels of the live object`
		role.Labels["copy"] = role.Labels["source"]
		return nil
	})
	return err
}

// controlledElsewhere says the object exists and another owner controls it.
func controlledElsewhere(obj, owner client.Object) bool {
	if obj.GetName() == "" {
		return false
	}
	return controllerutil.HasControllerReference(obj) && !metav1.IsControlledBy(obj, owner)
}

// Fixed: a copy of a typed desired object whose mutate function refuses
// one another owner controls: on a fresh object the check never holds;
// an object another controller holds is handed to the mutate function as
// it is live, so the check returns the AlreadyExists the caller expects.
func (r *Reconciler) mutatedGuarded(ctx context.Context, owner client.Object, desired desiredRoles) (bool, error) {
	role := desired.copyRole()
	result, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		if controlledElsewhere(role, owner) {
			// Another owner's role: say so.
			return apierrors.NewAlreadyExists("roles", role.Name)
		}
		if err := controllerutil.SetControllerReference(owner, role, r.Scheme); err != nil {
			return err
		}
		// The rules, as desired.
		role.Rules = desired.role.Rules
		return nil
	})
	if err != nil {
		if apierrors.IsAlreadyExists(err) {
			fmt.Println("conflict", role.Name)
			return false, nil
		}
		return false, err
	}
	fmt.Println("processed role", "result", result)
	return true, nil
}

// Fixed: the same check written inline, on a literal.
func (r *Reconciler) mutatedGuardedInline(ctx context.Context, owner client.Object, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "g", Namespace: ns}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		if metav1.GetControllerOf(role) != nil && !metav1.IsControlledBy(role, owner) {
			return fmt.Errorf("%s is someone else's", role.Name)
		}
		role.Rules = []rbacv1.PolicyRule{{Verbs: []string{"get"}}}
		return controllerutil.SetControllerReference(owner, role, r.Scheme)
	})
	return err
}

// No fix: the check names another owner than the one set.
func (r *Reconciler) mutatedGuardedOther(ctx context.Context, owner, other client.Object, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "o", Namespace: ns}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `no automatic fix: the mutate function checks for another controller than the one it sets`
		if controlledElsewhere(role, other) {
			return apierrors.NewAlreadyExists("roles", role.Name)
		}
		role.Rules = []rbacv1.PolicyRule{{Verbs: []string{"get"}}}
		return controllerutil.SetControllerReference(owner, role, r.Scheme)
	})
	return err
}

// Fixed: an annotation kept in sync with the desired object's — set when
// it has one, deleted when not — on a copy of the desired object. On the
// typed object before the apply: an apply that stops sending a key it
// set removes it, and leaves one another writer set.
func (r *Reconciler) mutatedAnnotationSync(ctx context.Context, owner client.Object, desired desiredRoles) error {
	role := desired.role.DeepCopy()
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		if err := controllerutil.SetControllerReference(owner, role, r.Scheme); err != nil {
			return err
		}
		role.Rules = desired.role.Rules
		if v, ok := desired.role.Annotations["hostname"]; ok {
			if role.Annotations == nil {
				role.Annotations = map[string]string{}
			}
			role.Annotations["hostname"] = v
		} else {
			delete(role.Annotations, "hostname")
		}
		return nil
	})
	return err
}

// No fix: a branch on the live object's state (a default of its rules).
func (r *Reconciler) mutatedBranchOnLive(ctx context.Context, desired desiredRoles) error {
	role := desired.copyRole()
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `no automatic fix: the mutate function reads role.Rules of the live object`
		if len(role.Rules) == 0 {
			role.Rules = desired.role.Rules
		}
		return nil
	})
	return err
}

// Fixed: a key set on a map the object shares (a shallow copy): set
// before the apply, it would change the desired object's map too.
func (r *Reconciler) mutatedSharedMap(ctx context.Context, desired desiredRoles) error {
	role := desired.copyRole()
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		role.Annotations["hostname"] = "h"
		return nil
	})
	return err
}

// No fix: the rules kept as the live object has them once it exists (set
// only at creation), which an apply would assert from then on.
func (r *Reconciler) mutatedCarryForward(ctx context.Context, desired desiredRoles) error {
	role := desired.role.DeepCopy()
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `no automatic fix: the mutate function sets desired.role.Rules, once the object exists, to the live object's`
		if role.ResourceVersion != "" {
			desired.role.Rules = role.Rules
		}
		role.Rules = desired.role.Rules
		return nil
	})
	return err
}

// No fix: a field set only while the live object lacks it.
func (r *Reconciler) mutatedDefault(ctx context.Context, desired desiredRoles) error {
	role := desired.role.DeepCopy()
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `no automatic fix: the mutate function reads role.Rules of the live object`
		if role.Rules == nil {
			role.Rules = desired.role.Rules
		}
		return nil
	})
	return err
}

// Fixed: the result declared on its own line (var result
// controllerutil.OperationResult) and assigned by the write alone: its
// type becomes the helper's Result.
func (r *Reconciler) mutatedResultDeclared(ctx context.Context, ns string) (err error) {
	for _, name := range []string{"a", "b"} {
		role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}

		var result controllerutil.OperationResult

		result, err = controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
			role.Rules = []rbacv1.PolicyRule{{Verbs: []string{"get"}}}
			return nil
		})
		if err != nil {
			return err
		}
		if result == controllerutil.OperationResultCreated {
			fmt.Println("created", name)
		}
	}
	return nil
}

// Fixed: labels merged through the getter and setter (capsule's
// LimitRanges): the labels this code sets, and a legacy one it deletes,
// on the typed literal before the apply — which sends its labels alone,
// prunes the legacy one where it set it, and leaves other writers' labels.
func (r *Reconciler) mutatedLabelAccessors(ctx context.Context, owner client.Object, ns string, rules []rbacv1.PolicyRule) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "acc", Namespace: ns}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		labels := role.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels["managed-by"] = "me"

		// The label of an older release.
		delete(labels, "legacy")
		role.SetLabels(labels)
		role.Rules = rules
		return controllerutil.SetControllerReference(owner, role, r.Scheme)
	})
	return err
}

// Fixed: the literal is written before a retry whose function writes it
// (capsule's ResourceQuotas): found in the enclosing block.
func (r *Reconciler) mutatedInRetry(ctx context.Context, owner client.Object, namespaces []string, rules []rbacv1.PolicyRule) error {
	for _, ns := range namespaces {
		role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "quota", Namespace: ns}}
		if err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
			_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
				role.Rules = rules
				return controllerutil.SetControllerReference(owner, role, r.Scheme)
			})
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// Fixed: the CreateOrUpdate in an if's init, its object kept typed (a
// label merged): the mutate function's statements go before the if.
func (r *Reconciler) mutatedInIfInit(ctx context.Context, owner client.Object, ns string, rules []rbacv1.PolicyRule) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "init", Namespace: ns}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		if role.Labels == nil {
			role.Labels = map[string]string{}
		}
		role.Labels["app"] = "init"
		role.Rules = rules
		return controllerutil.SetControllerReference(owner, role, r.Scheme)
	}); err != nil {
		return fmt.Errorf("writing %s: %w", role.Name, err)
	}
	return nil
}

// Fixed: in an if's init, with another controller's check (the call
// stays where it is).
func (r *Reconciler) mutatedInIfInitGuarded(ctx context.Context, owner client.Object, desired desiredRoles) error {
	role := desired.copyRole()
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		if controlledElsewhere(role, owner) {
			return apierrors.NewAlreadyExists("roles", role.Name)
		}
		role.Rules = desired.role.Rules
		return controllerutil.SetControllerReference(owner, role, r.Scheme)
	}); err != nil {
		return err
	}
	return nil
}

// Fixed: the OperationResult declared before a retry, assigned inside its
// function with the function's named error (capsule's ResourceQuota): the
// statement keeps `=`, and the object read after takes the live one.
func (r *Reconciler) resultBeforeRetry(ctx context.Context, owner client.Object, ns string, rules []rbacv1.PolicyRule) (err error) {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "quota", Namespace: ns}}
	var result controllerutil.OperationResult
	err = retry.RetryOnConflict(retry.DefaultBackoff, func() (retryErr error) {
		result, retryErr = controllerutil.CreateOrUpdate(ctx, r.Client, role, func() (err error) { // want `CreateOrUpdate reads the cached object`
			role.Rules = rules
			return controllerutil.SetControllerReference(owner, role, r.Scheme)
		})
		return retryErr
	})
	if err != nil {
		return err
	}
	fmt.Println(role.Name, result)
	return nil
}

// Fixed: the second write assigns a result the first declared, and nothing
// reads it after: both blank, assigned with =, as err is already declared.
func (r *Reconciler) resultReassignedUnread(ctx context.Context, ns string, rules []rbacv1.PolicyRule) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "first", Namespace: ns}}
	result, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		role.Rules = rules
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Println(result)
	other := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "second", Namespace: ns}}
	result, err = controllerutil.CreateOrUpdate(ctx, r.Client, other, func() error { // want `CreateOrUpdate reads the cached object`
		other.Rules = rules
		return nil
	})
	return err
}

// Fixed: the object is declared outside the retry's function, read after
// it, and the result is declared in the function: := there would declare a
// second object.
func (r *Reconciler) liveShadowed(ctx context.Context, owner client.Object, desired *rbacv1.Role, rules []rbacv1.PolicyRule) error {
	role := desired.DeepCopy()
	if err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		result, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
			role.Rules = rules
			return controllerutil.SetControllerReference(owner, role, r.Scheme)
		})
		fmt.Println(result)
		return err
	}); err != nil {
		return err
	}
	fmt.Println(role.ResourceVersion)
	return nil
}

// setRule replaces the rule of r with rule's first verb, or adds it.
func setRule(r *rbacv1.Role, rule rbacv1.PolicyRule) {
	for i := range r.Rules {
		if len(r.Rules[i].Verbs) > 0 && len(rule.Verbs) > 0 && r.Rules[i].Verbs[0] == rule.Verbs[0] {
			r.Rules[i] = rule
			return
		}
	}
	r.Rules = append(r.Rules, rule)
}

// Fixed: once the object exists, a rule of the live object is carried
// into the desired object the mutate function then assigns (the listener
// hostnames of network-services-operator's Gateway): the block goes, as an
// apply leaves alone what another writer set and it does not send; the
// live object the variable takes after the write is read, and so is
// another field of the desired value.
func (r *Reconciler) carriedForward(ctx context.Context, owner client.Object, desired desiredRoles) error {
	role := desired.role.DeepCopy()
	result, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		if err := controllerutil.SetControllerReference(owner, role, r.Scheme); err != nil {
			return fmt.Errorf("setting the controller: %w", err)
		}
		// Another controller fills in the first rule's resources.
		if !role.CreationTimestamp.IsZero() {
			if first := firstRule(role.Rules); first != nil {
				setRule(desired.role, *first)
			}
		}
		role.Rules = desired.role.Rules
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Println(role.Name, len(role.Rules), result, desired.name)
	return nil
}

func firstRule(rules []rbacv1.PolicyRule) *rbacv1.PolicyRule {
	if len(rules) == 0 {
		return nil
	}
	return &rules[0]
}

// No fix: the desired object the block carries values into is read after
// the write, which would then see it without them.
func (r *Reconciler) carriedForwardRead(ctx context.Context, desired desiredRoles) error {
	role := desired.role.DeepCopy()
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `no automatic fix: the mutate function carries values forward from the live object into desired.role, which is read after the write`
		if role.ResourceVersion != "" {
			for _, rule := range role.Rules {
				setRule(desired.role, rule)
			}
		}
		role.Rules = desired.role.Rules
		return nil
	})
	fmt.Println(len(desired.role.Rules))
	return err
}

// No fix: the block does more than carry values into the desired object
// (it logs through the reconciler).
func (r *Reconciler) carriedForwardLogged(ctx context.Context, desired desiredRoles, log func(...any)) error {
	role := desired.role.DeepCopy()
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `no automatic fix: the mutate function does more than carry values forward from the live object in a block run only once it exists`
		if !role.CreationTimestamp.IsZero() {
			log("carrying", role.Name)
			for _, rule := range role.Rules {
				setRule(desired.role, rule)
			}
		}
		role.Rules = desired.role.Rules
		return nil
	})
	return err
}

// Fixed: the object handed to another package's function that merges its
// labels, which reads nothing of the live object (its summary says so).
func (r *Reconciler) mutatedAcrossPackages(ctx context.Context, owner client.Object, ns string, labels map[string]string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: ns}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		meta.SetInheritedLabels(role, labels)
		role.Rules = []rbacv1.PolicyRule{{Verbs: []string{"get"}}}
		return controllerutil.SetControllerReference(owner, role, r.Scheme)
	})
	return err
}

// No fix: another package's function keeps a value of the live object.
func (r *Reconciler) mutatedAcrossPackagesKeeps(ctx context.Context, ns string, rules []rbacv1.PolicyRule) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "k", Namespace: ns}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `no automatic fix: in meta.KeepFirstRule, the mutate function reads role.Rules of the live object`
		meta.KeepFirstRule(role, rules)
		return nil
	})
	return err
}

// mutateFor makes the mutate function of each kind the reconciler writes
// (fluent-operator's shape): a type switch over the object, one literal
// per kind.
func (r *Reconciler) mutateFor(obj client.Object, owner client.Object) func() error {
	switch o := obj.(type) {
	case *rbacv1.Role:
		return func() error {
			o.Rules = []rbacv1.PolicyRule{{Verbs: []string{"get"}}}
			return ctrl.SetControllerReference(owner, o, r.Scheme)
		}
	case *rbacv1.ClusterRole:
		return func() error {
			if len(o.Rules) > 0 {
				return nil // set once, kept as it is
			}
			o.Rules = []rbacv1.PolicyRule{{Verbs: []string{"list"}}}
			return nil
		}
	}
	return nil
}

// Fixed: the Role's clause of the function mutateFor makes sets fields
// and the controller reference.
func (r *Reconciler) mutatedByFactory(ctx context.Context, owner client.Object, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "f", Namespace: ns}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, r.mutateFor(role, owner)) // want `CreateOrUpdate reads the cached object`
	return err
}

// No fix: the ClusterRole's clause keeps the live rules.
func (r *Reconciler) mutatedByFactoryKeeps(ctx context.Context, owner client.Object) error {
	cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "f"}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, cr, r.mutateFor(cr, owner)) // want `no automatic fix: the mutate function reads o.Rules of the live object`
	return err
}

// Fixed: an annotation another writer sets (kubectl's restartedAt) read
// from the live object and written back only when present: on a fresh
// object it is absent and the block never runs; the apply leaves it to
// its owner.
func (r *Reconciler) mutatedRestores(ctx context.Context, ns string, rules []rbacv1.PolicyRule) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "restore", Namespace: ns}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		restartedAt := role.Annotations["restartedAt"]
		role.Annotations = map[string]string{"app": "x"}
		role.Rules = rules
		if restartedAt != "" {
			if role.Annotations == nil {
				role.Annotations = map[string]string{}
			}
			role.Annotations["restartedAt"] = restartedAt
		}
		return nil
	})
	return err
}

// No fix: a live value that decides what is set (a default when absent).
func (r *Reconciler) mutatedKeptDefault(ctx context.Context, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "kd", Namespace: ns}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `no automatic fix: the mutate function reads role.Annotations\["tier"\] of the live object`
		tier := role.Annotations["tier"]
		if tier == "" {
			tier = "gold"
		}
		role.Annotations = map[string]string{"tier": tier}
		return nil
	})
	return err
}

func newReader(ns string) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: ns}}
}

// Fixed: an object held as an interface, assigned a Role: only the Role's
// clause of the function mutateFor makes can run.
func (r *Reconciler) mutatedHeldAsInterface(ctx context.Context, owner client.Object, ns string) error {
	var obj client.Object
	obj = newReader(ns)
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, obj, r.mutateFor(obj, owner)) // want `CreateOrUpdate reads the cached object`
	return err
}

// syncLabels merges want into have.
func syncLabels(have, want map[string]string) map[string]string {
	if have == nil {
		have = map[string]string{}
	}
	for k, v := range want {
		have[k] = v
	}
	return have
}

// Fixed: the live labels merged by a function of the package and set
// back (capsule's pod metadata): on a fresh object, the labels merged in.
func (r *Reconciler) mutatedMergedThroughCall(ctx context.Context, ns string, labels map[string]string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "merged", Namespace: ns}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		role.SetLabels(syncLabels(role.GetLabels(), labels))
		return nil
	})
	return err
}

// Fixed: a rule carried forward, once the object exists, into the desired
// object through a function of another package of the module (network-
// services-operator's gatewayutil.SetListener): the block never runs on
// a fresh object.
func (r *Reconciler) carriedAcrossPackages(ctx context.Context, owner client.Object, desired desiredRoles) error {
	role := desired.role.DeepCopy()
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `CreateOrUpdate reads the cached object`
		if !role.CreationTimestamp.IsZero() {
			if first := firstRule(role.Rules); first != nil {
				meta.SetRule(desired.role, *first)
			}
		}
		role.Rules = desired.role.Rules
		return controllerutil.SetControllerReference(owner, role, r.Scheme)
	})
	return err
}
