// Package multicluster is an example of one controller writing the same
// child into several clusters through the generated helpers: a
// controller-runtime cluster.Cluster per cluster (multicluster-runtime's
// provider hands a reconciler the same), and one ensure.Client per
// cluster's client, named in the metrics by the cluster. One cluster's
// objects never vouch for another's, whatever their names.
package multicluster

import (
	"context"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"github.com/ssagen/ssagen/ensure"
	corev1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
)

// FieldManager is the example controller's field manager, in every cluster.
const FieldManager = "multicluster-example"

// Fleet is the clusters the controller writes to, by name.
type Fleet struct {
	clusters map[string]cluster.Cluster
	clients  map[string]*ensure.Client
}

// Start builds and starts a cluster.Cluster per config (its informer cache
// and client), and the ensure.Client over each cluster's client.
func Start(ctx context.Context, configs map[string]*rest.Config) (*Fleet, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	f := &Fleet{clusters: map[string]cluster.Cluster{}, clients: map[string]*ensure.Client{}}
	for name, cfg := range configs {
		cl, err := cluster.New(cfg, func(o *cluster.Options) { o.Scheme = scheme })
		if err != nil {
			return nil, fmt.Errorf("cluster %s: %w", name, err)
		}
		go cl.Start(ctx)
		if !cl.GetCache().WaitForCacheSync(ctx) {
			return nil, fmt.Errorf("cluster %s: the cache did not sync", name)
		}
		f.clusters[name] = cl
		f.clients[name] = ensure.NewClient(cl.GetClient(), ensure.FieldManager(FieldManager), ensure.MetricsName(name))
	}
	return f, nil
}

// Client is the ensure.Client of the cluster name.
func (f *Fleet) Client(name string) *ensure.Client { return f.clients[name] }

// Reconcile makes the settings ConfigMap of namespace ns hold data in
// every cluster, owned by the owner ConfigMap of that cluster, and
// returns what each apply did.
func (f *Fleet) Reconcile(ctx context.Context, ns string, data map[string]string) (map[string]ensure.Result, error) {
	results := map[string]ensure.Result{}
	for name, c := range f.clients {
		var owner corev1.ConfigMap
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "owner"}, &owner); err != nil {
			return nil, fmt.Errorf("cluster %s: %w", name, err)
		}
		_, res, err := corev1ensure.EnsureConfigMap(ctx, c, &owner, corev1ac.ConfigMap("settings", ns).WithData(data))
		if err != nil {
			return nil, fmt.Errorf("cluster %s: %w", name, err)
		}
		results[name] = res
	}
	return results, nil
}

// Synced waits until every cluster's cache shows the settings ConfigMap
// of ns with data.
func (f *Fleet) Synced(ctx context.Context, ns string, data map[string]string) error {
	for name, cl := range f.clusters {
		for i := 0; ; i++ {
			var cm corev1.ConfigMap
			err := cl.GetClient().Get(ctx, client.ObjectKey{Namespace: ns, Name: "settings"}, &cm)
			if err == nil && maps.Equal(cm.Data, data) {
				break
			}
			if i == 500 {
				return fmt.Errorf("cluster %s: the cache never showed the settings", name)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return nil
}
