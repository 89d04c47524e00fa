package ensure_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	ac "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1"
	gen "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1/ensure"
	corev1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
	"github.com/ssagen/ssagen/internal/testenv"
)

// The faults upstream reports break controllers that apply (issue 33),
// each thrown at a plain apply first — what a controller without ssagen
// meets, the figures of docs/ensure.md's table — and then at Ensure.

// repairs reads ssagen_repair_total of client name.
func repairs(t *testing.T, name string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for k, v := range gatherMetrics(t) {
		if rest, ok := strings.CutPrefix(k, "ssagen_repair_total,client="+name+","); ok {
			out[rest] = v
		}
	}
	return out
}

// entry is the live object's entry of manager on sub, or nil.
func entry(obj client.Object, manager string, op metav1.ManagedFieldsOperationType, sub string) *metav1.ManagedFieldsEntry {
	for _, e := range obj.GetManagedFields() {
		if e.Manager == manager && e.Operation == op && e.Subresource == sub {
			return &e
		}
	}
	return nil
}

// resetManagedFields leaves obj as the API server does when it drops
// every entry (kubernetes #136919): one "before-first-apply" entry
// holding every field, made by the first apply after the entries went.
func resetManagedFields(t *testing.T, ctx context.Context, c client.Client, obj client.Object, apiVersion, kind string) {
	t.Helper()
	wipe := client.RawPatch(types.JSONPatchType, []byte(`[{"op":"replace","path":"/metadata/managedFields","value":[{}]}]`))
	if err := c.Patch(ctx, obj, wipe); err != nil {
		t.Fatal(err)
	}
	empty := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": obj.GetName(), "namespace": obj.GetNamespace()}}}
	if err := c.Patch(ctx, empty, client.Apply, client.FieldOwner("fault")); err != nil {
		t.Fatal(err)
	}
	if entry(empty, "before-first-apply", metav1.ManagedFieldsOperationUpdate, "") == nil || len(empty.GetManagedFields()) != 1 {
		t.Fatalf("the reset left %v, want one before-first-apply entry", managers(empty))
	}
}

