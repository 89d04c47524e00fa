package mcensure_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"

	"github.com/ssagen/ssagen/ensure"
	"github.com/ssagen/ssagen/ensure/mcensure"
)

// counter counts the writes sent through a rest.Config.
type counter struct {
	mu     sync.Mutex
	writes int
}

func (c *counter) wrap(cfg *rest.Config) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			if r.Method != http.MethodGet {
				c.mu.Lock()
				c.writes++
				c.mu.Unlock()
			}
			return rt.RoundTrip(r)
		})
	})
	return out
}

func (c *counter) n() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// fleetMember is one API server of the fleet.
type fleetMember struct {
	cfg    *rest.Config // uncounted: another writer, the checks
	writes *counter     // the fleet controller's writes
}

func start(t *testing.T) *fleetMember {
	t.Helper()
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		if os.Getenv("SSAGEN_REQUIRE_ENVTEST") != "" {
			t.Fatal("KUBEBUILDER_ASSETS is not set")
		}
		t.Skip("needs kube-apiserver and etcd: KUBEBUILDER_ASSETS (hack/envtest-assets.sh)")
	}
	env := &envtest.Environment{}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	return &fleetMember{cfg: cfg, writes: &counter{}}
}

// engage adds a cluster instance over m's API server, through a counted
// config, to the provider under name.
func engage(t *testing.T, ctx context.Context, p *clusters.Provider, name string, m *fleetMember) cluster.Cluster {
	t.Helper()
	cl, err := cluster.New(m.writes.wrap(m.cfg))
	if err != nil {
		t.Fatal(err)
	}
	// The provider starts the cluster and waits for its cache.
	if err := p.Add(ctx, name, cl); err != nil {
		t.Fatal(err)
	}
	return cl
}

// desired is the fleet controller's ConfigMap.
func desired() *corev1ac.ConfigMapApplyConfiguration {
	return corev1ac.ConfigMap("fleet-settings", "default").WithData(map[string]string{"mode": "fast"})
}

// ensureIn is one reconcile of the fleet controller for cluster name.
func ensureIn(ctx context.Context, clients *mcensure.Clients, name string) (ensure.Result, error) {
	c, err := clients.For(name)
	if err != nil {
		return "", err
	}
	return ensure.Apply(ctx, c, nil, desired(), &corev1.ConfigMap{}, ensure.NoOwner())
}

// eventually retries f for up to 30 seconds.
func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	var err error
	for i := 0; i < 300; i++ {
		if err = f(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: %v", what, err)
}

// newFleet is a multicluster manager on host behind the clusters
// provider, with the fleet's clients added under fieldManager.
func newFleet(t *testing.T, host *fleetMember, fieldManager string) (*clusters.Provider, mcmanager.Manager, *mcensure.Clients) {
	t.Helper()
	p := clusters.New()
	mgr, err := mcmanager.New(host.cfg, p, manager.Options{Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	clients := mcensure.New(ensure.FieldManager(fieldManager))
	if err := mgr.Add(clients); err != nil {
		t.Fatal(err)
	}
	return p, mgr, clients
}

// run starts mgr until ctx ends.
func run(t *testing.T, ctx context.Context, mgr mcmanager.Manager) {
	go func() {
		if err := mgr.Start(ctx); err != nil && ctx.Err() == nil {
			t.Errorf("the manager: %v", err)
		}
	}()
}

// TestFleet: issue 52 on three API servers behind multicluster-runtime's
// clusters provider — each child written once per cluster, unchanged
// resyncs send nothing in any cluster, another writer's field kept, a
// removed cluster's client and memory dropped, and a cluster re-added
// under the same name served by a new client that remembers nothing.
func TestFleet(t *testing.T) {
	t.Parallel() // its own API servers; TestScale, which measures the heap, runs alone
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	fleet := map[string]*fleetMember{"c1": start(t), "c2": start(t), "c3": start(t)}
	host := start(t)

	p, mgr, clients := newFleet(t, host, "fleet-controller")
	run(t, ctx, mgr)
	instances := map[string]cluster.Cluster{}
	for _, name := range []string{"c1", "c2", "c3"} {
		instances[name] = engage(t, ctx, p, name, fleet[name])
	}
	eventually(t, "three clusters engaged", func() error {
		if n := clients.Len(); n != 3 {
			return fmt.Errorf("%d engaged", n)
		}
		return nil
	})

	// First reconcile: one write per cluster.
	for name, m := range fleet {
		if res, err := ensureIn(ctx, clients, name); err != nil || res != ensure.Created || m.writes.n() != 1 {
			t.Fatalf("%s: %s, %v, %d writes; want created with one", name, res, err, m.writes.n())
		}
	}
	// Another writer's key in c2.
	other, err := client.New(fleet["c2"].cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Patch(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "fleet-settings", Namespace: "default"}},
		client.RawPatch(types.MergePatchType, []byte(`{"data":{"theirs":"x"}}`)), client.FieldOwner("other")); err != nil {
		t.Fatal(err)
	}
	// Unchanged resyncs: no write anywhere (once each cache has caught up).
	for name, m := range fleet {
		before := m.writes.n()
		eventually(t, name+" resync skipped", func() error {
			res, err := ensureIn(ctx, clients, name)
			if err == nil && res != ensure.Skipped {
				err = fmt.Errorf("%s", res)
			}
			return err
		})
		if m.writes.n() != before {
			t.Fatalf("%s: %d writes on unchanged resyncs", name, m.writes.n()-before)
		}
	}
	var cm corev1.ConfigMap
	if err := other.Get(ctx, client.ObjectKey{Namespace: "default", Name: "fleet-settings"}, &cm); err != nil || cm.Data["theirs"] != "x" || cm.Data["mode"] != "fast" {
		t.Fatalf("c2's ConfigMap %v (%v): want ours and the other writer's key", cm.Data, err)
	}

	// c3 removed: its client goes, with its memory; nothing is written to
	// it from this replica.
	old, _ := clients.For("c3")
	p.Remove("c3")
	eventually(t, "c3 disengaged", func() error {
		if n := clients.Len(); n != 2 {
			return fmt.Errorf("%d engaged", n)
		}
		return nil
	})
	if _, err := ensureIn(ctx, clients, "c3"); !errors.Is(err, mcensure.ErrNotEngaged) {
		t.Fatalf("ensuring in a removed cluster: %v, want ErrNotEngaged", err)
	}

	// c3 re-added under the same name, now another API server (the
	// cluster was rebuilt): a new client, which remembers nothing and
	// writes the child there.
	rebuilt := start(t)
	engage(t, ctx, p, "c3", rebuilt)
	eventually(t, "c3 engaged again", func() error {
		c, err := clients.For("c3")
		if err == nil && c == old {
			err = errors.New("the old client")
		}
		return err
	})
	if c, _ := clients.For("c3"); c.Remembered() != 0 {
		t.Fatalf("the new client of c3 remembers %d objects", c.Remembered())
	}
	if res, err := ensureIn(ctx, clients, "c3"); err != nil || res != ensure.Created || rebuilt.writes.n() != 1 {
		t.Fatalf("c3 rebuilt: %s, %v, %d writes; want the child created again", res, err, rebuilt.writes.n())
	}
}
