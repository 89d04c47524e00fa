package bench

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/ssagen/ssagen/audit"
	"github.com/ssagen/ssagen/audit/auditenvtest"
	"github.com/ssagen/ssagen/internal/testenv"
)

// TestAuditWebhookLatency measures what the audit backends cost the API
// server's clients, side by side on one machine: the same writes (8
// writers, each updating its ConfigMaps 1,000 times) with auditing off,
// with the log, and with the log and ssagen audit serve as the webhook
// (in batch mode, as in a cluster). It prints each request's latency
// quantiles and what serve counted; docs/audit.md records a run. Not in
// make test (SSAGEN_AUDIT_LATENCY=1): it measures, it does not check.
func TestAuditWebhookLatency(t *testing.T) {
	if os.Getenv("SSAGEN_AUDIT_LATENCY") == "" {
		t.Skip("SSAGEN_AUDIT_LATENCY=1 measures the API server's latency with the audit webhook on and off")
	}
	testenv.Require(t)
	ctrl.SetLogger(logr.Discard())
	for round := range 2 {
		for _, mode := range []string{"off", "log", "log+webhook"} {
			var serve *audit.Server
			var opts []Option
			if mode != "off" {
				o := auditenvtest.Options{Dir: t.TempDir()}
				if mode == "log+webhook" {
					serve = audit.NewServer(audit.ServeOptions{})
					srv := httptest.NewServer(serve.Handler())
					defer srv.Close()
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					go serve.Run(ctx)
					o.WebhookURL = srv.URL + "/audit"
				}
				opts = append(opts, Audit(o))
			}
			env, err := StartEnv(opts...)
			if err != nil {
				t.Fatal(err)
			}
			lat, elapsed := writeLoad(t, env)
			env.Stop()
			slices.Sort(lat)
			q := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))] }
			line := fmt.Sprintf("round %d %-12s %d requests in %v (%.0f/s): p50 %v p90 %v p99 %v", round, mode, len(lat), elapsed.Round(time.Millisecond),
				float64(len(lat))/elapsed.Seconds(), q(.5).Round(10*time.Microsecond), q(.9).Round(10*time.Microsecond), q(.99).Round(10*time.Microsecond))
			if serve != nil {
				serve.Flush()
				st := serve.ServerStats()
				line += fmt.Sprintf("; serve received %d events, dropped %d, counted %d", st.Received, st.Dropped, serve.Report().Events)
			}
			t.Log(line)
		}
	}
}

// writeLoad runs 8 writers, each creating 5 ConfigMaps and updating them
// 1,000 times in turn, and returns every request's latency.
func writeLoad(t *testing.T, env *Env) ([]time.Duration, time.Duration) {
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const writers, updates, objects = 8, 1000, 5
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	for w := range writers {
		wg.Go(func() {
			cms := cs.CoreV1().ConfigMaps("default")
			var mine []time.Duration
			live := make([]*corev1.ConfigMap, objects)
			for i := range objects {
				t0 := time.Now()
				cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w%d-%d", w, i)}}, metav1.CreateOptions{})
				mine = append(mine, time.Since(t0))
				if err != nil {
					t.Error(err)
					return
				}
				live[i] = cm
			}
			for u := range updates {
				cm := live[u%objects]
				cm.Data = map[string]string{"n": fmt.Sprint(u)}
				t0 := time.Now()
				cm, err := cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: fmt.Sprintf("writer-%d", w)})
				mine = append(mine, time.Since(t0))
				if err != nil {
					t.Error(err)
					return
				}
				live[u%objects] = cm
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return lat, time.Since(start)
}
