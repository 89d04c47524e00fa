package fix

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A file that does not import the helpers yet: the fix adds the imports
// and drops those only the old code used.
func (r *Reconciler) readers(ctx context.Context, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "readers", Namespace: ns}, Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}}}}
	err := r.Create(ctx, role) // want `Create → AlreadyExists → Update`
	if err != nil && apierrors.IsAlreadyExists(err) {
		err = r.Update(ctx, role)
	}
	return err
}
