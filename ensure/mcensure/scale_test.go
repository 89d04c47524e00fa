package mcensure_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"github.com/ssagen/ssagen/ensure"
	"github.com/ssagen/ssagen/ensure/ensuretest"
	"github.com/ssagen/ssagen/ensure/mcensure"
)

// virtual is a cluster of the fleet behind ensure's test kit: what
// Clients asks of a cluster is its client.
type virtual struct {
	cluster.Cluster
	c client.Client
}

func (v virtual) GetClient() client.Client { return v.c }

const childrenPerCluster = 5

// TestScale: issue 52's figures with many engaged clusters, virtual (each
// a fake API server of ensure's test kit): memory per engaged cluster and
// per remembered object, requests per unchanged resync (asserted 0 in
// every cluster), and engage and disengage cost (logged for
// docs/ensure.md, not asserted). -short runs 1 and 10 clusters.
func TestScale(t *testing.T) {
	sizes := []int{1, 10, 100, 1000}
	if testing.Short() {
		sizes = sizes[:2]
	}
	s := kruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	var rows []fleetRow
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			kits := make([]*ensuretest.Client, n)
			for i := range kits {
				kits[i] = ensuretest.NewClient(s)
			}
			ctx := context.Background()
			cancels := make([]context.CancelFunc, n)
			before := heap()
			clients := mcensure.New(ensure.FieldManager("fleet-controller"))
			start := time.Now()
			for i, kit := range kits {
				var cctx context.Context
				cctx, cancels[i] = context.WithCancel(ctx)
				if err := clients.Engage(cctx, fmt.Sprintf("c%d", i), virtual{c: kit}); err != nil {
					t.Fatal(err)
				}
			}
			engage := time.Since(start) / time.Duration(n)
			engaged := heap()
			for i := range kits {
				c, err := clients.For(fmt.Sprintf("c%d", i))
				if err != nil {
					t.Fatal(err)
				}
				for j := 0; j < childrenPerCluster; j++ {
					cm := corev1ac.ConfigMap(fmt.Sprintf("child-%d", j), "default").WithData(map[string]string{"k": "v"})
					if res, err := ensure.Apply(ctx, c, nil, cm, &corev1.ConfigMap{}, ensure.NoOwner()); err != nil || res != ensure.Created {
						t.Fatalf("c%d child %d: %s, %v", i, j, res, err)
					}
				}
			}
			remembering := heap()
			// An unchanged resync of every child in every cluster: no request.
			requests := 0
			for i, kit := range kits {
				c, _ := clients.For(fmt.Sprintf("c%d", i))
				mark := kit.Mark()
				for j := 0; j < childrenPerCluster; j++ {
					cm := corev1ac.ConfigMap(fmt.Sprintf("child-%d", j), "default").WithData(map[string]string{"k": "v"})
					if res, err := ensure.Apply(ctx, c, nil, cm, &corev1.ConfigMap{}, ensure.NoOwner()); err != nil || res != ensure.Skipped {
						t.Fatalf("c%d child %d resync: %s, %v", i, j, res, err)
					}
				}
				requests += len(kit.Writes(mark))
				if w := kit.Writes(mark); len(w) != 0 {
					t.Errorf("c%d: %d requests on an unchanged resync", i, len(w))
				}
			}
			start = time.Now()
			for _, cancel := range cancels {
				cancel()
			}
			for clients.Len() > 0 {
				time.Sleep(time.Millisecond)
			}
			disengage := time.Since(start) / time.Duration(n)
			freed := heap()
			runtime.KeepAlive(clients)
			runtime.KeepAlive(kits)
			perCluster := float64(int64(engaged)-int64(before)) / float64(n)
			perObject := float64(int64(remembering)-int64(engaged)) / float64(n*childrenPerCluster)
			held := float64(int64(remembering)-int64(freed)) / float64(n)
			t.Logf("%d clusters: %.0f B per engaged cluster, %.0f B per remembered object (with the kit's stored copy), %.0f B freed per cluster on disengage; engage %s, disengage %s per cluster; 0 requests per unchanged resync",
				n, perCluster, perObject, held, engage, disengage)
			if held <= 0 {
				t.Errorf("disengaging freed nothing (%.0f B per cluster)", held)
			}
			rows = append(rows, fleetRow{n, perCluster, perObject, held, requests, engage, disengage})
		})
	}
	// make bench renders them into docs/benchmarks.md (bench.FleetRow).
	if out := os.Getenv("SSAGEN_FLEET_OUT"); out != "" && !t.Failed() {
		b, err := json.Marshal(rows)
		if err == nil {
			err = os.WriteFile(out, b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// fleetRow is bench.FleetRow, which this module does not import.
type fleetRow struct {
	Clusters                     int
	PerCluster, PerObject, Freed float64
	ResyncRequests               int
	Engage, Disengage            time.Duration
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
