package mcensure_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/sharder"

	"github.com/ssagen/ssagen/ensure"
	"github.com/ssagen/ssagen/ensure/mcensure"
)

// peerSet is a shared view of the live peers, which the test changes to
// hand a cluster over (multicluster-runtime's lease registry, without its
// lease timings).
type peerSet struct {
	mu    sync.Mutex
	peers []sharder.PeerInfo
}

func (s *peerSet) set(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.peers = nil
	for _, id := range ids {
		s.peers = append(s.peers, sharder.PeerInfo{ID: id, Weight: 1})
	}
}

// registry is one replica's peers.Registry over the shared view.
type registry struct {
	self string
	set  *peerSet
}

func (r registry) Self() sharder.PeerInfo { return sharder.PeerInfo{ID: r.self, Weight: 1} }
func (r registry) Snapshot() []sharder.PeerInfo {
	r.set.mu.Lock()
	defer r.set.mu.Unlock()
	return append([]sharder.PeerInfo(nil), r.set.peers...)
}
func (r registry) Run(ctx context.Context) error { <-ctx.Done(); return nil }

// TestShardedHandover: issue 52's handover — two replicas, each with its
// sharded coordinator and its mcensure.Clients, engage the same cluster;
// the coordinator starts it on one (whose fence Lease it takes). When the
// peer set changes so that the other owns it, the first stops (its
// engagement ends, its client goes: no write from it after the
// handover), releases the fence, and the second takes the fence and
// starts the cluster; its first resync of the unchanged child sends
// nothing, decided from the live object's managedFields.
func TestShardedHandover(t *testing.T) {
	t.Parallel() // its own API servers; TestScale, which measures the heap, runs alone
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	m := start(t)
	host, err := client.New(m.cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := cluster.New(m.writes.wrap(m.cfg))
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = cl.Start(ctx) }()
	if !cl.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("the cluster's cache never synced")
	}

	view := &peerSet{}
	view.set("a", "b")
	replicas := map[string]*mcensure.Clients{}
	for _, id := range []string{"a", "b"} {
		clients := mcensure.New(ensure.FieldManager("fleet-controller"))
		c := sharded.New(host, logr.Discard(),
			sharded.WithPeerRegistry(registry{self: id, set: view}),
			sharded.WithShardLease("default", "shard"),
			sharded.WithSynchronizationIntervals(100*time.Millisecond, time.Second),
			sharded.WithLeaseTimings(5*time.Second, time.Second, 100*time.Millisecond))
		c.AddRunnable(clients)
		go func() { _ = c.Runnable().Start(ctx) }()
		if err := c.Engage(ctx, "c1", cl); err != nil {
			t.Fatal(err)
		}
		replicas[id] = clients
	}
	// owner is the replica that serves c1, once exactly one does.
	owner := func() (string, error) {
		var serving []string
		for id, clients := range replicas {
			if _, err := clients.For("c1"); err == nil {
				serving = append(serving, id)
			} else if !errors.Is(err, mcensure.ErrNotEngaged) {
				return "", err
			}
		}
		if len(serving) != 1 {
			return "", fmt.Errorf("%d replicas serve c1", len(serving))
		}
		return serving[0], nil
	}
	var first string
	eventually(t, "one replica serves c1", func() (err error) { first, err = owner(); return err })
	if res, err := ensureIn(ctx, replicas[first], "c1"); err != nil || res != ensure.Created || m.writes.n() != 1 {
		t.Fatalf("first owner %s: %s, %v, %d writes; want created with one", first, res, err, m.writes.n())
	}

	// Hand c1 over: the first owner leaves the peer set.
	second := map[string]string{"a": "b", "b": "a"}[first]
	view.set(second)
	eventually(t, "the second replica serves c1", func() error {
		got, err := owner()
		if err == nil && got != second {
			err = fmt.Errorf("%s serves c1", got)
		}
		return err
	})
	if _, err := ensureIn(ctx, replicas[first], "c1"); !errors.Is(err, mcensure.ErrNotEngaged) {
		t.Fatalf("the old owner after the handover: %v, want ErrNotEngaged", err)
	}
	eventually(t, "the new owner's cache holds the child", func() error {
		res, err := ensureIn(ctx, replicas[second], "c1")
		if err == nil && res != ensure.Skipped {
			err = fmt.Errorf("%s", res)
		}
		return err
	})
	if n := m.writes.n(); n != 1 {
		t.Fatalf("%d writes in all: want the first owner's one, none from either after the handover", n)
	}
}
