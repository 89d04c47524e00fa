package ensure_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	ac "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1"
	corev1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
	"github.com/ssagen/ssagen/internal/testenv"
)

// strippedEnv is env with an informer cache that strips managedFields
// (cache.TransformStripManagedFields, what operators set to save memory),
// and a counted reader of the API server itself.
func strippedEnv(t *testing.T, e *env, ctx context.Context) (client.Client, *countingReader) {
	t.Helper()
	scheme := runtime.NewScheme()
	clientgoscheme.AddToScheme(scheme)
	platformv1alpha1.AddToScheme(scheme)
	informers, err := cache.New(e.cfg, cache.Options{Scheme: scheme, DefaultTransform: cache.TransformStripManagedFields()})
	if err != nil {
		t.Fatal(err)
	}
	go informers.Start(ctx)
	c, err := client.New(e.cfg, client.Options{Scheme: scheme, Cache: &client.CacheOptions{Reader: informers}})
	if err != nil {
		t.Fatal(err)
	}
	reader, err := client.New(e.cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c, &countingReader{Reader: reader}
}

// countingReader counts the objects read from the API server.
type countingReader struct {
	client.Reader
	gets int
}

func (r *countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.gets++
	return r.Reader.Get(ctx, key, obj, opts...)
}

// TestStrippedCache: issue 50's caches without managedFields. With
// APIReader, the first sight of an object reads its ownership once
// (migration from Update happens, a restart sends no write), steady state
// sends nothing even while another writer churns the object, a reset is
// released in the next apply's answer, and no field of another writer is
// lost.
func TestStrippedCache(t *testing.T) {
	e, ctx := setup(t)
	cached, reader := strippedEnv(t, e, ctx)
	const manager = "strip-controller"
	desired := func(data map[string]string) *corev1ac.ConfigMapApplyConfiguration {
		return corev1ac.ConfigMap("stripped", "default").WithData(data)
	}
	// A former release wrote the ConfigMap with Create under the same
	// name; another writer keeps a key of its own.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "stripped", Namespace: "default"}, Data: map[string]string{"a": "1", "old": "x"}}
	if err := e.direct.Create(ctx, cm, client.FieldOwner(manager)); err != nil {
		t.Fatal(err)
	}
	theirs := corev1ac.ConfigMap("stripped", "default").WithData(map[string]string{"theirs": "t"})
	if err := e.direct.Patch(ctx, cm, applyPatchOf(t, theirs), client.FieldOwner("other-apply")); err != nil {
		t.Fatal(err)
	}
	waitStripped(t, ctx, cached, cm)

	c := ensure.NewClient(cached, ensure.FieldManager(manager), ensure.APIReader(reader))
	mark, gets := e.counter.Snapshot(), reader.gets
	obj, _, err := corev1ensure.EnsureConfigMap(ctx, c, e.owner, desired(map[string]string{"a": "1", "b": "2"}))
	if err != nil {
		t.Fatal(err)
	}
	since := e.counter.Since(mark)
	if reader.gets-gets != 1 || writes(since) != 2 {
		t.Fatalf("first sight: %d GETs, %s; want one GET of the API server, the migration and the apply", reader.gets-gets, testenv.String(since))
	}
	if _, kept := obj.Data["old"]; kept || obj.Data["theirs"] != "t" {
		t.Fatalf("after the migration: %v, want old pruned and theirs kept", obj.Data)
	}
	waitStripped(t, ctx, cached, obj)

	// Steady state: another writer churns a label of its own; every
	// resync sends nothing, reads nothing from the API server.
	mark, gets = e.counter.Snapshot(), reader.gets
	for i := 0; i < 5; i++ {
		churn := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"churn":"`+string(rune('a'+i))+`"}}}`))
		if err := e.direct.Patch(ctx, obj, churn, client.FieldOwner("churner")); err != nil {
			t.Fatal(err)
		}
		waitStripped(t, ctx, cached, obj)
		if _, res, err := corev1ensure.EnsureConfigMap(ctx, c, e.owner, desired(map[string]string{"a": "1", "b": "2"})); err != nil || res != ensure.Skipped {
			t.Fatalf("resync %d: %s, %v; want skipped", i, res, err)
		}
	}
	if since := e.counter.Since(mark); writes(since) != 0 || reader.gets != gets {
		t.Fatalf("steady state: %s, %d GETs; want no write and no GET", testenv.String(since), reader.gets-gets)
	}

	// A restart: a new client, first sight again — one GET, no write.
	c = ensure.NewClient(cached, ensure.FieldManager(manager), ensure.APIReader(reader))
	mark, gets = e.counter.Snapshot(), reader.gets
	if _, res, err := corev1ensure.EnsureConfigMap(ctx, c, e.owner, desired(map[string]string{"a": "1", "b": "2"})); err != nil || res != ensure.Skipped {
		t.Fatalf("after a restart: %s, %v; want skipped", res, err)
	}
	if since := e.counter.Since(mark); writes(since) != 0 || reader.gets-gets != 1 {
		t.Fatalf("after a restart: %s, %d GETs; want one GET and no write", testenv.String(since), reader.gets-gets)
	}

	// A reset, then an intent that adds a key: the answer shows the fields
	// shared with before-first-apply, and one patch releases them; a key
	// dropped after that is pruned, the other writer's kept.
	resetManagedFields(t, ctx, e.direct, obj, "v1", "ConfigMap")
	if err := e.direct.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatal(err)
	}
	waitStripped(t, ctx, cached, obj)
	if obj, _, err = corev1ensure.EnsureConfigMap(ctx, c, e.owner, desired(map[string]string{"a": "1", "b": "2", "c": "3"})); err != nil {
		t.Fatal(err)
	}
	if bfa := entry(obj, "before-first-apply", metav1.ManagedFieldsOperationUpdate, ""); bfa != nil && containsField(bfa, "b") {
		t.Fatalf("before-first-apply still holds b: %s", bfa.FieldsV1.Raw)
	}
	waitStripped(t, ctx, cached, obj)
	if obj, _, err = corev1ensure.EnsureConfigMap(ctx, c, e.owner, desired(map[string]string{"a": "1", "c": "3"})); err != nil {
		t.Fatal(err)
	}
	if _, kept := obj.Data["b"]; kept || obj.Data["theirs"] != "t" || obj.Data["c"] != "3" {
		t.Fatalf("after dropping b: %v, want b pruned, theirs kept", obj.Data)
	}
}

// waitStripped waits until the stripped cache shows obj at its
// resourceVersion, without managedFields.
func waitStripped(t *testing.T, ctx context.Context, c client.Client, obj client.Object) {
	t.Helper()
	e := &env{c: c}
	e.synced(t, ctx, obj)
	cur := obj.DeepCopyObject().(client.Object)
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), cur); err != nil || cur.GetManagedFields() != nil {
		t.Fatalf("the cache kept managedFields (%v): %v", err, cur.GetManagedFields())
	}
}

func containsField(e *metav1.ManagedFieldsEntry, key string) bool {
	return e.FieldsV1 != nil && strings.Contains(string(e.FieldsV1.Raw), `"f:`+key+`"`)
}

// TestStrippedCacheMemory measures what the transform saves: the heap an
// informer cache holds per Proxy, each written by three managers, with
// and without managedFields. Logged for docs/ensure.md; asserted only
// that stripping saves memory.
func TestStrippedCacheMemory(t *testing.T) {
	e, ctx := start(t) // not in parallel: it measures the heap
	const n = 300
	for i := 0; i < n; i++ {
		px := ac.Proxy(fmt.Sprintf("mem-%03d", i), "default").WithLabels(map[string]string{"app": "edge"}).
			WithSpec(ac.ProxySpec().WithReplicas(2).WithListeners(ac.Listener().WithName("http").WithPort(80).WithHostnames("a.example.com", "b.example.com")))
		obj := &platformv1alpha1.Proxy{ObjectMeta: metav1.ObjectMeta{Name: *px.Name, Namespace: "default"}}
		if err := e.direct.Patch(ctx, obj, applyPatchOf(t, px), client.FieldOwner("controller"), client.ForceOwnership); err != nil {
			t.Fatal(err)
		}
		if err := e.direct.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"x"}}}`)), client.FieldOwner("kubectl-label")); err != nil {
			t.Fatal(err)
		}
		other := ac.Proxy(*px.Name, "default").WithAnnotations(map[string]string{"other/rev": "1"})
		if err := e.direct.Patch(ctx, obj, applyPatchOf(t, other), client.FieldOwner("other-apply")); err != nil {
			t.Fatal(err)
		}
	}
	perObject := func(transform bool) float64 {
		scheme := runtime.NewScheme()
		clientgoscheme.AddToScheme(scheme)
		platformv1alpha1.AddToScheme(scheme)
		opts := cache.Options{Scheme: scheme}
		if transform {
			opts.DefaultTransform = cache.TransformStripManagedFields()
		}
		before := heap()
		informers, err := cache.New(e.cfg, opts)
		if err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		if _, err := informers.GetInformer(cctx, &platformv1alpha1.Proxy{}); err != nil {
			t.Fatal(err)
		}
		go informers.Start(cctx)
		informers.WaitForCacheSync(cctx)
		var list platformv1alpha1.ProxyList
		if err := informers.List(cctx, &list); err != nil || len(list.Items) < n {
			t.Fatalf("listed %d proxies: %v", len(list.Items), err)
		}
		list = platformv1alpha1.ProxyList{}
		after := heap()
		goruntime.KeepAlive(informers)
		return float64(after-before) / n
	}
	with, without := perObject(false), perObject(true)
	t.Logf("heap per cached Proxy (3 managers): %.0f B with managedFields, %.0f B stripped (%.0f%% saved)", with, without, 100*(with-without)/with)
	if without >= with {
		t.Fatalf("stripping saved nothing: %.0f B against %.0f B", without, with)
	}
}

func heap() uint64 {
	goruntime.GC()
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m.HeapAlloc
}