func TestRepairManagedFieldsReset(t *testing.T) {
	e, ctx := setup(t)
	if err := ensure.RegisterMetrics(metrics.Registry); err != nil {
		t.Fatal(err)
	}
	const manager = "cfg-controller"
	c := e.client(ensure.FieldManager(manager), ensure.MetricsName("repair-reset"))
	desired := func(name string, data map[string]string) *corev1ac.ConfigMapApplyConfiguration {
		return corev1ac.ConfigMap(name, "default").WithData(data)
	}

	// Without: a plain apply, then the reset. Its next apply (it sends
	// one every resync) takes the fields back, shared with
	// before-first-apply; a key dropped from the intent afterwards stays.
	plain := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: "default"}}
	for _, data := range []map[string]string{{"a": "1", "b": "2"}, nil, {"a": "1"}} {
		if data == nil {
			resetManagedFields(t, ctx, e.direct, plain, "v1", "ConfigMap")
			continue
		}
		if err := e.direct.Patch(ctx, plain, applyPatchOf(t, desired("plain", data)), client.FieldOwner(manager), client.ForceOwnership); err != nil {
			t.Fatal(err)
		}
	}
	if _, kept := plain.Data["b"]; !kept {
		t.Fatalf("a plain apply after the reset pruned b: %v", plain.Data)
	}

	// With Ensure: applied, another writer's key beside ours, reset, then
	// the same intent.
	obj, _, err := corev1ensure.EnsureConfigMap(ctx, c, e.owner, desired("cfg", map[string]string{"a": "1", "b": "2"}))
	if err != nil {
		t.Fatal(err)
	}
	theirs := corev1ac.ConfigMap("cfg", "default").WithData(map[string]string{"c": "3"})
	if err := e.direct.Patch(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg", Namespace: "default"}}, applyPatchOf(t, theirs), client.FieldOwner("other-apply")); err != nil {
		t.Fatal(err)
	}
	e.looks(t, ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg", Namespace: "default"}}, func() {
		if _, res, err := corev1ensure.EnsureConfigMap(ctx, c, e.owner, desired("cfg", map[string]string{"a": "1", "b": "2"})); err != nil || res != ensure.Skipped {
			t.Fatalf("the reconcile after the other writer's key: %s %v, want skipped", res, err)
		}
	})
	before := repairs(t, "repair-reset")
	live := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg", Namespace: "default"}}
	resetManagedFields(t, ctx, e.direct, live, "v1", "ConfigMap")
	if err := e.direct.Get(ctx, client.ObjectKeyFromObject(live), live); err != nil {
		t.Fatal(err)
	}
	e.synced(t, ctx, live)
	mark := e.counter.Snapshot()
	var logged []string
	logCtx := logr.NewContext(ctx, funcr.New(func(prefix, args string) { logged = append(logged, args) }, funcr.Options{}))
	obj, res, err := corev1ensure.EnsureConfigMap(logCtx, c, e.owner, desired("cfg", map[string]string{"a": "1", "b": "2"}))
	if err != nil {
		t.Fatal(err)
	}
	// One apply takes the fields back (shared with before-first-apply, as
	// the API server records it), one patch makes them ours alone.
	if res == ensure.Skipped || writes(e.counter.Since(mark)) != 2 {
		t.Fatalf("after the reset: %s with %d writes, want the apply and the release", res, writes(e.counter.Since(mark)))
	}
	bfa := entry(obj, "before-first-apply", metav1.ManagedFieldsOperationUpdate, "")
	if entry(obj, manager, metav1.ManagedFieldsOperationApply, "") == nil || bfa == nil ||
		strings.Contains(string(bfa.FieldsV1.Raw), `"f:a"`) || strings.Contains(string(bfa.FieldsV1.Raw), `"f:b"`) || !strings.Contains(string(bfa.FieldsV1.Raw), `"f:c"`) {
		t.Fatalf("managers %v, before-first-apply holding %s: want a and b ours alone, c left to it", managers(obj), bfa.FieldsV1.Raw)
	}
	if d := repairs(t, "repair-reset")["kind=ConfigMap,repair=managed-fields-reset"] - before["kind=ConfigMap,repair=managed-fields-reset"]; d != 1 {
		t.Errorf("managed-fields-reset counted %v times, want 1", d)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], `"repair"="managed-fields-reset"`) || !strings.Contains(logged[0], `"name"="cfg"`) {
		t.Errorf("log lines %q, want one naming the repair and the object", logged)
	}
	e.synced(t, ctx, obj)
	mark = e.counter.Snapshot()
	if _, res, err := corev1ensure.EnsureConfigMap(ctx, c, e.owner, desired("cfg", map[string]string{"a": "1", "b": "2"})); err != nil || res != ensure.Skipped {
		t.Fatalf("the next resync: %s, %v; want skipped", res, err)
	}
	if n := writes(e.counter.Since(mark)); n != 0 {
		t.Fatalf("%d writes after the repair, want 0", n)
	}
	// The intent drops b: it is pruned, as if the reset had not happened;
	// the other writer's c stays.
	obj, _, err = corev1ensure.EnsureConfigMap(ctx, c, e.owner, desired("cfg", map[string]string{"a": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, kept := obj.Data["b"]; kept || obj.Data["c"] != "3" || obj.Data["a"] != "1" {
		t.Fatalf("after dropping b: %v, want a ours and c theirs, b gone", obj.Data)
	}
	// Ownership taken back: another apply manager's change to a is a
	// conflict again, which a reset object would have let through.
	other := corev1ac.ConfigMap("cfg", "default").WithData(map[string]string{"a": "theirs"})
	err = e.direct.Patch(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg", Namespace: "default"}}, applyPatchOf(t, other), client.FieldOwner("other-apply"))
	if !apierrors.IsConflict(err) {
		t.Fatalf("another manager's apply of our field: %v, want a conflict", err)
	}
}

// TestResetThenDrop: the reset of issue 50 with several managers' entries
// at once, on an object and its status subresource — our re-ensure, then
// a field dropped from the intent: gone, every other writer's field kept.
func TestResetThenDrop(t *testing.T) {
	e, ctx := setup(t)
	const manager = "px-controller"
	c := e.client(ensure.FieldManager(manager))
	spec := func(hosts ...string) *ac.ProxyApplyConfiguration {
		return ac.Proxy("reset-drop", "default").WithSpec(ac.ProxySpec().WithReplicas(1).
			WithListeners(ac.Listener().WithName("http").WithPort(80).WithHostnames(hosts...)))
	}
	status := func(addrs ...string) *ac.ProxyApplyConfiguration {
		return ac.Proxy("reset-drop", "default").WithStatus(ac.ProxyStatus().WithAddresses(addrs...))
	}
	obj, _, err := gen.EnsureProxy(ctx, c, e.owner, spec("a.example.com", "b.example.com"))
	if err != nil {
		t.Fatal(err)
	}
	e.synced(t, ctx, obj)
	if _, _, err := gen.EnsureProxyStatus(ctx, c, status("10.0.0.1", "10.0.0.2")); err != nil {
		t.Fatal(err)
	}
	// Two other writers: one applies a listener and a hostname on ours,
	// one an annotation with Update.
	theirs := ac.Proxy("reset-drop", "default").WithSpec(ac.ProxySpec().WithListeners(
		ac.Listener().WithName("other").WithPort(8080), ac.Listener().WithName("http").WithHostnames("other.example.com")))
	if err := e.direct.Patch(ctx, obj, applyPatchOf(t, theirs), client.FieldOwner("other-apply")); err != nil {
		t.Fatal(err)
	}
	if err := e.direct.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"person":"p"}}}`)), client.FieldOwner("kubectl-edit")); err != nil {
		t.Fatal(err)
	}
	look := func() {
		if _, _, err := gen.EnsureProxy(ctx, c, e.owner, spec("a.example.com", "b.example.com")); err != nil {
			t.Fatal(err)
		}
		if _, _, err := gen.EnsureProxyStatus(ctx, c, status("10.0.0.1", "10.0.0.2")); err != nil {
			t.Fatal(err)
		}
	}
	e.looks(t, ctx, obj.DeepCopy(), look)
	resetManagedFields(t, ctx, e.direct, obj, "platform.ssagen.dev/v1alpha1", "Proxy")
	e.looks(t, ctx, obj.DeepCopy(), look)
	// The other applier comes back first, then we do, to both endpoints.
	if err := e.direct.Patch(ctx, obj, applyPatchOf(t, theirs), client.FieldOwner("other-apply")); err != nil {
		t.Fatal(err)
	}
	e.synced(t, ctx, obj)
	if _, _, err := gen.EnsureProxy(ctx, c, e.owner, spec("a.example.com", "b.example.com")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gen.EnsureProxyStatus(ctx, c, status("10.0.0.1", "10.0.0.2")); err != nil {
		t.Fatal(err)
	}
	// Now the intent drops a hostname and an address.
	if _, _, err := gen.EnsureProxy(ctx, c, e.owner, spec("a.example.com")); err != nil {
		t.Fatal(err)
	}
	got, _, err := gen.EnsureProxyStatus(ctx, c, status("10.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	var http, other *platformv1alpha1.Listener
	for i, l := range got.Spec.Listeners {
		switch l.Name {
		case "http":
			http = &got.Spec.Listeners[i]
		case "other":
			other = &got.Spec.Listeners[i]
		}
	}
	if http == nil || !slices.Equal(http.Hostnames, []string{"a.example.com", "other.example.com"}) {
		t.Fatalf("http listener %+v: want a (ours) and other.example.com (theirs), b gone", http)
	}
	if other == nil || other.Port != 8080 || got.Annotations["person"] != "p" {
		t.Fatalf("the other writers' listener %+v and annotations %v: want them kept", other, got.Annotations)
	}
	if !slices.Equal(got.Status.Addresses, []string{"10.0.0.1"}) {
		t.Fatalf("status addresses %v: want 10.0.0.2 gone", got.Status.Addresses)
	}
}

// withVersion serves the Proxy CRD at version v too (same schema), or
// stops serving it, and waits until the API server does as told, in its
// discovery too (what REST mappers read, a moment after the requests).
func withVersion(t *testing.T, ctx context.Context, c client.Client, cfg *rest.Config, v string, served bool) {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(ctx, client.ObjectKey{Name: "proxies.platform.ssagen.dev"}, crd); err != nil {
		t.Fatal(err)
	}
	crd.Spec.Versions = slices.DeleteFunc(crd.Spec.Versions, func(x apiextensionsv1.CustomResourceDefinitionVersion) bool { return x.Name == v })
	if served {
		extra := *crd.Spec.Versions[0].DeepCopy()
		extra.Name, extra.Storage = v, false
		crd.Spec.Versions = append(crd.Spec.Versions, extra)
	}
	if err := c.Update(ctx, crd); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion("platform.ssagen.dev/" + v)
		l.SetKind("ProxyList")
		err := c.List(ctx, l, client.InNamespace("default"))
		_, derr := discovery.NewDiscoveryClientForConfigOrDie(cfg).ServerResourcesForGroupVersion("platform.ssagen.dev/" + v)
		if (err == nil) == served && (derr == nil) == served {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the API server never served=%v platform.ssagen.dev/%s", served, v)
}

// legacyLabel applies a label to the Proxy through version v as manager.
func legacyLabel(t *testing.T, ctx context.Context, c client.Client, name, v, manager string) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "platform.ssagen.dev/" + v, "kind": "Proxy",
		"metadata": map[string]any{"name": name, "namespace": "default", "labels": map[string]any{"legacy": "1"}}}}
	if err := c.Patch(ctx, u, client.Apply, client.FieldOwner(manager), client.ForceOwnership); err != nil {
		t.Fatal(err)
	}
}

func TestRepairStaleAPIVersion(t *testing.T) {
	e, ctx := setup(t)
	if err := apiextensionsv1.AddToScheme(e.direct.Scheme()); err != nil {
		t.Fatal(err)
	}
	if err := ensure.RegisterMetrics(metrics.Registry); err != nil {
		t.Fatal(err)
	}
	const manager = "proxy-controller"
	for _, name := range []string{"probe", "plain", "edge", "edge-stale-mapper"} {
		if _, _, err := gen.EnsureProxy(ctx, e.client(ensure.FieldManager(manager)), e.owner, ac.Proxy(name, "default").WithSpec(ac.ProxySpec().WithReplicas(1))); err != nil {
			t.Fatal(err)
		}
	}
	// A CRD version served, written through by another writer, removed.
	withVersion(t, ctx, e.direct, e.cfg, "v1alpha0", true)
	for _, name := range []string{"probe", "plain", "edge", "edge-stale-mapper"} {
		legacyLabel(t, ctx, e.direct, name, "v1alpha0", "legacy-writer")
	}
	withVersion(t, ctx, e.direct, e.cfg, "v1alpha0", false)
	// The handler of the served version learns of the removal a moment
	// after discovery does: until then an apply still converts. A probe
	// object takes that moment.
	for i := 0; ; i++ {
		err := e.direct.Patch(ctx, &platformv1alpha1.Proxy{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: "default"}},
			applyPatchOf(t, ac.Proxy("probe", "default").WithSpec(ac.ProxySpec().WithReplicas(int32(2+i%2)))), client.FieldOwner(manager), client.ForceOwnership)
		if err != nil && strings.Contains(err.Error(), "invalid group/version") {
			break
		}
		if i == 300 {
			t.Fatalf("an apply over an entry at the removed version was never refused: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Without: every apply is refused (kubernetes #111937), by anyone.
	p := &platformv1alpha1.Proxy{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: "default"}}
	err := e.direct.Patch(ctx, p, applyPatchOf(t, ac.Proxy("plain", "default").WithSpec(ac.ProxySpec().WithReplicas(2))), client.FieldOwner(manager), client.ForceOwnership)
	if err == nil || !strings.Contains(err.Error(), "invalid group/version") {
		t.Fatalf("a plain apply over an entry at a removed version: %v, want the API server's refusal", err)
	}

	// With Ensure: the entry restamped (the REST mapper says v1alpha0 is
	// gone), then the apply; legacy-writer keeps its label and its
	// ownership of it.
	check := func(name string, c client.Client, metricsName string, wantWrites int) {
		t.Helper()
		live := &platformv1alpha1.Proxy{}
		if err := e.direct.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, live); err != nil {
			t.Fatal(err)
		}
		e.synced(t, ctx, live)
		before := repairs(t, metricsName)
		mark := e.counter.Snapshot()
		obj, _, err := gen.EnsureProxy(ctx, e.clientOf(c, ensure.FieldManager(manager), ensure.MetricsName(metricsName)), e.owner,
			ac.Proxy(name, "default").WithSpec(ac.ProxySpec().WithReplicas(2)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n := writes(e.counter.Since(mark)); n != wantWrites {
			t.Errorf("%s: %d writes, want %d", name, n, wantWrites)
		}
		legacy := entry(obj, "legacy-writer", metav1.ManagedFieldsOperationApply, "")
		if legacy == nil || legacy.APIVersion != "platform.ssagen.dev/v1alpha1" || !strings.Contains(string(legacy.FieldsV1.Raw), `"f:legacy"`) || obj.Labels["legacy"] != "1" {
			t.Fatalf("%s: legacy-writer's entry %+v, labels %v: want its label kept, its entry at v1alpha1", name, legacy, obj.Labels)
		}
		if *obj.Spec.Replicas != 2 {
			t.Fatalf("%s: replicas %d, want 2", name, *obj.Spec.Replicas)
		}
		if d := repairs(t, metricsName)["kind=Proxy,repair=stale-api-version"] - before["kind=Proxy,repair=stale-api-version"]; d != 1 {
			t.Errorf("%s: stale-api-version counted %v times, want 1", name, d)
		}
	}
	check("edge", e.c, "repair-stale", 2)

	// A REST mapper that still serves v1alpha0 (it looked before the
	// version went): the refusal names the version; restamped, sent again.
	mapper := meta.NewDefaultRESTMapper(nil)
	for _, v := range []string{"v1alpha1", "v1alpha0"} {
		mapper.Add(schema.GroupVersionKind{Group: "platform.ssagen.dev", Version: v, Kind: "Proxy"}, meta.RESTScopeNamespace)
	}
	mapper.Add(platformv1alpha1.GroupVersion.WithKind("Project"), meta.RESTScopeRoot)
	stale, err := client.New(e.cfg, client.Options{Scheme: e.c.Scheme(), Mapper: mapper})
	if err != nil {
		t.Fatal(err)
	}
	check("edge-stale-mapper", stale, "repair-stale-mapper", 3) // the refused apply, the restamp, the apply
}

func TestRepairFormerManagersInOneStep(t *testing.T) {
	e, ctx := setup(t)
	if err := ensure.RegisterMetrics(metrics.Registry); err != nil {
		t.Fatal(err)
	}
	const manager = "proxy-controller"
	// Two releases before this one wrote with Update: v0 the status
	// (Status().Update), v1 a label the controller no longer sets.
	former := func(name string) {
		p := &platformv1alpha1.Proxy{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"release": "v1"}},
			Spec: platformv1alpha1.ProxySpec{Replicas: ptrTo(int32(1))}}
		if err := e.direct.Create(ctx, p, client.FieldOwner(manager+"-v1")); err != nil {
			t.Fatal(err)
		}
		p.Status.Addresses = []string{"10.0.0.1"}
		if err := e.direct.Status().Update(ctx, p, client.FieldOwner(manager+"-v0")); err != nil {
			t.Fatal(err)
		}
		e.synced(t, ctx, p)
	}
	intent := func(name string) *ac.ProxyApplyConfiguration {
		return ac.Proxy(name, "default").WithSpec(ac.ProxySpec().WithReplicas(1))
	}
	status := func(name string) *ac.ProxyApplyConfiguration {
		return ac.Proxy(name, "default").WithStatus(ac.ProxyStatus().WithConditions(metav1ac.Condition().WithType("Ready").
			WithStatus(metav1.ConditionTrue).WithReason("Up").WithMessage("").WithLastTransitionTime(metav1.NewTime(time.Unix(1e9, 0)))))
	}

	// Without: a plain apply under the new name leaves the label and the
	// addresses to the former names for ever.
	former("plain")
	p := &platformv1alpha1.Proxy{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: "default"}}
	if err := e.direct.Patch(ctx, p, applyPatchOf(t, intent("plain")), client.FieldOwner(manager), client.ForceOwnership); err != nil {
		t.Fatal(err)
	}
	if err := e.direct.Status().Patch(ctx, p, applyPatchOf(t, status("plain")), client.FieldOwner(manager), client.ForceOwnership); err != nil {
		t.Fatal(err)
	}
	if p.Labels["release"] != "v1" || len(p.Status.Addresses) != 1 {
		t.Fatalf("plain applies: labels %v, addresses %v; the failure mode keeps both", p.Labels, p.Status.Addresses)
	}

	// With Ensure: one patch moves both releases' fields, on the object
	// and its status; the apply prunes the label, the status apply the
	// addresses, with no second migration.
	former("edge")
	c := e.client(ensure.FieldManager(manager), ensure.MetricsName("repair-former"))
	opts := []ensure.ApplyOption{ensure.MigrateFrom(manager+"-v0", manager+"-v1")}
	mark := e.counter.Snapshot()
	obj, _, err := gen.EnsureProxy(ctx, c, e.owner, intent("edge"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if n := writes(e.counter.Since(mark)); n != 2 {
		t.Errorf("%d writes, want 2 (the migration, the apply)", n)
	}
	if _, kept := obj.Labels["release"]; kept {
		t.Fatalf("the former release's label stayed: %v (managers %v)", obj.Labels, managers(obj))
	}
	if entry(obj, manager, metav1.ManagedFieldsOperationApply, "status") == nil || entry(obj, manager+"-v0", metav1.ManagedFieldsOperationUpdate, "status") != nil {
		t.Fatalf("managers %v: want the status entry moved to %s in the same step", managers(obj), manager)
	}
	e.synced(t, ctx, obj)
	mark = e.counter.Snapshot()
	got, _, err := gen.EnsureProxyStatus(ctx, c, status("edge"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if n := writes(e.counter.Since(mark)); n != 1 || len(got.Status.Addresses) != 0 {
		t.Fatalf("status apply: %d writes, addresses %v; want 1 write pruning them", n, got.Status.Addresses)
	}
	if d := repairs(t, "repair-former")["kind=Proxy,repair=former-managers"]; d != 1 {
		t.Errorf("former-managers counted %v times, want 1", d)
	}
}

func TestRepairReusedApplyConfiguration(t *testing.T) {
	e, ctx := setup(t)
	if err := ensure.RegisterMetrics(metrics.Registry); err != nil {
		t.Fatal(err)
	}
	const manager = "cfg-controller"
	other := func(name, patch string) {
		t.Helper()
		if err := e.direct.Patch(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}},
			client.RawPatch(types.MergePatchType, []byte(patch)), client.FieldOwner("other")); err != nil {
			t.Fatal(err)
		}
	}
	// controller-runtime v0.24 and later decode the answer into the
	// configuration Apply was given (#3475, json.Unmarshal of the body): its
	// resourceVersion, and every field of the object — another writer's
	// data key too. The test decodes it the same way, so that it holds at
	// every controller-runtime the matrix runs (v0.22 and v0.23 decode
	// nothing).
	reused := func(name string) *corev1ac.ConfigMapApplyConfiguration {
		t.Helper()
		if err := e.c.Apply(ctx, corev1ac.ConfigMap(name, "default").WithData(map[string]string{"a": "1"}), client.FieldOwner(manager), client.ForceOwnership); err != nil {
			t.Fatal(err)
		}
		other(name, `{"data":{"theirs":"x"}}`)
		cm := corev1ac.ConfigMap(name, "default").WithData(map[string]string{"a": "1"})
		answer := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
		if err := e.direct.Patch(ctx, answer, applyPatchOf(t, cm), client.FieldOwner(manager), client.ForceOwnership); err != nil {
			t.Fatal(err)
		}
		decodeAnswer(t, answer, cm)
		if cm.ResourceVersion == nil || cm.Data["theirs"] != "x" {
			t.Fatalf("the answer was not decoded into the configuration: %+v", cm)
		}
		other(name, `{"metadata":{"labels":{"other":"1"}}}`) // the object moves on
		return cm
	}

	// Without: the reused configuration is an optimistic-locked apply: 409.
	cm := reused("plain")
	if err := e.c.Apply(ctx, cm, client.FieldOwner(manager), client.ForceOwnership); !apierrors.IsConflict(err) {
		t.Fatalf("reusing the configuration with a plain apply: %v, want a 409", err)
	}

	// With Ensure: no resourceVersion sent, and only what the controller
	// applied: the other writer's key stays theirs.
	cm = reused("cfg")
	b, _ := json.Marshal(cm)
	c := e.client(ensure.FieldManager(manager), ensure.MetricsName("repair-reused"))
	mark := e.counter.Snapshot()
	obj, _, err := corev1ensure.EnsureConfigMap(ctx, c, e.owner, cm)
	if err != nil {
		t.Fatal(err)
	}
	if since := e.counter.Since(mark); testenv.Total(since, "PATCH 409") != 0 || testenv.Total(since, "PATCH") != 1 {
		t.Fatalf("Ensure of a reused configuration sent %s, want one apply and no 409", testenv.String(since))
	}
	ours := entry(obj, manager, metav1.ManagedFieldsOperationApply, "")
	if obj.Data["theirs"] != "x" || ours == nil || strings.Contains(string(ours.FieldsV1.Raw), "theirs") || !strings.Contains(string(ours.FieldsV1.Raw), `"f:a"`) {
		t.Fatalf("data %v, our entry %s: want a ours, theirs left to the other writer", obj.Data, ours.FieldsV1.Raw)
	}
	if after, _ := json.Marshal(cm); string(after) != string(b) {
		t.Fatalf("Ensure changed the configuration it was given:\n%s\n%s", b, after)
	}
	if d := repairs(t, "repair-reused")["kind=ConfigMap,repair=reused-configuration"]; d != 1 {
		t.Errorf("reused-configuration counted %v times, want 1", d)
	}
	// A list-map item whose key field our entry does not hold (the soak's
	// seed 1795734544282018254 left one): the item still goes with its key.
	px, _, err := gen.EnsureProxy(ctx, c, e.owner, proxy("default", 1))
	if err != nil {
		t.Fatal(err)
	}
	mf := px.GetManagedFields()
	for i := range mf {
		if mf[i].Manager == manager {
			mf[i].FieldsV1.Raw = []byte(strings.Replace(string(mf[i].FieldsV1.Raw), `"f:name":{},`, "", 1))
		}
	}
	b, _ = json.Marshal([]map[string]any{{"op": "replace", "path": "/metadata/managedFields", "value": mf}})
	if err := e.direct.Patch(ctx, px, client.RawPatch(types.JSONPatchType, b)); err != nil {
		t.Fatal(err)
	}
	e.synced(t, ctx, px)
	pxc := proxy("default", 2)
	answer := &platformv1alpha1.Proxy{ObjectMeta: metav1.ObjectMeta{Name: "edge", Namespace: "default"}}
	if err := e.direct.Patch(ctx, answer, applyPatchOf(t, pxc), client.FieldOwner(manager), client.ForceOwnership, client.DryRunAll); err != nil {
		t.Fatal(err)
	}
	decodeAnswer(t, answer, pxc)
	if _, _, err := gen.EnsureProxy(ctx, c, e.owner, pxc); err != nil {
		t.Fatalf("a reused Proxy configuration: %v", err)
	}

	// Through another field manager, nothing in it is that manager's: an
	// error, never a forced apply of every field.
	_, _, err = corev1ensure.EnsureConfigMap(ctx, e.client(ensure.FieldManager("renamed")), e.owner, cm)
	if err == nil || !strings.Contains(err.Error(), "build the configuration anew") {
		t.Fatalf("an answer with nothing of ours: %v, want the error", err)
	}
}

func ptrTo[T any](v T) *T { return &v }

// decodeAnswer decodes the API server's answer into the configuration, as
// controller-runtime v0.24's Apply does (json.Unmarshal of the body into
// the configuration it was given).
func decodeAnswer(t *testing.T, answer client.Object, into any) {
	t.Helper()
	b, err := json.Marshal(answer)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatal(err)
	}
}

// TestReusedConfigurationKeepsListItemsApart is the smallest sequence
// behind the soak's seed 1795889629: encoding/json decodes an answer's
// list into the configuration's earlier items, so when the answer puts
// another writer's listener first, that item keeps our earlier first
// listener's hostnames. Nobody owns them; reusing the configuration must
// not write them onto the other writer's listener.
func TestReusedConfigurationKeepsListItemsApart(t *testing.T) {
	e, ctx := setup(t)
	const manager, name = "reuse-controller", "reused-lists"
	intent := func() *ac.ProxyApplyConfiguration {
		return ac.Proxy(name, "default").WithSpec(ac.ProxySpec().WithReplicas(1).WithListeners(
			ac.Listener().WithName("http").WithPort(80).WithHostnames("b.example.com", "c.example.com"),
			ac.Listener().WithName("admin").WithPort(9000)))
	}
	c := e.client(ensure.FieldManager(manager))
	if _, _, err := gen.EnsureProxy(ctx, c, e.owner, intent()); err != nil {
		t.Fatal(err)
	}
	// Another writer adds its listener, and a hostname to ours.
	theirs := ac.Proxy(name, "default").WithSpec(ac.ProxySpec().WithListeners(
		ac.Listener().WithName("other").WithPort(8080),
		ac.Listener().WithName("http").WithHostnames("other.example.com")))
	live := &platformv1alpha1.Proxy{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
	if err := e.direct.Patch(ctx, live, applyPatchOf(t, theirs), client.FieldOwner("other-apply"), client.ForceOwnership); err != nil {
		t.Fatal(err)
	}
	if ls := live.Spec.Listeners; len(ls) != 3 || ls[0].Name != "other" {
		t.Fatalf("listeners %+v: the sequence needs the other writer's listener first", ls)
	}
	// The controller's configuration with an Apply's answer decoded into
	// it, as controller-runtime v0.24 and later do.
	cfg := intent()
	answer := &platformv1alpha1.Proxy{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
	if err := e.direct.Patch(ctx, answer, applyPatchOf(t, intent()), client.FieldOwner(manager), client.ForceOwnership, client.DryRunAll); err != nil {
		t.Fatal(err)
	}
	decodeAnswer(t, answer, cfg)
	if l := cfg.Spec.Listeners[0]; *l.Name != "other" || len(l.Hostnames) != 2 {
		t.Fatalf("decoded first listener %s %v: want other, holding our earlier hostnames", *l.Name, l.Hostnames)
	}
	e.synced(t, ctx, live)
	obj, _, err := gen.EnsureProxy(ctx, c, e.owner, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range obj.Spec.Listeners {
		if l.Name == "other" && len(l.Hostnames) != 0 {
			t.Fatalf("the other writer's listener got hostnames %v nobody wants", l.Hostnames)
		}
		if l.Name == "http" && !slices.Equal(l.Hostnames, []string{"b.example.com", "c.example.com", "other.example.com"}) {
			t.Fatalf("http listener hostnames %v: want ours and the other writer's", l.Hostnames)
		}
	}
}
