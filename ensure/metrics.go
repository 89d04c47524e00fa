package ensure

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	applyTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ssagen_apply_total",
		Help: "Ensure calls by kind and result: created, configured, unchanged, skipped, conflict, error.",
	}, []string{"kind", "result"})
	applyLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "ssagen_apply_request_duration_seconds",
		Help:    "Latency of the apply requests Ensure sends, by kind.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 14),
	}, []string{"kind"})
	cacheEntries = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "ssagen_skip_cache_entries",
		Help: "Objects remembered by the default skip cache.",
	})
)

func init() {
	metrics.Registry.MustRegister(applyTotal, applyLatency, cacheEntries)
}
