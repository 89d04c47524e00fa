package mcensure_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	"github.com/ssagen/ssagen/ensure"
	"github.com/ssagen/ssagen/ensure/mcensure"
)

// The recipe of docs/ensure.md ("A fleet controller, step by step"): a
// multicluster-runtime controller whose reconciler ensures its child in
// the request's cluster through that cluster's ensure.Client, its
// Owns() given ensure.FieldsChanged (what ssagen vet -fix writes for a
// multicluster-runtime builder).

// settingsReconciler mirrors each cluster's "source" ConfigMap into a
// child it owns.
type settingsReconciler struct {
	mgr     mcmanager.Manager
	clients *mcensure.Clients

	mu         sync.Mutex
	reconciles map[string]int // by cluster
}

func (r *settingsReconciler) Reconcile(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
	r.mu.Lock()
	r.reconciles[req.ClusterName]++
	r.mu.Unlock()
	cl, err := r.mgr.GetCluster(ctx, req.ClusterName)
	if err != nil {
		return ctrl.Result{}, err
	}
	c, err := r.clients.For(req.ClusterName)
	if err != nil {
		return ctrl.Result{}, err // not (or no longer) this replica's cluster
	}
	var source corev1.ConfigMap
	if err := cl.GetClient().Get(ctx, req.NamespacedName, &source); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	child := corev1ac.ConfigMap(source.Name+"-copy", source.Namespace).WithData(map[string]string{"mode": source.Data["mode"]})
	_, err = ensure.Apply(ctx, c, &source, child, &corev1.ConfigMap{})
	return ctrl.Result{}, err
}

func (r *settingsReconciler) count(cluster string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reconciles[cluster]
}

// setup is the controller's wiring, as a fleet operator's main has it.
func (r *settingsReconciler) setup() error {
	return mcbuilder.ControllerManagedBy(r.mgr).Named("settings").
		For(&corev1.ConfigMap{}, mcbuilder.WithPredicates(isSource)).
		Owns(&corev1.ConfigMap{}, mcbuilder.WithPredicates(ensure.FieldsChanged(func(cm *corev1.ConfigMap) any {
			return []any{cm.OwnerReferences, cm.Data}
		}))).
		Complete(r)
}

var isSource = predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() == "source" })

// TestRecipe runs the recipe on three API servers (a host and two
// clusters behind the clusters provider): the child is written once per
// cluster; a change of the source is one write in its cluster and none
// in the other; another writer's key in a child reconciles it (its Data
// changed) without a write, and stays.
func TestRecipe(t *testing.T) {
	t.Parallel() // its own API servers; TestScale, which measures the heap, runs alone
	ctrl.SetLogger(logr.Discard())
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	fleet := map[string]*fleetMember{"c1": start(t), "c2": start(t)}
	host := start(t)

	p, mgr, clients := newFleet(t, host, "settings-controller")
	r := &settingsReconciler{mgr: mgr, clients: clients, reconciles: map[string]int{}}
	if err := r.setup(); err != nil {
		t.Fatal(err)
	}
	run(t, ctx, mgr)
	direct := map[string]client.Client{}
	for name, m := range fleet {
		engage(t, ctx, p, name, m)
		c, err := client.New(m.cfg, client.Options{})
		if err != nil {
			t.Fatal(err)
		}
		direct[name] = c
		source := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "source", Namespace: "default"}, Data: map[string]string{"mode": "fast"}}
		if err := c.Create(ctx, source); err != nil {
			t.Fatal(err)
		}
	}
	child := func(name string) (*corev1.ConfigMap, error) {
		var cm corev1.ConfigMap
		err := direct[name].Get(ctx, client.ObjectKey{Namespace: "default", Name: "source-copy"}, &cm)
		return &cm, err
	}
	// quiet waits until cluster name has had no reconcile for a second.
	quiet := func(name string) {
		for n := -1; n != r.count(name); {
			n = r.count(name)
			time.Sleep(time.Second)
		}
	}

	// First reconciles: the child written once in each cluster.
	for name, m := range fleet {
		eventually(t, name+" child", func() error {
			cm, err := child(name)
			if err == nil && cm.Data["mode"] != "fast" {
				err = fmt.Errorf("data %v", cm.Data)
			}
			return err
		})
		quiet(name)
		if m.writes.n() != 1 {
			t.Fatalf("%s: %d writes for the first child; want 1", name, m.writes.n())
		}
	}

	// The source changes in c1: one write there, none in c2.
	if err := direct["c1"].Patch(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "source", Namespace: "default"}},
		client.RawPatch(types.MergePatchType, []byte(`{"data":{"mode":"slow"}}`))); err != nil {
		t.Fatal(err)
	}
	eventually(t, "c1 child changed", func() error {
		cm, err := child("c1")
		if err == nil && cm.Data["mode"] != "slow" {
			err = fmt.Errorf("data %v", cm.Data)
		}
		return err
	})
	quiet("c1")
	if w1, w2 := fleet["c1"].writes.n(), fleet["c2"].writes.n(); w1 != 2 || w2 != 1 {
		t.Fatalf("after the change in c1: %d writes in c1, %d in c2; want 2 and 1", w1, w2)
	}

	// Another writer's key in c2's child: the child's Data changed, so it
	// is reconciled; the reconcile finds its own fields as they were and
	// writes nothing; the key stays.
	before := r.count("c2")
	if err := direct["c2"].Patch(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "source-copy", Namespace: "default"}},
		client.RawPatch(types.MergePatchType, []byte(`{"data":{"theirs":"x"}}`)), client.FieldOwner("other")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "c2 reconciled", func() error {
		if r.count("c2") == before {
			return fmt.Errorf("not yet")
		}
		return nil
	})
	quiet("c2")
	cm, err := child("c2")
	if err != nil || cm.Data["theirs"] != "x" || cm.Data["mode"] != "fast" {
		t.Fatalf("c2's child %v (%v): want ours and the other writer's key", cm.Data, err)
	}
	if w := fleet["c2"].writes.n(); w != 1 {
		t.Fatalf("c2: %d writes after another writer's key; want still 1", w)
	}
}
