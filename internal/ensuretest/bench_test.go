package ensure_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"k8s.io/apimachinery/pkg/runtime"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	corev1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
	rbacv1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"
	"github.com/ssagen/ssagen/internal/testenv"
)

// BenchmarkApply compares, per call on a real API server, EnsureRoleBinding
// when its skip cache hits, EnsureRoleBinding sending an apply
// (AlwaysSend), and a raw client.Apply of the same intent.
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
	skip := ensure.NewClient(c)
	obj, _, err := rbacv1ensure.EnsureRoleBinding(ctx, skip, owner, desired())
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
			if _, res, err := rbacv1ensure.EnsureRoleBinding(ctx, skip, owner, desired()); err != nil || res != ensure.Skipped {
				b.Fatal(res, err)
			}
		}
	})
	b.Run("call=ensure-apply", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, _, err := rbacv1ensure.EnsureRoleBinding(ctx, skip, owner, desired(), ensure.AlwaysSend()); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The first call after a restart: an empty skip cache, the object as
	// desired in the informer. Decided from its managedFields, no request.
	b.Run("call=ensure-after-restart", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, res, err := rbacv1ensure.EnsureRoleBinding(ctx, c, owner, desired()); err != nil || res != ensure.Skipped {
				b.Fatal(res, err)
			}
		}
	})
	// The same intent by hand: the configuration with the controller
	// reference EnsureRoleBinding sets, so both calls ask the API server
	// for the same (unchanged) object.
	ref := obj.OwnerReferences[0]
	withRef := func() *rbacv1ac.RoleBindingApplyConfiguration {
		return desired().WithOwnerReferences(metav1ac.OwnerReference().WithAPIVersion(ref.APIVersion).WithKind(ref.Kind).
			WithName(ref.Name).WithUID(ref.UID).WithController(*ref.Controller).WithBlockOwnerDeletion(*ref.BlockOwnerDeletion))
	}
	b.Run("call=raw-client-apply", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := c.Apply(ctx, withRef(), client.FieldOwner(ensure.DefaultFieldManager), client.ForceOwnership); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFirstResyncAfterRestart: the first resync of 1,000 unchanged
// children after a controller restart (an empty skip cache), decided from
// the informer's copies and their managedFields, beside the same resync
// sending every apply (AlwaysSend: what each call cost before it).
func BenchmarkFirstResyncAfterRestart(b *testing.B) {
	const children = 1000
	cfg := testenv.Start(b)
	counted, counter := testenv.Count(cfg)
	scheme := runtime.NewScheme()
	clientgoscheme.AddToScheme(scheme)
	platformv1alpha1.AddToScheme(scheme)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	informers, err := cache.New(counted, cache.Options{Scheme: scheme})
	if err != nil {
		b.Fatal(err)
	}
	go informers.Start(ctx)
	c, err := client.New(counted, client.Options{Scheme: scheme, Cache: &client.CacheOptions{Reader: informers}})
	if err != nil {
		b.Fatal(err)
	}
	owner := &platformv1alpha1.Project{}
	owner.Name = "restart"
	if err := c.Create(ctx, owner); err != nil {
		b.Fatal(err)
	}
	desired := func(i int) *corev1ac.ConfigMapApplyConfiguration {
		return corev1ac.ConfigMap(fmt.Sprintf("child-%d", i), "default").
			WithLabels(map[string]string{"app": "restart"}).WithData(map[string]string{"key": "value"})
	}
	first := ensure.NewClient(c)
	var last client.Object
	for i := 0; i < children; i++ {
		obj, _, err := corev1ensure.EnsureConfigMap(ctx, first, owner, desired(i))
		if err != nil {
			b.Fatal(err)
		}
		last = obj
	}
	for { // the informer has caught up with the last write
		cur := &corev1.ConfigMap{}
		if c.Get(ctx, client.ObjectKeyFromObject(last), cur) == nil && cur.ResourceVersion == last.GetResourceVersion() {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, mode := range []struct {
		name string
		opts []ensure.ApplyOption
	}{{"resync=decided-from-managedFields", nil}, {"resync=apply-each", []ensure.ApplyOption{ensure.AlwaysSend()}}} {
		b.Run(mode.name, func(b *testing.B) {
			b.ReportAllocs()
			before := counter.Snapshot()
			for n := 0; n < b.N; n++ {
				restarted := ensure.NewClient(c)
				for i := 0; i < children; i++ {
					if _, _, err := corev1ensure.EnsureConfigMap(ctx, restarted, owner, desired(i), mode.opts...); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(testenv.Total(counter.Since(before), ""))/float64(b.N), "requests/op")
		})
	}
}
