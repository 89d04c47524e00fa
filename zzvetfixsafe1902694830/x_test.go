package x

import (
	"context"
	"errors"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/ssagen/ssagen/examples/generated/applyconfiguration"
)

func newClient(funcs interceptor.Funcs) client.Client {
	return fake.NewClientBuilder().WithScheme(scheme.Scheme).
		WithTypeConverters(applyconfiguration.NewTypeConverter(scheme.Scheme)).
		WithInterceptorFuncs(funcs).Build()
}

func TestGrants(t *testing.T) {
	ctx := context.Background()
	r := &R{Client: newClient(interceptor.Funcs{})}
	for i := 0; i < 2; i++ {
		if err := r.grants(ctx, []string{"a", "b"}); err != nil {
			t.Fatal(err)
		}
		if err := r.defaults(ctx, "a"); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(r.Log[:2], ",") != "created a,created b" {
		t.Errorf("log %v", r.Log)
	}
	var role rbacv1.Role
	if err := r.Get(ctx, client.ObjectKey{Namespace: "a", Name: "a"}, &role); err != nil || len(role.Rules) != 1 {
		t.Errorf("role a: %v %v", err, role.Rules)
	}
}

func TestInjectedCreateError(t *testing.T) {
	r := &R{Client: newClient(interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		return errors.New("boom")
	}})}
	if err := r.injectedRole(context.Background(), "a"); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("want the injected error, got %v", err)
	}
}

func TestInjectedUpdateError(t *testing.T) {
	r := &R{Client: newClient(interceptor.Funcs{Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
		return errors.New("refused")
	}})}
	existing := &rbacv1.Role{}
	existing.Name, existing.Namespace = "reader", "a"
	if err := r.Client.Create(context.Background(), existing); err != nil {
		t.Fatal(err)
	}
	if err := r.grants(context.Background(), []string{"a"}); err == nil || !strings.Contains(err.Error(), "updating Role \"reader\": refused") {
		t.Errorf("want the failed update, got %v", err)
	}
}

func TestInjectedWriteErrors(t *testing.T) {
	r := &R{Client: newClient(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return errors.New("create refused")
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return errors.New("update refused")
		},
	})}
	if err := r.injectedBoth(context.Background(), "a"); err == nil || !strings.Contains(err.Error(), "create refused") {
		t.Errorf("want the injected error, got %v", err)
	}
}
