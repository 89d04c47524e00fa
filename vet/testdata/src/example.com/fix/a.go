package fix

import (
	"context"
	"fmt"

	rbacv1ensure "example.com/generated/rbac/v1/ensure"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

type Reconciler struct {
	client.Client
	Scheme any
}

// Create → AlreadyExists → Update of a literal with a controller
// reference: fixed with EnsureRole.
func (r *Reconciler) role(ctx context.Context, owner client.Object, ns string) error {
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "member", Namespace: ns, Labels: map[string]string{"app": "x"}},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}}},
	}
	if err := controllerutil.SetControllerReference(owner, role, r.Scheme); err != nil {
		return err
	}
	err := r.Create(ctx, role) // want `Create → AlreadyExists → Update`
	if apierrors.IsAlreadyExists(err) {
		return r.Update(ctx, role)
	}
	return err
}

// The create in the if's init, no owner: fixed with NoOwner.
func (r *Reconciler) clusterRole(ctx context.Context, verbs []string) error {
	cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "viewer"}, Rules: []rbacv1.PolicyRule{{Verbs: verbs}}}
	if err := r.Create(ctx, cr); err != nil { // want `Create → AlreadyExists → Update`
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating the viewer role: %w", err)
		}
		if err := r.Update(ctx, cr); err != nil {
			return err
		}
	}
	return nil
}

// Fix: the rules are typed values without an exact builder; the generated
// converter carries the literal whole.
func (r *Reconciler) typedRules(ctx context.Context, rules []rbacv1.PolicyRule) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "y"}, Rules: rules}
	err := r.Create(ctx, role) // want `Create → AlreadyExists → Update`
	if apierrors.IsAlreadyExists(err) {
		return r.Update(ctx, role)
	}
	return err
}

// Fix: a typed object built by another function, converted where it is
// defined.
func (r *Reconciler) builtElsewhere(ctx context.Context, ns string) error {
	role := desiredRole(ns)
	err := r.Create(ctx, role) // want `Create → AlreadyExists → Update`
	if apierrors.IsAlreadyExists(err) {
		return r.Update(ctx, role)
	}
	return err
}

func desiredRole(ns string) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "built", Namespace: ns}}
}

// No fix: the object changes after the literal.
func (r *Reconciler) changedAfter(ctx context.Context, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: ns}}
	role.Labels = map[string]string{"a": "b"}
	err := r.Create(ctx, role) // want `Create → AlreadyExists → Update`
	if apierrors.IsAlreadyExists(err) {
		return r.Update(ctx, role)
	}
	return err
}

// No fix: no helper for RoleBinding among the dependencies.
func (r *Reconciler) binding(ctx context.Context, ns string) error {
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: ns}}
	err := r.Create(ctx, rb) // want `Create → AlreadyExists → Update`
	if apierrors.IsAlreadyExists(err) {
		return r.Update(ctx, rb)
	}
	return err
}

func (r *Reconciler) already(ctx context.Context) error {
	_, _, err := rbacv1ensure.EnsureClusterRole(ctx, r.Client, nil, nil)
	return err
}
