package audit

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// rowLabels are the labels of a row's metrics: the writer, the resource
// and the verb.
var rowLabels = []string{"user", "user_agent", "field_manager", "group", "resource", "subresource", "verb"}

func rowValues(k Key) []string {
	return []string{k.User, k.UserAgent, k.FieldManager, k.Group, k.Resource, k.Subresource, k.Verb}
}

// The metrics of ssagen audit serve (docs/audit.md lists them).
var (
	descRequests  = prometheus.NewDesc("ssagen_audit_requests_total", "Requests completed, per writer, resource and verb.", rowLabels, nil)
	descConflicts = prometheus.NewDesc("ssagen_audit_conflicts_total", "Requests answered 409 Conflict.", rowLabels, nil)
	descNoop      = prometheus.NewDesc("ssagen_audit_noop_writes_total", "Updates and patches answered 200 that kept the object's resourceVersion: they changed nothing.", rowLabels, nil)
	descUndecided = prometheus.NewDesc("ssagen_audit_undecided_writes_total", "Updates and patches answered 200 whose effect the events cannot tell (no response body, or no earlier resourceVersion of the object).", rowLabels, nil)
	descCCU       = prometheus.NewDesc("ssagen_audit_create_conflict_update_total", "Creates answered 409 that the same writer followed with an update or patch of the object.", rowLabels, nil)
	descOver      = prometheus.NewDesc("ssagen_audit_over_budget", "A counter over its budget limit in the budget window: its value there (0 series when all is within budget).",
		append([]string{"limit", "counter"}, rowLabels...), nil)
	descLimit    = prometheus.NewDesc("ssagen_audit_budget_limit", "The limits of the budget.", []string{"limit", "counter"}, nil)
	descReceived = prometheus.NewDesc("ssagen_audit_events_received_total", "Events in the batches accepted.", nil, nil)
	descDropped  = prometheus.NewDesc("ssagen_audit_events_dropped_total", "Events in batches dropped because the queue was full.", nil, nil)
	descBatches  = prometheus.NewDesc("ssagen_audit_batches_total", "Batches received, by result: accepted, shed (dropped under load, answered 200), rejected (answered 4xx).", []string{"result"}, nil)
	descRejected = prometheus.NewDesc("ssagen_audit_batches_rejected_total", "Batches refused, by reason: malformed, version, too_large, method.", []string{"reason"}, nil)
	descQueued   = prometheus.NewDesc("ssagen_audit_queued_events", "Events received and not yet counted.", nil, nil)
	descObjects  = prometheus.NewDesc("ssagen_audit_objects", "Objects whose last resourceVersion is kept.", nil, nil)
	descForgot   = prometheus.NewDesc("ssagen_audit_objects_forgotten_total", "Objects forgotten past --max-objects (their next patch counts as undecided).", nil, nil)
	descRows     = prometheus.NewDesc("ssagen_audit_rows", "Rows (writer x resource x verb) kept.", nil, nil)
	descFolded   = prometheus.NewDesc("ssagen_audit_rows_folded_total", "Events of new rows counted in the overflow writer's rows past --max-rows.", nil, nil)
)

// collector exports the server's counts at each scrape.
type collector struct{ s *Server }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRequests, descConflicts, descNoop, descUndecided, descCCU, descOver, descLimit,
		descReceived, descDropped, descBatches, descRejected, descQueued, descObjects, descForgot, descRows, descFolded} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	rep, since := c.s.snapshot()
	for _, r := range rep.Rows {
		l := rowValues(r.Key)
		counter(descRequests, float64(r.Requests), l...)
		counter(descConflicts, float64(r.Conflicts), l...)
		counter(descNoop, float64(r.NoopWrites), l...)
		counter(descUndecided, float64(r.Undecided), l...)
		if r.Verb == "create" {
			counter(descCCU, float64(r.CreateConflictUpdate), l...)
		}
	}
	if b := c.s.opt.Budget; b != nil {
		for i, l := range b.Limits {
			for field, max := range map[string]*int{"conflicts": l.Conflicts, "noopWrites": l.NoopWrites, "createConflictUpdate": l.CreateConflictUpdate, "requests": l.Requests} {
				if max != nil {
					gauge(descLimit, float64(*max), strconv.Itoa(i), field)
				}
			}
		}
		for _, o := range c.s.overBudget(rep, since) {
			gauge(descOver, float64(o.Value), append([]string{strconv.Itoa(o.Limit), o.Field}, rowValues(o.Row.Key)...)...)
		}
	}
	st := c.s.ServerStats()
	counter(descReceived, float64(st.Received))
	counter(descDropped, float64(st.Dropped))
	rejected := int64(0)
	for _, reason := range []string{RejectMalformed, RejectVersion, RejectTooLarge, RejectMethod} {
		counter(descRejected, float64(st.Rejected[reason]), reason)
		rejected += st.Rejected[reason]
	}
	counter(descBatches, float64(st.Accepted), "accepted")
	counter(descBatches, float64(st.Shed), "shed")
	counter(descBatches, float64(rejected), "rejected")
	gauge(descQueued, float64(st.Queued))
	gauge(descObjects, float64(st.Objects))
	counter(descForgot, float64(st.ObjectsForgotten))
	gauge(descRows, float64(st.Rows))
	counter(descFolded, float64(st.RowsFolded))
}

// metricsHandler serves the server's metrics with the Go runtime's and
// the process's.
func (s *Server) metricsHandler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector{s}, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}
