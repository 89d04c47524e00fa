package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// loadBatch is a webhook batch as the API server sends one at
// RequestResponse level for writes: 400 events (its default
// --audit-webhook-batch-max-size), patches of ConfigMaps with their
// request and response bodies (about 1 KiB each), spread over objects and
// writers.
// stampLayout is a fixed-width RFC 3339 time: the benchmark stamps each
// post's events in place, later than the last post's.
const stampLayout = "2006-01-02T15:04:05.000000000Z"

func loadBatch(n int) (body []byte, stamps []int) {
	data := strings.Repeat("x", 600)
	var items []string
	for i := range 400 {
		obj := fmt.Sprintf(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-%d","namespace":"ns-%d","resourceVersion":"%d","labels":{"app":"a"}},"data":{"k":%q}}`, (n*400+i)%5000, i%50, 1000+i%7, data)
		e := map[string]any{"level": "RequestResponse", "auditID": fmt.Sprintf("%d-%d", n, i), "stage": "ResponseComplete",
			"requestURI": fmt.Sprintf("/api/v1/namespaces/ns-%d/configmaps/cm-%d?fieldManager=op-%d", i%50, i, i%20), "verb": "patch",
			"user": map[string]any{"username": fmt.Sprintf("system:serviceaccount:op:op-%d", i%20)}, "userAgent": "manager/v0.0.0 (linux/amd64) kubernetes/$Format",
			"objectRef":      map[string]any{"resource": "configmaps", "namespace": fmt.Sprintf("ns-%d", i%50), "name": fmt.Sprintf("cm-%d", (n*400+i)%5000), "apiVersion": "v1"},
			"responseStatus": map[string]any{"code": 200}, "requestObject": json.RawMessage(obj), "responseObject": json.RawMessage(obj),
			"stageTimestamp": time.Unix(0, 0).UTC().Format(stampLayout)}
		b, _ := json.Marshal(e)
		items = append(items, string(b))
	}
	body = []byte(`{"apiVersion":"audit.k8s.io/v1","kind":"EventList","metadata":{},"items":[` + strings.Join(items, ",") + "]}")
	key := []byte(`"stageTimestamp":"`)
	for i := 0; ; {
		j := bytes.Index(body[i:], key)
		if j < 0 {
			return body, stamps
		}
		i += j + len(key)
		stamps = append(stamps, i)
	}
}

// stamp copies a batch with its events completed one microsecond apart
// from the n-th post's start.
func stamp(body []byte, stamps []int, n int64) []byte {
	out := bytes.Clone(body)
	base := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * 400 * time.Microsecond)
	for k, at := range stamps {
		base.Add(time.Duration(k)*time.Microsecond).AppendFormat(out[at:at], stampLayout)
	}
	return out
}

// BenchmarkServe posts batches to serve over loopback HTTP from as many
// senders as the API server's webhook uses at once, with Run counting,
// and reports the events counted per second and the heap in use at the
// end (the bounds hold it: queue, objects, rows).
func BenchmarkServe(b *testing.B) {
	batches, stamps := make([][]byte, 16), make([][]int, 16)
	for i := range batches {
		batches[i], stamps[i] = loadBatch(i)
	}
	s := NewServer(ServeOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	var next atomic.Int64
	var peak atomic.Uint64
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for ctx.Err() == nil {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	b.SetBytes(int64(len(batches[0])))
	b.ResetTimer()
	start := time.Now()
	b.SetParallelism(2)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := next.Add(1)
			body := stamp(batches[n%16], stamps[n%16], n)
			resp, err := http.Post(srv.URL+"/audit", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			resp.Body.Close()
		}
	})
	cancel()
	<-done
	<-sampled
	elapsed := time.Since(start)
	b.StopTimer()
	st := s.ServerStats()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(s.Report().Events)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(st.Dropped), "dropped")
	b.ReportMetric(float64(peak.Load())/(1<<20), "MiB-peak-heap")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "MiB-kept")
}
