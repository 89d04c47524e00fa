// Package unfixed is the example operator as it is written before ssagen:
// a Project's Roles written with Create → AlreadyExists → Update, and its
// status with Update of the object the reconcile read, which may be stale.
// It is the input of ssagen audit's --source test (audit/audit_test.go):
// its writes flood an API server's audit log with 409s, and ssagen vet
// names the lines behind them. examples/controller is the same operator
// fixed.
package unfixed

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
)

// ProjectReconciler writes a Project's Roles and its Ready condition.
type ProjectReconciler struct {
	client.Client
}

// Reconcile reconciles the Project p as read (from the cache, in a
// controller): a Role per namespace, then the status.
func (r *ProjectReconciler) Reconcile(ctx context.Context, p *platformv1alpha1.Project) error {
	for _, ns := range p.Spec.Namespaces {
		role := &rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: p.Name + "-member", Namespace: ns},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}}},
		}
		err := r.Create(ctx, role)
		if apierrors.IsAlreadyExists(err) {
			err = r.Update(ctx, role)
		}
		if err != nil {
			return err
		}
	}
	meta.SetStatusCondition(&p.Status.Conditions, metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Provisioned", ObservedGeneration: p.Generation})
	return r.Status().Update(ctx, p)
}
