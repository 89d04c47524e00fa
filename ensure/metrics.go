package ensure

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	applyTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ssagen_apply_total",
		Help: "Ensure calls by client (MetricsName), kind and result: created, configured, unchanged, skipped, conflict, error.",
	}, []string{"client", "kind", "result"})
	applyLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "ssagen_apply_request_duration_seconds",
		Help:    "Latency of the apply requests Ensure sends, by client (MetricsName) and kind.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 14),
	}, []string{"client", "kind"})
	repairTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ssagen_repair_total",
		Help: "Repairs Ensure made, by client (MetricsName), kind and repair: managed-fields-reset, stale-api-version, former-managers, resource-version-dropped.",
	}, []string{"client", "kind", "repair"})
	cacheEntries = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ssagen_skip_cache_entries",
		Help: "Objects remembered by each named Client (MetricsName).",
	}, []string{"client"})
)

// RegisterMetrics registers the runtime's metrics with r, once per
// registry; calling it again is harmless. Nothing is registered behind
// your back: a manager's binary calls it with controller-runtime's
// registry, next to its other setup:
//
//	ensure.RegisterMetrics(metrics.Registry) // sigs.k8s.io/controller-runtime/pkg/metrics
func RegisterMetrics(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{applyTotal, applyLatency, repairTotal, cacheEntries, fightTotal} {
		if err := r.Register(c); err != nil {
			var already prometheus.AlreadyRegisteredError
			if !errors.As(err, &already) {
				return err
			}
		}
	}
	return nil
}
