package fix

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The shapes of the seed operators, in our words. The Create's error
// branch checks AlreadyExists first, Updates with its own error check,
// logs, and an else logs the creation: every path is kept, the reads of
// the object's name in the error messages carry over.
func (r *Reconciler) grants(ctx context.Context, namespaces []string) error {
	for _, ns := range namespaces {
		role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: ns}, Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}}}}
		if err := r.Create(ctx, role); err != nil { // want `Create → AlreadyExists → Update`
			if !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("creating Role %q in %q: %w", role.Name, role.Namespace, err)
			}
			if err = r.Update(ctx, role); err != nil {
				return fmt.Errorf("updating Role %q: %w", role.Name, err)
			}
			fmt.Println("updated", ns)
		} else {
			fmt.Println("created", ns)
		}
	}
	return nil
}

// The existing object's path ends the iteration; the log after the if
// runs only for a creation.
func (r *Reconciler) grantsContinue(ctx context.Context, namespaces []string) error {
	for _, ns := range namespaces {
		role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "writer", Namespace: ns}, Rules: []rbacv1.PolicyRule{{Verbs: []string{"update"}}}}
		if err := r.Create(ctx, role); err != nil { // want `Create → AlreadyExists → Update`
			if !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("creating Role %q: %w", role.GetName(), err)
			}
			if err = r.Update(ctx, role); err != nil {
				return err
			}
			fmt.Println("updated")
			continue
		}
		fmt.Println("created")
	}
	return nil
}

// Only the Update after the check: the branch ends with the error path.
func (r *Reconciler) grantsQuiet(ctx context.Context, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "quiet", Namespace: ns}}
	if err := r.Create(ctx, role); err != nil { // want `Create → AlreadyExists → Update`
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		return r.Update(ctx, role)
	}
	return nil
}

// A range over a slice of values defined from a literal, written as &v,
// with the name read for a log before the write.
func (r *Reconciler) grantsRange(ctx context.Context, ns string) error {
	roles := []rbacv1.Role{
		{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: ns}, Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: ns}},
	}
	for _, role := range roles {
		fmt.Println("ensuring", role.Name)
		if err := r.Create(ctx, &role); err != nil { // want `Create → AlreadyExists → Update`
			if !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("creating Role %q: %w", role.Name, err)
			}
			if err = r.Update(ctx, &role); err != nil {
				return err
			}
		}
	}
	return nil
}

// A read the apply configuration cannot answer the same way declines
// the fix, saying which.
func (r *Reconciler) grantsLabels(ctx context.Context, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "labelled", Namespace: ns}}
	if err := r.Create(ctx, role); err != nil { // want `reads role.Labels`
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating Role with labels %v: %w", role.Labels, err)
		}
		return r.Update(ctx, role)
	}
	return nil
}

// A write through a function field, the seam the tests replace: declined,
// saying what to change.
type seamed struct {
	Reconciler
	createRole func(context.Context, *rbacv1.Role) error
}

func (s *seamed) grant(ctx context.Context, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "seam", Namespace: ns}}
	if err := s.createRole(ctx, role); err != nil { // want `function field s.createRole, a seam tests replace`
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		return s.Update(ctx, role)
	}
	return nil
}
