package x

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	rbacensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"
)

var _ = rbacensure.EnsureRole

type R struct {
	client.Client
	Log []string
}

func controlledByOther(obj, owner metav1.Object) bool {
	if t := obj.GetCreationTimestamp(); t.IsZero() {
		return false
	}
	return controllerutil.HasControllerReference(obj) && !metav1.IsControlledBy(obj, owner)
}

func desiredRole(ns string) *rbacv1.Role {
	return &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: ns},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}},
	}
}

func (r *R) reconcile(ctx context.Context, owner client.Object) error {
	desired := desiredRole(owner.GetNamespace())
	role := desired.DeepCopy()
	result, err := rbacensure.CreateOrUpdateRole(ctx, r.Client, role, func() error {
		if controlledByOther(role, owner) {
			return apierrors.NewAlreadyExists(rbacv1.Resource("roles"), role.Name)
		}
		if err := controllerutil.SetControllerReference(owner, role, r.Scheme()); err != nil {
			return err
		}
		role.Rules = desired.Rules
		return nil
	})
	if err != nil {
		if apierrors.IsAlreadyExists(err) {
			r.Log = append(r.Log, "conflict "+role.Name)
			return nil
		}
		return err
	}
	r.Log = append(r.Log, fmt.Sprint("role ", result))

	viewer := rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "viewer-" + owner.GetNamespace()}}
	result, err = rbacensure.CreateOrUpdateClusterRole(ctx, r.Client, &viewer, func() error {
		if viewer.Labels == nil {
			viewer.Labels = map[string]string{}
		}
		viewer.Labels["managed-by"] = "x"
		viewer.Rules = desired.Rules
		return nil
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", viewer.Name, err)
	}
	if result == controllerutil.OperationResultCreated {
		r.Log = append(r.Log, "created "+viewer.Name)
	}
	return nil
}
