package ensure_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	"github.com/ssagen/ssagen/examples/generated/applyconfiguration"
	ac "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1"
	gen "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1/ensure"
	corev1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
	rbacv1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"
	"github.com/ssagen/ssagen/internal/testenv"
)

func fakeScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := platformv1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// fakeOwner is a Project as a test fixture: the fake client assigns no
// UID, so the fixture carries one.
func fakeOwner() *platformv1alpha1.Project {
	return &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: "p1", UID: "uid-p1"}}
}

// writes counts the write calls a client built from b makes.
func countWrites(b *fake.ClientBuilder) (*fake.ClientBuilder, *atomic.Int64) {
	n := &atomic.Int64{}
	return b.WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			n.Add(1)
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			n.Add(1)
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			n.Add(1)
			return c.Patch(ctx, obj, patch, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			n.Add(1)
			return c.Apply(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			n.Add(1)
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			n.Add(1)
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	}), n
}

func isController(obj client.Object, owner client.Object) bool {
	refs := obj.GetOwnerReferences()
	return len(refs) == 1 && refs[0].UID == owner.GetUID() && refs[0].Controller != nil && *refs[0].Controller
}

func svc(ports ...*corev1ac.ServicePortApplyConfiguration) *corev1ac.ServiceApplyConfiguration {
	return corev1ac.Service("web", "default").WithSpec(corev1ac.ServiceSpec().
		WithSelector(map[string]string{"app": "web"}).WithPorts(ports...))
}

func port(name string, p int32) *corev1ac.ServicePortApplyConfiguration {
	return corev1ac.ServicePort().WithName(name).WithPort(p).WithTargetPort(intstr.FromInt32(p))
}

