package op

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	"github.com/ssagen/ssagen/internal/testenv"
)

func TestReconcile(t *testing.T) {
	cfg := testenv.Start(t)
	scheme := runtime.NewScheme()
	clientgoscheme.AddToScheme(scheme)
	platformv1alpha1.AddToScheme(scheme)
	counted, counter := testenv.Count(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	informers, err := cache.New(counted, cache.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	go informers.Start(ctx)
	c, err := client.New(counted, client.Options{Scheme: scheme, Cache: &client.CacheOptions{Reader: informers}})
	if err != nil {
		t.Fatal(err)
	}
	direct, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}); err != nil {
		t.Fatal(err)
	}
	p := &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: "demo"}}
	if err := direct.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	r := &Reconciler{Client: c, Scheme: scheme}
	if err := r.Reconcile(ctx, p, "team"); err != nil {
		t.Fatal(err)
	}
	// Let the cache see what the first reconcile wrote.
	for i := 0; i < 300; i++ {
		var role rbacv1.Role
		var sa corev1.ServiceAccount
		if c.Get(ctx, client.ObjectKey{Namespace: "team", Name: "demo-member"}, &role) == nil &&
			c.Get(ctx, client.ObjectKey{Namespace: "team", Name: "demo"}, &sa) == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	before := counter.Snapshot()
	for i := 0; i < 5; i++ {
		if err := r.Reconcile(ctx, p, "team"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	got := counter.Since(before)
	var role rbacv1.Role
	if err := direct.Get(ctx, client.ObjectKey{Namespace: "team", Name: "demo-member"}, &role); err != nil || len(role.Rules) != 1 || len(role.OwnerReferences) != 1 {
		t.Fatalf("role: %v %+v", err, role)
	}
	fmt.Printf("E2E conflicts=%d requests=%d (%s)\n", testenv.Total(got, "POST 409", "PUT 409", "PATCH 409"), testenv.Total(got, ""), testenv.String(got))
}
