package fix

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// FleetReconciler writes through the client of the request's cluster, on
// multicluster-runtime: the same finding and the same fix.
type FleetReconciler struct {
	Manager mcmanager.Manager
}

func (r *FleetReconciler) Reconcile(ctx context.Context, req mcreconcile.Request) error {
	cl, err := r.Manager.GetCluster(ctx, req.ClusterName)
	if err != nil {
		return err
	}
	c := cl.GetClient()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "member", Namespace: req.Namespace}}
	err = c.Create(ctx, role) // want `Create → AlreadyExists → Update`
	if apierrors.IsAlreadyExists(err) {
		return c.Update(ctx, role)
	}
	return err
}
