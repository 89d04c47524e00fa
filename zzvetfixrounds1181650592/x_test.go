package x

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ssagen/ssagen/examples/generated/applyconfiguration"
)

func owner() *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "a", UID: "uid-owner"}}
}

func newClient(objs ...client.Object) client.Client {
	return fake.NewClientBuilder().WithScheme(scheme.Scheme).
		WithTypeConverters(applyconfiguration.NewTypeConverter(scheme.Scheme)).
		WithObjects(objs...).Build()
}

func TestReconcile(t *testing.T) {
	ctx := context.Background()
	r := &R{Client: newClient(owner())}
	if err := r.reconcile(ctx, owner()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Log, ","); got != "role created,created viewer-a" {
		t.Errorf("log %q", got)
	}
	var role rbacv1.Role
	if err := r.Get(ctx, client.ObjectKey{Namespace: "a", Name: "reader"}, &role); err != nil || len(role.Rules) != 1 || !metav1.IsControlledBy(&role, owner()) {
		t.Errorf("role: %v %+v", err, role)
	}
	var viewer rbacv1.ClusterRole
	if err := r.Get(ctx, client.ObjectKey{Name: "viewer-a"}, &viewer); err != nil || viewer.Labels["managed-by"] != "x" {
		t.Errorf("viewer: %v %+v", err, viewer)
	}
}

func TestRoleOfAnotherOwner(t *testing.T) {
	ctx := context.Background()
	other := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: "a", CreationTimestamp: metav1.Now(), OwnerReferences: []metav1.OwnerReference{
		{APIVersion: "v1", Kind: "ConfigMap", Name: "other", UID: "uid-other", Controller: ptr.To(true)}}}}
	r := &R{Client: newClient(owner(), other)}
	if err := r.reconcile(ctx, owner()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Log, ","); got != "conflict reader" {
		t.Errorf("log %q, want the conflict", got)
	}
}
