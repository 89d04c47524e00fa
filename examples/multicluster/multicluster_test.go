package multicluster

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ssagen/ssagen/ensure"
	"github.com/ssagen/ssagen/internal/testenv"
)

// TestFleet: three API servers, one controller. The first reconcile
// creates the child in each cluster; an unchanged resync sends no request
// anywhere; a hand edit in cluster b costs b one apply and the others
// nothing.
func TestFleet(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	configs, counters, direct := map[string]*rest.Config{}, map[string]*testenv.Counter{}, map[string]client.Client{}
	for _, name := range []string{"a", "b", "c"} {
		cfg := testenv.Start(t)
		counted, counter := testenv.Count(cfg)
		configs[name], counters[name] = counted, counter
		c, err := client.New(cfg, client.Options{})
		if err != nil {
			t.Fatal(err)
		}
		direct[name] = c
		if err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "default"}}); err != nil {
			t.Fatal(err)
		}
	}
	fleet, err := Start(ctx, configs)
	if err != nil {
		t.Fatal(err)
	}
	data := map[string]string{"mode": "fast"}
	step := func(what string, want map[string]ensure.Result, requests map[string]int) {
		t.Helper()
		before := map[string]map[string]int{}
		for name, c := range counters {
			before[name] = c.Snapshot()
		}
		got, err := fleet.Reconcile(ctx, "default", data)
		if err != nil {
			t.Fatal(err)
		}
		for name, res := range want {
			if got[name] != res {
				t.Errorf("%s: cluster %s: %s, want %s", what, name, got[name], res)
			}
			if n := testenv.Total(counters[name].Since(before[name]), "POST", "PUT", "PATCH", "DELETE"); n != requests[name] {
				t.Errorf("%s: cluster %s: %d writes, want %d", what, name, n, requests[name])
			}
		}
		if err := fleet.Synced(ctx, "default", data); err != nil {
			t.Fatal(err)
		}
	}
	step("first reconcile", map[string]ensure.Result{"a": ensure.Created, "b": ensure.Created, "c": ensure.Created}, map[string]int{"a": 1, "b": 1, "c": 1})
	step("unchanged resync", map[string]ensure.Result{"a": ensure.Skipped, "b": ensure.Skipped, "c": ensure.Skipped}, map[string]int{})

	var cm corev1.ConfigMap
	if err := direct["b"].Get(ctx, client.ObjectKey{Namespace: "default", Name: "settings"}, &cm); err != nil {
		t.Fatal(err)
	}
	cm.Data["mode"] = "slow"
	if err := direct["b"].Update(ctx, &cm); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ { // b's cache sees the hand edit
		var cur corev1.ConfigMap
		if err := fleet.Client("b").Get(ctx, client.ObjectKeyFromObject(&cm), &cur); err == nil && cur.Data["mode"] == "slow" {
			break
		}
		if i == 500 {
			t.Fatal("b's cache never showed the hand edit")
		}
		sleep()
	}
	step("after a hand edit in b", map[string]ensure.Result{"a": ensure.Skipped, "b": ensure.Configured, "c": ensure.Skipped}, map[string]int{"b": 1})
}

func sleep() { <-time.After(10 * time.Millisecond) }
