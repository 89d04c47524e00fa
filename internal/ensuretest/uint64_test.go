package ensure_test

import (
	"context"
	"math"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	"github.com/ssagen/ssagen/examples/generated/applyconfiguration"
	ac "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1"
	gen "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1/ensure"
	"github.com/ssagen/ssagen/internal/testenv"
)

// limited is a Proxy with its uint64 field set: structured-merge-diff's
// reflection panics on such a value, so Extract, the type converter and
// the runtime's skip check read the object through its unstructured form.
func limited(ns string, max uint64) *ac.ProxyApplyConfiguration {
	return ac.Proxy("edge", ns).WithSpec(ac.ProxySpec().WithReplicas(2).WithMaxRequestBytes(max).
		WithListeners(ac.Listener().WithName("http").WithPort(80).WithHostnames("a.example.com")))
}

// TestUint64 on a real API server: a kind with a uint64 field is created
// with one request, an unchanged resync sends none (the skip check reads
// the cached object without a panic), a new limit is one request, Extract
// gives back what was applied, and a value past MaxInt64, which no API
// object can hold, is an error, not a panic.
func TestUint64(t *testing.T) {
	e, ctx := setup(t)
	c := e.client(ensure.FieldManager("proxy-controller"))
	obj, res, err := gen.EnsureProxy(ctx, c, e.owner, limited("default", 1<<40))
	if err != nil || res != ensure.Created || *obj.Spec.MaxRequestBytes != 1<<40 {
		t.Fatalf("create: %v %v", res, err)
	}
	e.synced(t, ctx, obj)
	before := e.counter.Snapshot()
	for i := 0; i < 5; i++ {
		if _, res, err := gen.EnsureProxy(ctx, c, e.owner, limited("default", 1<<40)); err != nil || res != ensure.Skipped {
			t.Fatalf("resync %d: %v %v", i, res, err)
		}
	}
	// A client that remembers nothing decides from the cached object:
	// the merge check reads it, uint64 and all.
	if _, res, err := gen.EnsureProxy(ctx, e.client(ensure.FieldManager("proxy-controller")), e.owner, limited("default", 1<<40)); err != nil || res != ensure.Skipped {
		t.Fatalf("resync by a new client: %v %v", res, err)
	}
	if got := firstSight(e.counter.Since(before), 1); len(got) != 0 {
		t.Fatalf("unchanged resyncs sent %s", testenv.String(got))
	}
	obj, res, err = gen.EnsureProxy(ctx, c, e.owner, limited("default", math.MaxInt64))
	if err != nil || res != ensure.Configured || *obj.Spec.MaxRequestBytes != math.MaxInt64 {
		t.Fatalf("new limit: %v %v", res, err)
	}
	if got := firstSight(e.counter.Since(before), 1); testenv.Total(got, "") != 1 {
		t.Fatalf("a new limit took %s, want one request", testenv.String(got))
	}
	var live platformv1alpha1.Proxy
	if err := e.direct.Get(ctx, client.ObjectKeyFromObject(obj), &live); err != nil {
		t.Fatal(err)
	}
	extracted, err := ac.ExtractProxy(&live, "proxy-controller")
	if err != nil || extracted.Spec == nil || extracted.Spec.MaxRequestBytes == nil || *extracted.Spec.MaxRequestBytes != math.MaxInt64 {
		t.Fatalf("extract: %+v %v", extracted, err)
	}
	if _, _, err := gen.EnsureProxy(ctx, c, e.owner, limited("default", math.MaxUint64)); err == nil {
		t.Fatal("a limit past MaxInt64 was accepted")
	}
}

// TestUint64OnFakeClient: the same kind on the fake client with the
// generated type converter, which the fake client hands typed objects.
func TestUint64OnFakeClient(t *testing.T) {
	ctx := context.Background()
	s := fakeScheme(t)
	owner := fakeOwner()
	b, writes := countWrites(fake.NewClientBuilder().WithScheme(s).WithObjects(owner).
		WithTypeConverters(applyconfiguration.NewTypeConverter(s)).WithReturnManagedFields())
	c := ensure.NewClient(b.Build(), ensure.FieldManager("proxy-controller"))
	if _, _, err := gen.EnsureProxy(ctx, c, owner, limited("default", 1<<40)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, res, err := gen.EnsureProxy(ctx, c, owner, limited("default", 1<<40)); err != nil || res != ensure.Skipped {
			t.Fatalf("resync %d: %v %v", i, res, err)
		}
	}
	obj, res, err := gen.EnsureProxy(ctx, c, owner, limited("default", 7))
	if err != nil || !configured(t, res) || *obj.Spec.MaxRequestBytes != 7 {
		t.Fatalf("new limit: %v %v", res, err)
	}
	if n := writes.Load(); n != 2 {
		t.Fatalf("%d writes, want 2 (create, new limit)", n)
	}
	var live platformv1alpha1.Proxy
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), &live); err != nil {
		t.Fatal(err)
	}
	if extracted, err := ac.ExtractProxy(&live, "proxy-controller"); err != nil || extracted.Spec == nil || extracted.Spec.MaxRequestBytes == nil || *extracted.Spec.MaxRequestBytes != 7 {
		t.Fatalf("extract: %+v %v", extracted, err)
	}
	// Past MaxInt64 the typed object cannot be converted: an error, not a
	// panic.
	live.Spec.MaxRequestBytes = new(uint64)
	*live.Spec.MaxRequestBytes = math.MaxUint64
	if x, err := ac.ExtractProxy(&live, "proxy-controller"); err == nil {
		t.Fatalf("extracting a value past MaxInt64 succeeded: %v", *x.Spec.MaxRequestBytes)
	}
}
