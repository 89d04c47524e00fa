package ensure_test

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	rbacv1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"
	"github.com/ssagen/ssagen/internal/testenv"
)

// BenchmarkApply compares, per call on a real API server, EnsureRoleBinding
// when its skip cache hits, EnsureRoleBinding sending an apply
// (AlwaysSend), and a raw client.Apply of the same configuration.
func BenchmarkApply(b *testing.B) {
	cfg := testenv.Start(b)
	scheme := runtime.NewScheme()
	clientgoscheme.AddToScheme(scheme)
	platformv1alpha1.AddToScheme(scheme)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	informers, err := cache.New(cfg, cache.Options{Scheme: scheme})
	if err != nil {
		b.Fatal(err)
	}
	go informers.Start(ctx)
	c, err := client.New(cfg, client.Options{Scheme: scheme, Cache: &client.CacheOptions{Reader: informers}})
	if err != nil {
		b.Fatal(err)
	}
	owner := &platformv1alpha1.Project{}
	owner.Name = "bench"
	if err := c.Create(ctx, owner); err != nil {
		b.Fatal(err)
	}
	desired := func() *rbacv1ac.RoleBindingApplyConfiguration {
		return rbacv1ac.RoleBinding("bench", "default").
			WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup("rbac.authorization.k8s.io").WithKind("Role").WithName("bench")).
			WithSubjects(rbacv1ac.Subject().WithKind("User").WithName("alice"))
	}
	skip := ensure.NewSkipCache()
	obj, _, err := rbacv1ensure.EnsureRoleBinding(ctx, c, owner, desired(), ensure.WithCache(skip))
	if err != nil {
		b.Fatal(err)
	}
	for {
		cur := obj.DeepCopy()
		if c.Get(ctx, client.ObjectKeyFromObject(obj), cur) == nil && cur.ResourceVersion == obj.ResourceVersion {
			break
		}
	}
	b.Run("call=ensure-cache-hit", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, res, err := rbacv1ensure.EnsureRoleBinding(ctx, c, owner, desired(), ensure.WithCache(skip)); err != nil || res != ensure.Skipped {
				b.Fatal(res, err)
			}
		}
	})
	b.Run("call=ensure-apply", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, _, err := rbacv1ensure.EnsureRoleBinding(ctx, c, owner, desired(), ensure.WithCache(skip), ensure.AlwaysSend()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("call=raw-client-apply", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := c.Apply(ctx, desired(), client.FieldOwner(ensure.DefaultFieldManager), client.ForceOwnership); err != nil {
				b.Fatal(err)
			}
		}
	})
}
