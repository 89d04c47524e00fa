package fixmutate

import (
	"context"

	rbacv1ensure "example.com/generated/rbac/v1/ensure"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// No fix: the object is changed outside the mutate function.
func (r *Reconciler) mutatedIf(ctx context.Context, owner client.Object) error {
	cr := &rbacv1.ClusterRole{}
	cr.Name = "x"
	if _, err := controllerutil.CreateOrPatch(ctx, r.Client, cr, func() error { // want `no automatic fix: the object is changed or read apart from the write`
		cr.Rules = []rbacv1.PolicyRule{{Verbs: []string{"list"}}}
		return nil
	}); err != nil {
		return err
	}
	return nil
}

// No fix: the mutate function reads the live object.
func (r *Reconciler) mutatedReads(ctx context.Context, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: ns}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error { // want `no automatic fix: the mutate function does more than assign fields`
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
