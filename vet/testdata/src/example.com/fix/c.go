package fix

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// Create that ignores AlreadyExists, in the if's init, of a literal with a
// controller reference: fixed with EnsureRole and CreateOnly.
func (r *Reconciler) seedRole(ctx context.Context, owner client.Object, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "seed", Namespace: ns}, Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}}}}
	if err := controllerutil.SetControllerReference(owner, role, r.Scheme); err != nil {
		return err
	}
	if err := r.Create(ctx, role); err != nil && !apierrors.IsAlreadyExists(err) { // want `Create that ignores AlreadyExists`
		return fmt.Errorf("seeding the role: %w", err)
	}
	return nil
}

// client.IgnoreAlreadyExists of an inline literal: fixed, with NoOwner.
func (r *Reconciler) seedClusterRole(ctx context.Context) error {
	if err := client.IgnoreAlreadyExists(r.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "seed"}})); err != nil { // want `Create that ignores AlreadyExists`
		return err
	}
	return nil
}

// client.IgnoreAlreadyExists in the condition: fixed, with NoOwner.
func (r *Reconciler) seedClusterRoleCond(ctx context.Context) error {
	if err := r.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "seed-cond"}}); client.IgnoreAlreadyExists(err) != nil { // want `Create that ignores AlreadyExists`
		return err
	}
	return nil
}

// The Create, then the check: fixed.
func (r *Reconciler) seedAgain(ctx context.Context, verbs []string) error {
	err := r.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "again"}, Rules: []rbacv1.PolicyRule{{Verbs: verbs}}}) // want `Create that ignores AlreadyExists`
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// Fix: owner references written by hand, which have no exact builder: the
// generated converter carries them.
func (r *Reconciler) seedOwned(ctx context.Context, refs []metav1.OwnerReference) error {
	if err := r.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "owned", OwnerReferences: refs}}); err != nil && !apierrors.IsAlreadyExists(err) { // want `Create that ignores AlreadyExists`
		return err
	}
	return nil
}

// No fix: no helper for RoleBinding.
func (r *Reconciler) seedBinding(ctx context.Context, ns string) error {
	if err := r.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: ns}}); err != nil && !apierrors.IsAlreadyExists(err) { // want `no automatic fix: no Ensure helper for this kind`
		return err
	}
	return nil
}

// A Create that ignores AlreadyExists, its name read after the write (a
// log's): fixed; the typed variable stays, converted by FromClusterRole,
// and its name is the live object's too.
func (r *Reconciler) seedNamed(ctx context.Context, log func(string, ...any)) error {
	cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "named"}}
	if err := r.Create(ctx, cr); client.IgnoreAlreadyExists(err) != nil { // want `Create that ignores AlreadyExists`
		return fmt.Errorf("creating %s: %w", cr.Name, err)
	}
	log("created", "name", cr.Name)
	return nil
}

// No fix: the object is read after the write for more than its name.
func (r *Reconciler) seedReadAfter(ctx context.Context) (string, error) {
	cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "read"}}
	if err := r.Create(ctx, cr); client.IgnoreAlreadyExists(err) != nil { // want `no automatic fix: the object is changed or read apart from the write`
		return "", err
	}
	return cr.ResourceVersion, nil
}

// The AlreadyExists check inside the Create's error branch, the existing
// object's path ending the iteration (Kargo's shape): fixed; that path
// runs when the apply did not create the object.
func (r *Reconciler) seedAccounts(ctx context.Context, names []string, ns string, log func(string, ...any)) error {
	for _, name := range names {
		if err := r.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}); err != nil { // want `Create that ignores AlreadyExists`
			if apierrors.IsAlreadyExists(err) {
				log("exists", "name", name)
				continue
			}
			return fmt.Errorf("creating Role %q: %w", name, err)
		}
		log("created", "name", name)
	}
	return nil
}

// The check the other way round, the existing object's path falling
// through: fixed the same way.
func (r *Reconciler) seedFallback(ctx context.Context, log func(string, ...any)) error {
	crb := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "fallback"}, Rules: []rbacv1.PolicyRule{{Verbs: []string{"list"}}}}
	if err := r.Create(ctx, crb); err != nil { // want `Create that ignores AlreadyExists`
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating ClusterRole %q: %w", crb.Name, err)
		}
		log("exists", "name", crb.Name)
	}
	log("done")
	return nil
}

// No fix: the existing object's path runs into the error path.
func (r *Reconciler) seedFallsThrough(ctx context.Context, log func(string, ...any)) error {
	if err := r.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "through"}}); err != nil { // want `no automatic fix: the AlreadyExists path does not end`
		if apierrors.IsAlreadyExists(err) {
			log("exists")
		}
		return err
	}
	return nil
}
