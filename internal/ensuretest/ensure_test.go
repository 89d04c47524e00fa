package ensure_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	ac "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1"
	gen "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1/ensure"
	corev1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
	rbacv1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"
	"github.com/ssagen/ssagen/internal/testenv"
	rbacv1 "k8s.io/api/rbac/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
)

type env struct {
	cfg     *rest.Config  // counted
	c       client.Client // reads from the informer cache, counted
	reader  client.Reader // reads from the API server, counted
	direct  client.Client // another writer, not counted
	counter *testenv.Counter
	owner   *platformv1alpha1.Project
}

// stripMode runs the suite with an informer cache that strips
// managedFields (cache.TransformStripManagedFields, what operators set to
// save memory) and clients given an APIReader, as such an operator's are
// (ENSURE_STRIP=1, which make test-matrix sets: issue 50). Every count the
// suite asserts holds in both modes, but where a test says otherwise.
var stripMode = os.Getenv("ENSURE_STRIP") != ""

// client is the test's ensure.Client on the informer cache: with an
// APIReader in strip mode.
func (e *env) client(opts ...ensure.ClientOption) *ensure.Client {
	return e.clientOf(e.c, opts...)
}

// clientOf is client on c.
func (e *env) clientOf(c client.Client, opts ...ensure.ClientOption) *ensure.Client {
	if stripMode {
		opts = append(opts, ensure.APIReader(e.reader))
	}
	return ensure.NewClient(c, opts...)
}

// looks runs look, a reconcile of unchanged intents, in strip mode only,
// once the cache shows obj (read again from the API server) as it is: the
// reconcile an operator's watch triggers after each write of its child. A
// cache without managedFields tells a write of ownership alone (a reset)
// from others' writes by comparing with what the last reconcile saw, so
// a reset that comes together with another writer's change, both between
// two reconciles, is seen only at the next apply (docs/ensure.md).
func (e *env) looks(t *testing.T, ctx context.Context, obj client.Object, look func()) {
	t.Helper()
	if !stripMode {
		return
	}
	if err := e.direct.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatal(err)
	}
	e.synced(t, ctx, obj)
	look()
}

// firstSight takes from got, the requests since a mark, the GETs a
// client sends in strip mode on its first sight of n objects (their
// ownership, from the APIReader): exactly n, or got is left as it is for
// the test to report.
func firstSight(got map[string]int, n int) map[string]int {
	if stripMode && got["GET 200"] == n {
		delete(got, "GET 200")
	}
	return got
}

// setup starts the test's own API server and clients, and runs the test
// in parallel with the package's others that do: nothing is shared but
// the process (each counts its own requests, and the metrics a test reads
// are labelled with its own client's name). A test that measures the
// process itself (its heap) or needs a second server calls start.
func setup(t *testing.T) (*env, context.Context) {
	t.Parallel()
	return start(t)
}

// start is setup without running in parallel.
func start(t *testing.T) (*env, context.Context) {
	cfg := testenv.Start(t)
	scheme := runtime.NewScheme()
	clientgoscheme.AddToScheme(scheme)
	platformv1alpha1.AddToScheme(scheme)
	counted, counter := testenv.Count(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	opts := cache.Options{Scheme: scheme}
	if stripMode {
		opts.DefaultTransform = cache.TransformStripManagedFields()
	}
	informers, err := cache.New(counted, opts)
	if err != nil {
		t.Fatal(err)
	}
	go informers.Start(ctx)
	c, err := client.New(counted, client.Options{Scheme: scheme, Cache: &client.CacheOptions{Reader: informers}})
	if err != nil {
		t.Fatal(err)
	}
	reader, err := client.New(counted, client.Options{Scheme: scheme, Mapper: c.RESTMapper()})
	if err != nil {
		t.Fatal(err)
	}
	direct, err := client.New(rest.CopyConfig(cfg), client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	owner := &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: "p1"}}
	if err := direct.Create(ctx, owner); err != nil {
		t.Fatal(err)
	}
	return &env{cfg: counted, c: c, reader: reader, direct: direct, counter: counter, owner: owner}, ctx
}

