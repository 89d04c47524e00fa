// Package ensure stands for ssagen's generated helpers of rbac/v1.
package ensure

import (
	"context"

	ssaensure "github.com/ssagen/ssagen/ensure"
	rbacv1 "k8s.io/api/rbac/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

func EnsureRole(ctx context.Context, c client.Client, owner client.Object, desired *rbacv1ac.RoleApplyConfiguration, opts ...ssaensure.ApplyOption) (*rbacv1.Role, ssaensure.Result, error) {
	return nil, "", nil
}

func EnsureClusterRole(ctx context.Context, c client.Client, owner client.Object, desired *rbacv1ac.ClusterRoleApplyConfiguration, opts ...ssaensure.ApplyOption) (*rbacv1.ClusterRole, ssaensure.Result, error) {
	return nil, "", nil
}

func FromRole(in *rbacv1.Role) *rbacv1ac.RoleApplyConfiguration { return nil }

func FromClusterRole(in *rbacv1.ClusterRole) *rbacv1ac.ClusterRoleApplyConfiguration { return nil }

// CreateOrUpdateRole: Role's, with its schema (ClusterRole has none here:
// its sites take the runtime's).
func CreateOrUpdateRole(ctx context.Context, c client.Client, obj *rbacv1.Role, f func() error, opts ...ssaensure.ApplyOption) (controllerutil.OperationResult, error) {
	return "", nil
}
