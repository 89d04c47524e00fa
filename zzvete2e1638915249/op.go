package op

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	ssaensure "github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	corev1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
	rbacv1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
)

type Reconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

func (r *Reconciler) Reconcile(ctx context.Context, p *platformv1alpha1.Project, ns string) error {
	role := rbacv1ac.Role(p.Name+"-member", ns).WithRules(rbacv1ac.PolicyRule().WithAPIGroups("").WithResources("pods").WithVerbs("get", "list"))
	_, _, err := rbacv1ensure.EnsureRole(ctx, r.Client, p, role)
	if err != nil {
		return err
	}
	sa := corev1ac.ServiceAccount(p.Name, ns)
	if _, _, err := corev1ensure.EnsureServiceAccount(ctx, r.Client, p, sa, ssaensure.CreateOnly()); err != nil {
		return err
	}
	return nil
}