// synced waits until the cache shows obj at its resourceVersion.
func (e *env) synced(t *testing.T, ctx context.Context, obj client.Object) {
	t.Helper()
	key := client.ObjectKeyFromObject(obj)
	for i := 0; i < 200; i++ {
		cur := obj.DeepCopyObject().(client.Object)
		if err := e.c.Get(ctx, key, cur); err == nil && cur.GetResourceVersion() == obj.GetResourceVersion() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("cache never showed %s at resourceVersion %s", key, obj.GetResourceVersion())
}

func proxy(ns string, replicas int32) *ac.ProxyApplyConfiguration {
	return ac.Proxy("edge", ns).WithSpec(ac.ProxySpec().WithReplicas(replicas).
		WithListeners(ac.Listener().WithName("http").WithPort(80).WithHostnames("a.example.com")))
}

func TestEnsure(t *testing.T) {
	e, ctx := setup(t)

	t.Run("steady state sends no request", func(t *testing.T) {
		cache := e.client()
		desired := proxy("default", 2)
		obj, res, err := gen.EnsureProxy(ctx, cache, e.owner, desired, ensure.FieldManager("proxy-controller"))
		if err != nil || res != ensure.Created {
			t.Fatalf("first ensure: %v %v", res, err)
		}
		e.synced(t, ctx, obj)
		before := e.counter.Snapshot()
		for i := 0; i < 20; i++ {
			_, res, err := gen.EnsureProxy(ctx, cache, e.owner, proxy("default", 2), ensure.FieldManager("proxy-controller"))
			if err != nil || res != ensure.Skipped {
				t.Fatalf("reconcile %d: %v %v", i, res, err)
			}
		}
		if got := e.counter.Since(before); len(got) != 0 {
			t.Fatalf("20 unchanged reconciles sent requests: %s", testenv.String(got))
		}
		// A new intent is applied at once, with one request.
		_, res, err = gen.EnsureProxy(ctx, cache, e.owner, proxy("default", 3), ensure.FieldManager("proxy-controller"))
		if err != nil || res != ensure.Configured {
			t.Fatalf("changed intent: %v %v", res, err)
		}
		if got := e.counter.Since(before); testenv.Total(got, "PATCH") != 1 || testenv.Total(got, "") != 1 {
			t.Fatalf("a changed intent took %s, want one PATCH", testenv.String(got))
		}
		// The caller's configuration is untouched.
		b, _ := json.Marshal(desired)
		if want := `{"kind":"Proxy","apiVersion":"platform.ssagen.dev/v1alpha1","metadata":{"name":"edge","namespace":"default"},"spec":{"listeners":[{"name":"http","port":80,"hostnames":["a.example.com"]}],"replicas":2}}`; string(b) != want {
			t.Fatalf("desired was modified: %s", b)
		}
	})

	t.Run("seed 000: a project's RBAC, resynced", func(t *testing.T) {
		cache := e.client()
		reconcile := func() int {
			var writes int
			for _, step := range []func() (client.Object, ensure.Result, error){
				func() (client.Object, ensure.Result, error) {
					return rbacv1ensure.EnsureRole(ctx, cache, e.owner, rbacv1ac.Role("p1-member", "default").
						WithRules(rbacv1ac.PolicyRule().WithAPIGroups("").WithResources("pods").WithVerbs("get", "list")))
				},
				func() (client.Object, ensure.Result, error) {
					return rbacv1ensure.EnsureRoleBinding(ctx, cache, e.owner, rbacv1ac.RoleBinding("p1-member", "default").
						WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup("rbac.authorization.k8s.io").WithKind("Role").WithName("p1-member")).
						WithSubjects(rbacv1ac.Subject().WithKind("User").WithName("alice")))
				},
				func() (client.Object, ensure.Result, error) {
					return corev1ensure.EnsureServiceAccount(ctx, cache, e.owner, corev1ac.ServiceAccount("p1", "default"))
				},
				func() (client.Object, ensure.Result, error) {
					return rbacv1ensure.EnsureClusterRole(ctx, cache, e.owner, rbacv1ac.ClusterRole("p1-admin").
						WithRules(rbacv1ac.PolicyRule().WithAPIGroups("platform.ssagen.dev").WithResources("projects").WithVerbs("get")))
				},
				func() (client.Object, ensure.Result, error) {
					return rbacv1ensure.EnsureClusterRoleBinding(ctx, cache, e.owner, rbacv1ac.ClusterRoleBinding("p1-admin").
						WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup("rbac.authorization.k8s.io").WithKind("ClusterRole").WithName("p1-admin")).
						WithSubjects(rbacv1ac.Subject().WithKind("User").WithName("alice")))
				},
			} {
				obj, res, err := step()
				if err != nil {
					t.Fatal(err)
				}
				if res != ensure.Skipped {
					writes++
				}
				e.synced(t, ctx, obj)
			}
			return writes
		}
		if n := reconcile(); n != 5 {
			t.Fatalf("first reconcile applied %d objects, want 5", n)
		}
		before := e.counter.Snapshot()
		for i := 0; i < 10; i++ {
			if n := reconcile(); n != 0 {
				t.Fatalf("resync %d applied %d objects", i, n)
			}
		}
		if got := e.counter.Since(before); len(got) != 0 {
			t.Fatalf("10 resyncs of 5 children sent %s, want nothing", testenv.String(got))
		}

		// The pattern it replaces, for the record: Create → AlreadyExists → Update.
		before = e.counter.Snapshot()
		for i := 0; i < 10; i++ {
			role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "legacy", Namespace: "default"},
				Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}}
			if err := e.c.Create(ctx, role); apierrors.IsAlreadyExists(err) {
				// The informer may not show the Role the first Create made
				// yet: a cached Get, as a reconciler's, waits for it.
				var live rbacv1.Role
				for j := 0; ; j++ {
					err := e.c.Get(ctx, client.ObjectKeyFromObject(role), &live)
					if err == nil {
						break
					}
					if !apierrors.IsNotFound(err) || j == 500 {
						t.Fatal(err)
					}
					time.Sleep(10 * time.Millisecond)
				}
				live.Rules = role.Rules
				if err := e.c.Update(ctx, &live); err != nil && !apierrors.IsConflict(err) {
					t.Fatal(err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
		}
		got := e.counter.Since(before)
		if testenv.Total(got, "POST 409") != 9 {
			t.Fatalf("Create→AlreadyExists→Update: %s, want 9 409s in 10 reconciles", testenv.String(got))
		}
		t.Logf("Create→AlreadyExists→Update, 10 reconciles of one Role: %s; EnsureX, 10 resyncs of 5 children: none", testenv.String(got))
	})

	t.Run("owner reference as garbage collection needs it", func(t *testing.T) {
		var live platformv1alpha1.Proxy
		if err := e.direct.Get(ctx, client.ObjectKey{Namespace: "default", Name: "edge"}, &live); err != nil {
			t.Fatal(err)
		}
		refs := live.OwnerReferences
		if len(refs) != 1 || refs[0].UID != e.owner.UID || refs[0].Kind != "Project" || refs[0].APIVersion != "platform.ssagen.dev/v1alpha1" ||
			refs[0].Name != "p1" || refs[0].Controller == nil || !*refs[0].Controller || refs[0].BlockOwnerDeletion == nil || !*refs[0].BlockOwnerDeletion {
			t.Fatalf("owner references %+v", refs)
		}
	})

	t.Run("16 concurrent reconcilers: no 409", func(t *testing.T) {
		before := e.counter.Snapshot()
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for i := 0; i < 16; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				desired := ac.Proxy("busy", "default").WithSpec(ac.ProxySpec().WithReplicas(4).
					WithListeners(ac.Listener().WithName("http").WithPort(80)))
				if _, _, err := gen.EnsureProxy(ctx, e.c, e.owner, desired); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		got := e.counter.Since(before)
		if n := testenv.Total(got, "PATCH 409", "POST 409", "PUT 409"); n != 0 {
			t.Fatalf("%d conflicts: %s", n, testenv.String(got))
		}
		var live platformv1alpha1.Proxy
		e.direct.Get(ctx, client.ObjectKey{Namespace: "default", Name: "busy"}, &live)
		if live.Spec.Replicas == nil || *live.Spec.Replicas != 4 {
			t.Fatalf("final object %+v", live.Spec)
		}
		t.Logf("16 concurrent ensures: %s", testenv.String(got))
	})

	t.Run("another manager's field: forced restores, unforced is a typed conflict", func(t *testing.T) {
		cache := e.client()
		if _, _, err := gen.EnsureProxy(ctx, cache, e.owner, proxy("default", 2)); err != nil {
			t.Fatal(err)
		}
		other := ac.Proxy("edge", "default").WithSpec(ac.ProxySpec().WithReplicas(5))
		if err := e.direct.Apply(ctx, other, client.FieldOwner("autoscaler"), client.ForceOwnership); err != nil {
			t.Fatal(err)
		}
		// The informer must show the takeover: a fresh skip cache decides
		// from the cached copy's managedFields, as after a restart.
		var taken platformv1alpha1.Proxy
		if err := e.direct.Get(ctx, client.ObjectKey{Namespace: "default", Name: "edge"}, &taken); err != nil {
			t.Fatal(err)
		}
		e.synced(t, ctx, &taken)
		_, _, err := gen.EnsureProxy(ctx, e.c, e.owner, proxy("default", 2), ensure.NoForce())
		var conflict *ensure.ConflictError
		if !errors.As(err, &conflict) || len(conflict.Fields) != 1 || conflict.Fields[0].Field != ".spec.replicas" || conflict.Fields[0].Manager != "autoscaler" ||
			conflict.Fields[0].Update || conflict.Fields[0].Subresource != "" {
			t.Fatalf("want a ConflictError naming .spec.replicas and autoscaler (an apply, main resource), got %v %+v", err, conflict)
		}
		if !apierrors.IsConflict(errors.Unwrap(err)) {
			t.Fatalf("the API server's 409 is not wrapped: %v", err)
		}
		obj, _, err := gen.EnsureProxy(ctx, e.c, e.owner, proxy("default", 2))
		if err != nil || *obj.Spec.Replicas != 2 {
			t.Fatalf("forced ensure: %v %v", obj.Spec.Replicas, err)
		}
	})

	t.Run("another manager's list-map item and set value survive", func(t *testing.T) {
		other := ac.Proxy("edge", "default").WithSpec(ac.ProxySpec().
			WithListeners(ac.Listener().WithName("http").WithPort(80).WithHostnames("other.example.com"),
				ac.Listener().WithName("admin").WithPort(9000)))
		if err := e.direct.Apply(ctx, other, client.FieldOwner("routes"), client.ForceOwnership); err != nil {
			t.Fatal(err)
		}
		obj, _, err := gen.EnsureProxy(ctx, e.c, e.owner, proxy("default", 6))
		if err != nil {
			t.Fatal(err)
		}
		if len(obj.Spec.Listeners) != 2 || len(obj.Spec.Listeners[0].Hostnames) != 2 {
			t.Fatalf("listeners after our apply: %+v", obj.Spec.Listeners)
		}
	})

	t.Run("status churn by another writer: no apply from us", func(t *testing.T) {
		cache := e.client()
		obj, _, err := gen.EnsureProxy(ctx, cache, e.owner, proxy("default", 6))
		if err != nil {
			t.Fatal(err)
		}
		e.synced(t, ctx, obj)
		before := e.counter.Snapshot()
		for i := 0; i < 5; i++ {
			st := ac.Proxy("edge", "default").WithStatus(ac.ProxyStatus().WithAddresses(fmt.Sprintf("10.0.0.%d", i)))
			if err := testenv.ApplyStatus(ctx, e.direct, st, "kubelet-like"); err != nil {
				t.Fatal(err)
			}
			var live platformv1alpha1.Proxy
			e.direct.Get(ctx, client.ObjectKeyFromObject(obj), &live)
			e.synced(t, ctx, &live)
			_, res, err := gen.EnsureProxy(ctx, cache, e.owner, proxy("default", 6))
			if err != nil || res != ensure.Skipped {
				t.Fatalf("after status change %d: %v %v", i, res, err)
			}
		}
		if got := e.counter.Since(before); len(got) != 0 {
			t.Fatalf("status churn made us send %s", testenv.String(got))
		}
	})

	t.Run("status of an object that does not exist", func(t *testing.T) {
		_, _, err := gen.EnsureProxyStatus(ctx, e.c, ac.Proxy("absent", "default").WithStatus(ac.ProxyStatus().WithAddresses("x")))
		var nf *ensure.NotFoundError
		if !errors.As(err, &nf) {
			t.Fatalf("want NotFoundError, got %v", err)
		}
	})

	t.Run("status apply", func(t *testing.T) {
		st := ac.Proxy("edge", "default").WithStatus(ac.ProxyStatus().WithAddresses("192.0.2.1"))
		obj, res, err := gen.EnsureProxyStatus(ctx, e.c, st)
		if err != nil || res != ensure.Configured || len(obj.Status.Addresses) != 1 {
			t.Fatalf("status ensure: %v %v %+v", res, err, obj.Status)
		}
	})

	t.Run("owner errors", func(t *testing.T) {
		nsOwner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "kube-system"}}
		if err := e.direct.Create(ctx, nsOwner); err != nil {
			t.Fatal(err)
		}
		var oe *ensure.OwnerError
		_, _, err := gen.EnsureProxy(ctx, e.c, nsOwner, proxy("default", 1))
		if !errors.As(err, &oe) || !errors.Is(err, ensure.ErrCrossNamespace) {
			t.Fatalf("cross-namespace owner: %v", err)
		}
		_, _, err = gen.EnsureProject(ctx, e.c, nsOwner, ac.Project("p2"))
		if !errors.As(err, &oe) || !errors.Is(err, ensure.ErrClusterScopedChild) {
			t.Fatalf("namespaced owner of a cluster-scoped object: %v", err)
		}
		other := &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: "p-other"}}
		if err := e.direct.Create(ctx, other); err != nil {
			t.Fatal(err)
		}
		_, _, err = gen.EnsureProxy(ctx, e.c, other, proxy("default", 2))
		if !errors.As(err, &oe) || !errors.Is(err, ensure.ErrAlreadyControlled) {
			t.Fatalf("object controlled by another owner: %v", err)
		}
	})

	t.Run("create-only: one create, then nothing", func(t *testing.T) {
		sa := corev1ac.ServiceAccount("robot", "default").WithAnnotations(map[string]string{"team": "a"})
		obj := &corev1.ServiceAccount{}
		res, err := ensure.Apply(ctx, e.c, e.owner, sa, obj, ensure.CreateOnly())
		if err != nil || res != ensure.Created {
			t.Fatalf("create: %v %v", res, err)
		}
		e.synced(t, ctx, obj)
		// A user annotates it; create-only never writes it again.
		obj.Annotations["team"] = "b"
		if err := e.direct.Update(ctx, obj); err != nil {
			t.Fatal(err)
		}
		e.synced(t, ctx, obj)
		before := e.counter.Snapshot()
		for i := 0; i < 5; i++ {
			res, err := ensure.Apply(ctx, e.c, e.owner, sa, &corev1.ServiceAccount{}, ensure.CreateOnly())
			if err != nil || res != ensure.Skipped {
				t.Fatalf("create-only again: %v %v", res, err)
			}
		}
		if got := e.counter.Since(before); len(got) != 0 {
			t.Fatalf("create-only sent %s", testenv.String(got))
		}
	})

	t.Run("a field we stop setting disappears, also after migrating from Update", func(t *testing.T) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "legacy", Namespace: "default"}, Data: map[string]string{"a": "1", "b": "2"}}
		// Written with Update by this controller, before it used apply.
		if err := e.direct.Create(ctx, cm, client.FieldOwner(ensure.DefaultFieldManager)); err != nil {
			t.Fatal(err)
		}
		desired := corev1ac.ConfigMap("legacy", "default").WithData(map[string]string{"a": "1"})
		obj := &corev1.ConfigMap{}
		if _, err := ensure.Apply(ctx, e.c, e.owner, desired, obj); err != nil {
			t.Fatal(err)
		}
		if _, ok := obj.Data["b"]; ok {
			t.Fatalf("field written with Update by the former manager survived migration: %v", obj.Data)
		}
		desired = corev1ac.ConfigMap("legacy", "default").WithData(map[string]string{"c": "3"})
		if _, err := ensure.Apply(ctx, e.c, e.owner, desired, obj); err != nil {
			t.Fatal(err)
		}
		if len(obj.Data) != 1 || obj.Data["c"] != "3" {
			t.Fatalf("a field we stopped setting stayed: %v", obj.Data)
		}
	})
}