// TestFakeClient: EnsureX on controller-runtime's fake client, built as
// operator authors build it (a scheme and the owner, no REST mapper).
// fakeVersionsApplies reports whether this controller-runtime's fake
// client versions what an apply writes: a resourceVersion for an object
// an apply creates, a new one when an apply changes it. v0.22's does
// neither (fixed in v0.23), so there Ensure cannot tell Configured from
// Unchanged (it reports Unchanged) and decides its skips by content.
func fakeVersionsApplies(t *testing.T) bool {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(fakeScheme(t)).Build()
	var rvs []string
	for _, data := range []string{`{"k":"1"}`, `{"k":"2"}`} {
		cm := &corev1.ConfigMap{}
		cm.Name, cm.Namespace = "probe", "default"
		body := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"probe","namespace":"default"},"data":` + data + `}`)
		if err := c.Patch(context.Background(), cm, client.RawPatch(types.ApplyPatchType, body), client.FieldOwner("probe")); err != nil {
			t.Fatal(err)
		}
		rvs = append(rvs, cm.ResourceVersion)
	}
	return rvs[0] != "" && rvs[0] != rvs[1]
}

// configured: res is what an apply that changed the object reports on
// this fake client.
func configured(t *testing.T, res ensure.Result) bool {
	return res == ensure.Configured || (res == ensure.Unchanged && !fakeVersionsApplies(t))
}

// countingClient wraps a client the way operators wrap theirs (for
// metrics, tracing): it counts apply patches and passes them on.
type countingClient struct {
	client.Client
	applies *atomic.Int64
}

func (c *countingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if patch.Type() == types.ApplyPatchType {
		c.applies.Add(1)
	}
	return c.Client.Patch(ctx, obj, patch, opts...)
}

func TestFakeClient(t *testing.T) {
	ctx := context.Background()

	t.Run("built-in kinds: created with the controller reference, then skipped", func(t *testing.T) {
		owner := fakeOwner()
		b, writes := countWrites(fake.NewClientBuilder().WithScheme(fakeScheme(t)).WithObjects(owner))
		c := ensure.NewClient(b.Build(), ensure.FieldManager("unit"))
		steps := []func() (client.Object, ensure.Result, error){
			func() (client.Object, ensure.Result, error) {
				return corev1ensure.EnsureService(ctx, c, owner, svc(port("http", 80)))
			},
			func() (client.Object, ensure.Result, error) {
				return corev1ensure.EnsureConfigMap(ctx, c, owner, corev1ac.ConfigMap("cfg", "default").WithData(map[string]string{"k": "v"}))
			},
			func() (client.Object, ensure.Result, error) {
				return rbacv1ensure.EnsureRole(ctx, c, owner, rbacv1ac.Role("reader", "default").
					WithRules(rbacv1ac.PolicyRule().WithAPIGroups("").WithResources("pods").WithVerbs("get", "list")))
			},
			func() (client.Object, ensure.Result, error) {
				return rbacv1ensure.EnsureClusterRole(ctx, c, owner, rbacv1ac.ClusterRole("p1-admin").
					WithRules(rbacv1ac.PolicyRule().WithAPIGroups("").WithResources("pods").WithVerbs("get")))
			},
		}
		for i, step := range steps {
			obj, res, err := step()
			if err != nil || res != ensure.Created {
				t.Fatalf("step %d: %v %v", i, res, err)
			}
			if (obj.GetResourceVersion() == "" && fakeVersionsApplies(t)) || !isController(obj, owner) {
				t.Fatalf("step %d: returned object %s rv %q refs %+v", i, obj.GetName(), obj.GetResourceVersion(), obj.GetOwnerReferences())
			}
		}
		var live corev1.Service
		if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, &live); err != nil {
			t.Fatal(err)
		}
		if !isController(&live, owner) || len(live.Spec.Ports) != 1 || live.Spec.Ports[0].Port != 80 {
			t.Fatalf("stored service %+v %+v", live.OwnerReferences, live.Spec.Ports)
		}
		var role rbacv1.Role
		if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "reader"}, &role); err != nil || len(role.Rules) != 1 {
			t.Fatalf("stored role %+v %v", role.Rules, err)
		}
		created := writes.Load()
		if created != int64(len(steps)) {
			t.Fatalf("%d writes to create %d objects", created, len(steps))
		}
		for round := 0; round < 3; round++ {
			for i, step := range steps {
				if _, res, err := step(); err != nil || res != ensure.Skipped {
					t.Fatalf("round %d step %d: %v %v", round, i, res, err)
				}
			}
		}
		if n := writes.Load() - created; n != 0 {
			t.Fatalf("3 unchanged rounds wrote %d times", n)
		}
		// Another writer's label moves the resourceVersion: still no write
		// (the intent is compared with the live object by the merge schema).
		var cur corev1.Service
		if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, &cur); err != nil {
			t.Fatal(err)
		}
		if err := c.Patch(ctx, &cur, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"x"}}}`)), client.FieldOwner("labeller")); err != nil {
			t.Fatal(err)
		}
		created = writes.Load()
		if _, res, err := steps[0](); err != nil || res != ensure.Skipped {
			t.Fatalf("after another writer's label: %v %v", res, err)
		}
		if n := writes.Load() - created; n != 0 {
			t.Fatalf("another writer's label made us write %d times", n)
		}
		// A changed intent is one write.
		obj, res, err := corev1ensure.EnsureService(ctx, c, owner, svc(port("http", 8080)))
		if err != nil || !configured(t, res) || obj.Spec.Ports[0].Port != 8080 {
			t.Fatalf("changed intent: %v %v %+v", res, err, obj.Spec.Ports)
		}
		if n := writes.Load() - created; n != 1 {
			t.Fatalf("a changed intent took %d writes", n)
		}
	})

	t.Run("custom resource and its status", func(t *testing.T) {
		owner := fakeOwner()
		c := fake.NewClientBuilder().WithScheme(fakeScheme(t)).WithObjects(owner).
			WithStatusSubresource(&platformv1alpha1.Proxy{}, &platformv1alpha1.Project{}).Build()
		cache := ensure.NewClient(c)
		obj, res, err := gen.EnsureProxy(ctx, cache, owner, proxy("default", 2))
		if err != nil || res != ensure.Created || *obj.Spec.Replicas != 2 || !isController(obj, owner) {
			t.Fatalf("ensure proxy: %v %v %+v", res, err, obj)
		}
		if _, res, err := gen.EnsureProxy(ctx, cache, owner, proxy("default", 2)); err != nil || res != ensure.Skipped {
			t.Fatalf("second ensure: %v %v", res, err)
		}
		st := ac.Proxy("edge", "default").WithStatus(ac.ProxyStatus().WithAddresses("192.0.2.1"))
		obj, res, err = gen.EnsureProxyStatus(ctx, cache, st)
		// v0.22's fake client also answers a status apply with the status
		// alone.
		if err != nil || !configured(t, res) || len(obj.Status.Addresses) != 1 || (obj.Spec.Replicas == nil && fakeVersionsApplies(t)) {
			t.Fatalf("status ensure: %v %v %+v", res, err, obj)
		}
		var live platformv1alpha1.Proxy
		if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "edge"}, &live); err != nil || len(live.Status.Addresses) != 1 || live.Status.Addresses[0] != "192.0.2.1" {
			t.Fatalf("stored status %+v %v", live.Status, err)
		}
		if _, res, err := gen.EnsureProxyStatus(ctx, cache, st); err != nil || res != ensure.Skipped {
			t.Fatalf("second status ensure: %v %v", res, err)
		}
		// Cluster-scoped custom resource, no REST mapping: no namespace, cluster-scoped.
		prj, res, err := gen.EnsureProject(ctx, cache, owner, ac.Project("p1-child").WithSpec(ac.ProjectSpec().WithNamespaces("a")))
		if err != nil || res != ensure.Created || prj.Namespace != "" {
			t.Fatalf("cluster-scoped child: %v %v %+v", res, err, prj.ObjectMeta)
		}
		if _, _, err := gen.EnsureProxyStatus(ctx, cache, ac.Proxy("absent", "default").WithStatus(ac.ProxyStatus().WithAddresses("x"))); !errors.As(err, new(*ensure.NotFoundError)) {
			t.Fatalf("status of a missing object: %v", err)
		}
	})

	t.Run("scope without a REST mapping: namespaced iff the object has a namespace", func(t *testing.T) {
		nsOwner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "team", UID: "uid-cm"}}
		c := fake.NewClientBuilder().WithScheme(fakeScheme(t)).WithObjects(nsOwner).Build()
		var oe *ensure.OwnerError
		_, _, err := rbacv1ensure.EnsureClusterRole(ctx, c, nsOwner, rbacv1ac.ClusterRole("x"))
		if !errors.As(err, &oe) || !errors.Is(err, ensure.ErrClusterScopedChild) {
			t.Fatalf("namespaced owner of an object without namespace: %v", err)
		}
		_, _, err = corev1ensure.EnsureConfigMap(ctx, c, nsOwner, corev1ac.ConfigMap("x", "other"))
		if !errors.As(err, &oe) || !errors.Is(err, ensure.ErrCrossNamespace) {
			t.Fatalf("owner in another namespace: %v", err)
		}
		if _, res, err := corev1ensure.EnsureConfigMap(ctx, c, nsOwner, corev1ac.ConfigMap("x", "team")); err != nil || res != ensure.Created {
			t.Fatalf("same namespace: %v %v", res, err)
		}
	})

	t.Run("with a REST mapper: its scope wins, no panic", func(t *testing.T) {
		mapper := meta.NewDefaultRESTMapper(nil)
		mapper.Add(corev1.SchemeGroupVersion.WithKind("Service"), meta.RESTScopeNamespace)
		mapper.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
		// A namespaced owner, and a kind the mapper says is cluster-scoped
		// though the intent (wrongly) names a namespace.
		mapper.Add(rbacv1.SchemeGroupVersion.WithKind("ClusterRole"), meta.RESTScopeRoot)
		owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "default", UID: "uid-cm"}}
		c := fake.NewClientBuilder().WithScheme(fakeScheme(t)).WithRESTMapper(mapper).WithObjects(owner).Build()
		obj, res, err := corev1ensure.EnsureService(ctx, c, owner, svc(port("http", 80)))
		if err != nil || res != ensure.Created || !isController(obj, owner) {
			t.Fatalf("service: %v %v", res, err)
		}
		_, _, err = rbacv1ensure.EnsureClusterRole(ctx, c, owner, rbacv1ac.ClusterRole("x").WithNamespace("default"))
		var oe *ensure.OwnerError
		if !errors.As(err, &oe) {
			t.Fatalf("the mapper says ClusterRole is cluster-scoped: want an OwnerError, got %v", err)
		}
	})

	t.Run("list-map items of another manager survive, with the generated type converter", func(t *testing.T) {
		s := fakeScheme(t)
		owner := fakeOwner()
		c := fake.NewClientBuilder().WithScheme(s).WithObjects(owner).
			WithTypeConverters(applyconfiguration.NewTypeConverter(s)).Build()
		cache := ensure.NewClient(c)
		if _, _, err := gen.EnsureProxy(ctx, cache, owner, proxy("default", 2)); err != nil {
			t.Fatal(err)
		}
		other := ac.Proxy("edge", "default").WithSpec(ac.ProxySpec().
			WithListeners(ac.Listener().WithName("http").WithPort(80).WithHostnames("other.example.com"),
				ac.Listener().WithName("admin").WithPort(9000)))
		if err := c.Apply(ctx, other, client.FieldOwner("routes"), client.ForceOwnership); err != nil {
			t.Fatal(err)
		}
		obj, res, err := gen.EnsureProxy(ctx, cache, owner, proxy("default", 3))
		if err != nil || res != ensure.Configured {
			t.Fatalf("ensure: %v %v", res, err)
		}
		if len(obj.Spec.Listeners) != 2 || len(obj.Spec.Listeners[0].Hostnames) != 2 || *obj.Spec.Replicas != 3 {
			t.Fatalf("listeners after our apply: %+v", obj.Spec.Listeners)
		}
		// And the intent, with their items in the live object, is a skip.
		if _, res, err := gen.EnsureProxy(ctx, cache, owner, proxy("default", 3)); err != nil || res != ensure.Skipped {
			t.Fatalf("unchanged intent: %v %v", res, err)
		}

		// A built-in kind: another manager's Service port survives.
		if _, _, err := corev1ensure.EnsureService(ctx, cache, owner, svc(port("http", 80))); err != nil {
			t.Fatal(err)
		}
		if err := c.Apply(ctx, corev1ac.Service("web", "default").WithSpec(corev1ac.ServiceSpec().WithPorts(port("metrics", 9090))),
			client.FieldOwner("monitoring"), client.ForceOwnership); err != nil {
			t.Fatal(err)
		}
		svcObj, _, err := corev1ensure.EnsureService(ctx, cache, owner, svc(port("http", 81)))
		if err != nil || len(svcObj.Spec.Ports) != 2 {
			t.Fatalf("ports after our apply: %+v %v", svcObj.Spec.Ports, err)
		}
	})

	t.Run("without a type converter for the custom resource, lists are atomic", func(t *testing.T) {
		// Why the recipe passes NewTypeConverter: the fake client's
		// default deduces the schema of custom resources, and an apply
		// replaces a whole list, unlike the API server.
		owner := fakeOwner()
		c := fake.NewClientBuilder().WithScheme(fakeScheme(t)).WithObjects(owner).Build()
		cache := ensure.NewClient(c)
		if _, _, err := gen.EnsureProxy(ctx, cache, owner, proxy("default", 2)); err != nil {
			t.Fatal(err)
		}
		other := ac.Proxy("edge", "default").WithSpec(ac.ProxySpec().WithListeners(ac.Listener().WithName("admin").WithPort(9000)))
		if err := c.Apply(ctx, other, client.FieldOwner("routes"), client.ForceOwnership); err != nil {
			t.Fatal(err)
		}
		obj, _, err := gen.EnsureProxy(ctx, cache, owner, proxy("default", 3))
		if err != nil {
			t.Fatal(err)
		}
		if len(obj.Spec.Listeners) != 1 {
			t.Fatalf("the deduced schema merged the list (%+v): this test's premise changed; keep the recipe's type converter anyway", obj.Spec.Listeners)
		}
	})

	t.Run("interceptor and wrapper clients: the answer fills the object", func(t *testing.T) {
		// Ensure writes with an apply patch (Patch, or Status().Patch,
		// with types.ApplyPatchType): the one write whose answer every
		// client hands back in the object it is given.
		owner := fakeOwner()
		var applies atomic.Int64
		passThrough := fake.NewClientBuilder().WithScheme(fakeScheme(t)).WithObjects(owner).
			WithInterceptorFuncs(interceptor.Funcs{Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				if patch.Type() == types.ApplyPatchType {
					applies.Add(1)
				}
				return c.Patch(ctx, obj, patch, opts...)
			}}).Build()
		wrapped := &countingClient{Client: fake.NewClientBuilder().WithScheme(fakeScheme(t)).WithObjects(owner).Build(), applies: &applies}
		for name, c := range map[string]client.Client{"interceptor": passThrough, "wrapper": wrapped} {
			cache := ensure.NewClient(c)
			obj, res, err := corev1ensure.EnsureService(ctx, cache, owner, svc(port("http", 80)))
			if err != nil || res != ensure.Created || obj.Spec.Ports[0].Port != 80 || (obj.ResourceVersion == "" && fakeVersionsApplies(t)) || !isController(obj, owner) {
				t.Fatalf("%s: %v %v %+v", name, res, err, obj)
			}
			obj, res, err = corev1ensure.EnsureService(ctx, cache, owner, svc(port("http", 81)))
			if err != nil || res != ensure.Configured || obj.Spec.Ports[0].Port != 81 {
				t.Fatalf("%s, changed: %v %v %+v", name, res, err, obj.Spec.Ports)
			}
			if _, res, err := corev1ensure.EnsureService(ctx, cache, owner, svc(port("http", 81))); err != nil || res != ensure.Skipped {
				t.Fatalf("%s, unchanged: %v %v", name, res, err)
			}
		}
		if n := applies.Load(); n != 4 {
			t.Fatalf("%d apply patches through the interceptor and the wrapper, want 4", n)
		}
	})

	t.Run("predicates on the fake client's managedFields", func(t *testing.T) {
		owner := fakeOwner()
		c := fake.NewClientBuilder().WithScheme(fakeScheme(t)).WithObjects(owner).WithReturnManagedFields().Build()
		cache := ensure.NewClient(c, ensure.FieldManager("unit"))
		before, _, err := corev1ensure.EnsureService(ctx, cache, owner, svc(port("http", 80)))
		if err != nil {
			t.Fatal(err)
		}
		pred := corev1ensure.OwnedServiceChanges(cache)
		// Another manager's status: dropped.
		st := corev1ac.Service("web", "default").WithStatus(corev1ac.ServiceStatus().
			WithLoadBalancer(corev1ac.LoadBalancerStatus().WithIngress(corev1ac.LoadBalancerIngress().WithIP("192.0.2.7"))))
		if err := testenv.ApplyStatus(ctx, c, st, "cloud"); err != nil {
			t.Fatal(err)
		}
		var after corev1.Service
		if err := c.Get(ctx, client.ObjectKeyFromObject(before), &after); err != nil || len(after.Status.LoadBalancer.Ingress) != 1 {
			t.Fatalf("status write: %v %+v", err, after.Status)
		}
		if pred.Update(event.UpdateEvent{ObjectOld: before, ObjectNew: &after}) {
			t.Error("another manager's status write passed the predicate")
		}
		// Another manager's label: dropped.
		if err := c.Patch(ctx, after.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"x"}}}`)), client.FieldOwner("labeller")); err != nil {
			t.Fatal(err)
		}
		var labelled corev1.Service
		c.Get(ctx, client.ObjectKeyFromObject(before), &labelled)
		if pred.Update(event.UpdateEvent{ObjectOld: &after, ObjectNew: &labelled}) {
			t.Error("another manager's label passed the predicate")
		}
		// Our selector taken over by force: passes.
		if err := c.Apply(ctx, corev1ac.Service("web", "default").WithSpec(corev1ac.ServiceSpec().WithSelector(map[string]string{"app": "other"})),
			client.FieldOwner("intruder"), client.ForceOwnership); err != nil {
			t.Fatal(err)
		}
		var changed corev1.Service
		c.Get(ctx, client.ObjectKeyFromObject(before), &changed)
		if !pred.Update(event.UpdateEvent{ObjectOld: &labelled, ObjectNew: &changed}) {
			t.Error("a change to the selector we applied was dropped")
		}
		// And Ensure puts it back, through the fake's managedFields.
		obj, res, err := corev1ensure.EnsureService(ctx, cache, owner, svc(port("http", 80)), ensure.FieldManager("unit"))
		if err != nil || !configured(t, res) || obj.Spec.Selector["app"] != "web" {
			t.Fatalf("restore: %v %v %+v", res, err, obj.Spec.Selector)
		}
	})
}
