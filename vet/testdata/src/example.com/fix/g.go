package fix

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A seam the tests replace, set to the client's Create by the
// constructor (Kargo's shape): the field takes the helper's signature,
// its default the helper, and both writes through it call it as the
// helper, with the client the default was bound to.
type seamReconciler struct {
	client       client.Client
	createRoleFn func(context.Context, client.Object, ...client.CreateOption) error
}

func newSeamReconciler(c client.Client) *seamReconciler {
	r := &seamReconciler{client: c}
	r.createRoleFn = r.client.Create
	return r
}

func (r *seamReconciler) roles(ctx context.Context, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "seamed", Namespace: ns}, Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}}}}
	if err := r.createRoleFn(ctx, role); err != nil { // want `Create → AlreadyExists → Update`
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating Role %q: %w", role.Name, err)
		}
		if err = r.client.Update(ctx, role); err != nil {
			return fmt.Errorf("updating Role %q: %w", role.Name, err)
		}
	}
	if err := r.createRoleFn(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "once", Namespace: ns}}); err != nil { // want `Create that ignores AlreadyExists`
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	}
	return nil
}

// A seam also called where no fix applies (a plain Create): its type
// cannot change, so neither of its writes is rewritten.
type halfSeam struct {
	client       client.Client
	createRoleFn func(context.Context, client.Object, ...client.CreateOption) error
}

func newHalfSeam(c client.Client) *halfSeam { return &halfSeam{client: c, createRoleFn: c.Create} }

func (r *halfSeam) grant(ctx context.Context, ns string) error {
	if err := r.createRoleFn(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "half", Namespace: ns}}); err != nil && !apierrors.IsAlreadyExists(err) { // want `the function field createRoleFn is rewritten with all its writes, and createRoleFn is also called at`
		return err
	}
	return r.createRoleFn(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: ns}})
}
