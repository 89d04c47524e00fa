package x

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type R struct{ client.Client }

func (r *R) role(ctx context.Context, role *rbacv1.Role) error {
	if err := r.Create(ctx, role); apierrors.IsAlreadyExists(err) {
		return r.Update(ctx, role)
	}
	return nil
}