// TestPredicate: a pod's status walking through its phases (another writer)
// must not requeue the owner; a change to a field we own must.
func TestPredicate(t *testing.T) {
	e, ctx := setup(t)
	pod := corev1ac.Pod("sandbox-0", "default").WithSpec(corev1ac.PodSpec().
		WithContainers(corev1ac.Container().WithName("main").WithImage("busybox:1")))
	c := e.client(ensure.FieldManager("sandbox-controller"))
	obj, _, err := corev1ensure.EnsurePod(ctx, c, e.owner, pod)
	if err != nil {
		t.Fatal(err)
	}
	pred := corev1ensure.OwnedPodChanges(c)
	prev := obj.DeepCopy()
	dropped := 0
	for _, phase := range []corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded} {
		st := corev1ac.Pod("sandbox-0", "default").WithStatus(corev1ac.PodStatus().WithPhase(phase).
			WithConditions(corev1ac.PodCondition().WithType(corev1.PodReady).WithStatus(corev1.ConditionTrue)))
		if err := testenv.ApplyStatus(ctx, e.direct, st, "kubelet"); err != nil {
			t.Fatal(err)
		}
		var cur corev1.Pod
		if err := e.direct.Get(ctx, client.ObjectKeyFromObject(obj), &cur); err != nil {
			t.Fatal(err)
		}
		if pred.Update(event.UpdateEvent{ObjectOld: prev, ObjectNew: &cur}) {
			t.Errorf("phase %s requeued the owner", phase)
		} else {
			dropped++
		}
		prev = cur.DeepCopy()
	}
	other := corev1ac.Pod("sandbox-0", "default").WithSpec(corev1ac.PodSpec().
		WithContainers(corev1ac.Container().WithName("main").WithImage("busybox:2")))
	if err := e.direct.Apply(ctx, other, client.FieldOwner("intruder"), client.ForceOwnership); err != nil {
		t.Fatal(err)
	}
	var cur corev1.Pod
	e.direct.Get(ctx, client.ObjectKeyFromObject(obj), &cur)
	// The intruder took the image by force: it left our set, but changed.
	if !pred.Update(event.UpdateEvent{ObjectOld: prev, ObjectNew: &cur}) {
		t.Errorf("a change to the image we applied was dropped")
	}
	t.Logf("%d status transitions dropped, the image change passed", dropped)
}

