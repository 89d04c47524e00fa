// Package mcensure connects the Ensure runtime to multicluster-runtime
// (sigs.k8s.io/multicluster-runtime): one ensure.Client per engaged
// cluster, made when the cluster is engaged and dropped when its
// engagement ends — the cluster removed, or handed to another replica by
// a sharded coordinator — so that a fleet controller makes one call to
// get the right client for a request's cluster, and nothing is ever
// written from what a client remembers of another cluster, or of an
// earlier instance of a cluster under the same name.
//
// It is a module of its own: single-cluster users of the runtime never
// get multicluster-runtime in their module graph.
//
//	clients := mcensure.New(ensure.FieldManager("fleet-controller"))
//	if err := mgr.Add(clients); err != nil { ... } // engaged with every cluster the manager engages
//	// or, with a sharded coordinator: coordinator.AddRunnable(clients),
//	// engaged with the clusters this replica holds (TestShardedHandover)
//
//	func (r *Reconciler) Reconcile(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
//		c, err := r.clients.For(req.ClusterName)
//		if err != nil {
//			return ctrl.Result{}, err // not (or no longer) this replica's cluster
//		}
//		_, _, err = coreensure.EnsureConfigMap(ctx, c, owner, desired)
//		...
//	}
package mcensure

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"github.com/ssagen/ssagen/ensure"
)

// Clients holds an ensure.Client per engaged cluster. Add it to the
// multicluster manager (mgr.Add): it is a Runnable the manager engages
// with each cluster, as it does its controllers.
type Clients struct {
	opts []ensure.ClientOption

	mu      sync.Mutex
	engaged map[string]*engagement
}

// engagement is one cluster instance's client.
type engagement struct {
	cluster cluster.Cluster
	client  *ensure.Client
}

// New returns Clients whose ensure.Clients are made with opts (a field
// manager, an APIReader, ...). Each is named for its cluster in the
// runtime's metrics (client="<cluster name>") unless opts name it.
func New(opts ...ensure.ClientOption) *Clients {
	return &Clients{opts: opts, engaged: map[string]*engagement{}}
}

// ErrNotEngaged is the error of For for a cluster that is not engaged:
// unknown, removed, or another replica's.
var ErrNotEngaged = errors.New("mcensure: cluster not engaged")

// Engage makes the client of cluster cl, engaged as name, until ctx ends
// (multicluster.Aware). Engaging the same instance again changes nothing;
// another instance under the same name gets a new client, which
// remembers nothing of the last.
func (c *Clients) Engage(ctx context.Context, name string, cl cluster.Cluster) error {
	c.mu.Lock()
	if e := c.engaged[name]; e != nil && e.cluster == cl {
		c.mu.Unlock()
		return nil
	}
	opts := append([]ensure.ClientOption{ensure.MetricsName(name)}, c.opts...)
	e := &engagement{cluster: cl, client: ensure.NewClient(cl.GetClient(), opts...)}
	c.engaged[name] = e
	c.mu.Unlock()
	// No goroutine waits for the end: a fleet of a thousand clusters holds
	// a thousand callbacks, not a thousand stacks.
	context.AfterFunc(ctx, func() {
		c.mu.Lock()
		if c.engaged[name] == e {
			delete(c.engaged, name)
		}
		c.mu.Unlock()
	})
	return nil
}

// Start waits until ctx ends: what makes Clients a Runnable the manager
// engages.
func (c *Clients) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

// For returns the client of the cluster engaged as name, or an error
// wrapping ErrNotEngaged.
func (c *Clients) For(name string) (*ensure.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.engaged[name]; e != nil {
		return e.client, nil
	}
	return nil, fmt.Errorf("%w: %q", ErrNotEngaged, name)
}

// Len is the number of engaged clusters: the clients, and their memory,
// that Clients holds.
func (c *Clients) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.engaged)
}
