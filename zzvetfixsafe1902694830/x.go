package x

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rbacensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"
)

type R struct {
	client.Client
	Log []string
}

func (r *R) grants(ctx context.Context, namespaces []string) error {
	for _, ns := range namespaces {
		role := &rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: ns},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}},
		}
		if err := r.Create(ctx, role); err != nil {
			if !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("creating Role %q in %q: %w", role.Name, role.Namespace, err)
			}
			if err = r.Update(ctx, role); err != nil {
				return fmt.Errorf("updating Role %q: %w", role.Name, err)
			}
			r.Log = append(r.Log, "updated "+ns)
		} else {
			r.Log = append(r.Log, "created "+ns)
		}
	}
	return nil
}

func (r *R) defaults(ctx context.Context, ns string) error {
	roles := []rbacv1.Role{
		{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: ns}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: ns}},
	}
	for _, role := range roles {
		r.Log = append(r.Log, "ensuring "+role.Name)
		if err := r.Create(ctx, &role); err != nil {
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

func (r *R) injectedRole(ctx context.Context, ns string) error {
	injected := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "injected", Namespace: ns}}
	if err := r.Create(ctx, injected); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating Role: %w", err)
		}
		return r.Update(ctx, injected)
	}
	return nil
}

func (r *R) injectedBoth(ctx context.Context, ns string) error {
	both := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "both", Namespace: ns}}
	if err := r.Create(ctx, both); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating Role: %w", err)
		}
		return r.Update(ctx, both)
	}
	return nil
}

var _ = rbacensure.EnsureRole
