package ensure_test

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	gen "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1/ensure"
	"github.com/ssagen/ssagen/internal/testenv"
)

// TestAPIServerOutage stops the API server mid-run: Ensure returns errors,
// never panics, and works again once the server is back.
func TestAPIServerOutage(t *testing.T) {
	t.Parallel()
	env, cfg := testenv.StartEnv(t)
	scheme := runtime.NewScheme()
	clientgoscheme.AddToScheme(scheme)
	platformv1alpha1.AddToScheme(scheme)
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	owner := &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	if err := c.Create(ctx, owner); err != nil {
		t.Fatal(err)
	}
	cache := ensure.NewClient(c)
	if _, _, err := gen.EnsureProxy(ctx, cache, owner, proxy("default", 1)); err != nil {
		t.Fatal(err)
	}
	if err := env.ControlPlane.APIServer.Stop(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		callCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
		_, _, err := gen.EnsureProxy(callCtx, cache, owner, proxy("default", int32(2+i)))
		cancel()
		if err == nil {
			t.Fatal("no error while the API server is down")
		}
	}
	if err := env.ControlPlane.APIServer.Start(); err != nil {
		t.Fatal(err)
	}
	// envtest's restarted API server serves a new certificate; a real one
	// keeps its own. Reconnect with the new CA: a new client, so a new
	// Client and memory, as after a restart of the controller.
	user, err := env.ControlPlane.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c, err = client.New(user.Config(), client.Options{Scheme: scheme}); err != nil {
		t.Fatal(err)
	}
	cache = ensure.NewClient(c)
	var lastErr error
	for i := 0; i < 100; i++ {
		callCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
		obj, _, err := gen.EnsureProxy(callCtx, cache, owner, proxy("default", 7))
		cancel()
		if err == nil {
			if *obj.Spec.Replicas != 7 {
				t.Fatalf("replicas %d after recovery", *obj.Spec.Replicas)
			}
			lastErr = nil
			break
		}
		lastErr = err
		time.Sleep(100 * time.Millisecond)
	}
	if lastErr != nil {
		t.Fatalf("no recovery once the API server is back: %v", lastErr)
	}
}

// TestMetrics checks the counters Ensure exports in controller-runtime's registry.
func TestMetrics(t *testing.T) {
	e, ctx := setup(t)
	gather := func() map[string]float64 { return gatherMetrics(t) }
	if err := ensure.RegisterMetrics(metrics.Registry); err != nil {
		t.Fatal(err)
	}
	before := gather()
	cache := e.client(ensure.MetricsName("metrics-test"))
	for i := 0; i < 3; i++ {
		obj, _, err := gen.EnsureProxy(ctx, cache, e.owner, proxy("default", 1))
		if err != nil {
			t.Fatal(err)
		}
		e.synced(t, ctx, obj)
	}
	after := gather()
	delta := func(key string) float64 { return after[key] - before[key] }
	// One object: created by the first call, skipped by the next two, one request.
	if d := delta("ssagen_apply_total,client=metrics-test,kind=Proxy,result=created"); d != 1 {
		t.Errorf("created counter moved by %v, want 1", d)
	}
	if d := delta("ssagen_apply_total,client=metrics-test,kind=Proxy,result=skipped"); d != 2 {
		t.Errorf("skipped counter moved by %v, want 2", d)
	}
	if d := delta("ssagen_apply_request_duration_seconds,client=metrics-test,kind=Proxy"); d != 1 {
		t.Errorf("latency histogram counted %v requests, want 1", d)
	}
	if g := after["ssagen_skip_cache_entries,client=metrics-test"]; g != float64(cache.Remembered()) || g != 1 {
		t.Errorf("cache gauge %v, want the cache's %d entry", g, cache.Remembered())
	}
}

// gatherMetrics reads the runtime's metrics from controller-runtime's
// registry: "<name>,<label>=<value>,..." → counter, gauge or histogram
// sample count.
func gatherMetrics(t *testing.T) map[string]float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]float64{}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "ssagen_") {
			continue
		}
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += "," + l.GetName() + "=" + l.GetValue()
			}
			switch {
			case m.Counter != nil:
				found[key] = m.Counter.GetValue()
			case m.Histogram != nil:
				found[key] = float64(m.Histogram.GetSampleCount())
			case m.Gauge != nil:
				found[key] = m.Gauge.GetValue()
			}
		}
	}
	return found
}