// TestFieldsChangedOnAPIServer: a pod created with Create, so no apply
// entry says what is ours; the kubelet writes its status. FieldsChanged
// listing what a reconciler reads (the phase; the conditions' types and
// statuses) passes the writes that change those and drops the others —
// a host IP, a probe time — on objects as the API server returns them.
func TestFieldsChangedOnAPIServer(t *testing.T) {
	e, ctx := setup(t)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "created-0", Namespace: "default"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox:1"}}},
	}
	if err := e.direct.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	pred := ensure.FieldsChanged(func(p *corev1.Pod) any {
		return []any{p.Status.Phase, ensure.Each(p.Status.Conditions, func(c corev1.PodCondition) any { return []any{c.Status, c.Type} })}
	})
	ready := func(status corev1.ConditionStatus, probed int64) *corev1ac.PodConditionApplyConfiguration {
		return corev1ac.PodCondition().WithType(corev1.PodReady).WithStatus(status).WithLastProbeTime(metav1.Unix(probed, 0))
	}
	steps := []struct {
		what   string
		status *corev1ac.PodStatusApplyConfiguration
		passes bool
	}{
		// The API server created the pod Pending already.
		{"host IP", corev1ac.PodStatus().WithPhase(corev1.PodPending).WithHostIP("10.0.0.1"), false},
		{"another host IP", corev1ac.PodStatus().WithPhase(corev1.PodPending).WithHostIP("10.0.0.2"), false},
		{"running", corev1ac.PodStatus().WithPhase(corev1.PodRunning).WithConditions(ready(corev1.ConditionFalse, 1)), true},
		{"probed", corev1ac.PodStatus().WithPhase(corev1.PodRunning).WithConditions(ready(corev1.ConditionFalse, 2)), false},
		{"ready", corev1ac.PodStatus().WithPhase(corev1.PodRunning).WithConditions(ready(corev1.ConditionTrue, 3)), true},
	}
	prev := pod.DeepCopy()
	passed := 0
	for _, s := range steps {
		if err := testenv.ApplyStatus(ctx, e.direct, corev1ac.Pod("created-0", "default").WithStatus(s.status), "kubelet"); err != nil {
			t.Fatal(err)
		}
		var cur corev1.Pod
		if err := e.direct.Get(ctx, client.ObjectKeyFromObject(pod), &cur); err != nil {
			t.Fatal(err)
		}
		if got := pred.Update(event.UpdateEvent{ObjectOld: prev, ObjectNew: &cur}); got != s.passes {
			t.Errorf("%s: passed = %v, want %v", s.what, got, s.passes)
		} else if got {
			passed++
		}
		prev = cur.DeepCopy()
	}
	if passed != 2 {
		t.Errorf("%d of %d status writes passed, want 2", passed, len(steps))
	}
}
