package fix

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// Create → AlreadyExists → Update in a range over literals: the slice
// becomes one of apply configurations, the loop body one EnsureRole.
func (r *Reconciler) roles(ctx context.Context, owner client.Object, ns string) error {
	for _, role := range []*rbacv1.Role{
		{ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: ns}, Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "writer", Namespace: ns}, Rules: []rbacv1.PolicyRule{{Verbs: []string{"update"}}}},
	} {
		if err := controllerutil.SetControllerReference(owner, role, r.Scheme); err != nil {
			return err
		}
		err := r.Create(ctx, role) // want `Create → AlreadyExists → Update`
		if apierrors.IsAlreadyExists(err) {
			err = r.Update(ctx, role)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// The range is over a slice built elsewhere: the typed range variable
// stays, and the helper is handed its conversion.
func (r *Reconciler) rolesFrom(ctx context.Context, roles []*rbacv1.Role) error {
	for _, role := range roles {
		err := r.Create(ctx, role) // want `Create → AlreadyExists → Update`
		if apierrors.IsAlreadyExists(err) {
			err = r.Update(ctx, role)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
