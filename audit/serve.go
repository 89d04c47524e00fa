package audit

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// ServeOptions bound what a Server accepts and keeps. Zero fields take
// the defaults below.
type ServeOptions struct {
	// MaxBodyBytes is the largest batch accepted (413 past it). The API
	// server's webhook cuts its batches at 10 MiB by default
	// (--audit-webhook-truncate-max-batch-size).
	MaxBodyBytes int64
	// MaxQueued bounds the events received and not yet counted; a batch
	// that would pass it is dropped, counted, and answered 200 all the
	// same, so that the API server neither waits nor retries.
	MaxQueued int
	// MaxDecoding bounds the batches decoded at once; a batch past it is
	// dropped the same way. Default: twice GOMAXPROCS.
	MaxDecoding int
	// MaxObjects and MaxRows bound the aggregator (Aggregator.MaxObjects,
	// Aggregator.MaxRows).
	MaxObjects, MaxRows int
	// Hold is how long an event waits before it is counted, so that the
	// batches the API server sends concurrently are counted in the order
	// their requests completed. Default 2s.
	Hold time.Duration
	// SeriesWindow is the span of the per-minute chart. Default 1h.
	SeriesWindow time.Duration
	// Budget is applied to the counts of the last BudgetWindow (default
	// 10m) and exported as ssagen_audit_over_budget.
	Budget       *Budget
	BudgetWindow time.Duration
	// Now is the clock (tests).
	Now func() time.Time
}

// Defaults of ServeOptions.
const (
	DefaultMaxBodyBytes = 32 << 20
	DefaultMaxQueued    = 100_000
	DefaultMaxObjects   = 500_000
	DefaultMaxRows      = 10_000
	DefaultHold         = 2 * time.Second
	DefaultSeriesWindow = time.Hour
	DefaultBudgetWindow = 10 * time.Minute
)

func (o *ServeOptions) defaults() {
	o.MaxBodyBytes = cmp.Or(o.MaxBodyBytes, DefaultMaxBodyBytes)
	o.MaxQueued = cmp.Or(o.MaxQueued, DefaultMaxQueued)
	o.MaxDecoding = cmp.Or(o.MaxDecoding, 2*runtime.GOMAXPROCS(0))
	o.MaxObjects = cmp.Or(o.MaxObjects, DefaultMaxObjects)
	o.MaxRows = cmp.Or(o.MaxRows, DefaultMaxRows)
	o.Hold = cmp.Or(o.Hold, DefaultHold)
	o.SeriesWindow = cmp.Or(o.SeriesWindow, DefaultSeriesWindow)
	o.BudgetWindow = cmp.Or(o.BudgetWindow, DefaultBudgetWindow)
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Server receives audit events as the API server's webhook backend
// (--audit-webhook-config-file, batch mode: each POST an audit.k8s.io/v1
// EventList) and counts them as ssagen audit counts a log: ServeHTTP
// takes the batches, Run counts them, and the metrics, the page and the
// budget read the counts. Memory is bounded by ServeOptions; a restart
// starts the counts over.
type Server struct {
	opt      ServeOptions
	decoding chan struct{}
	wake     chan struct{}

	mu     sync.Mutex // guards queue and queued
	queue  []queued
	queued int

	countMu sync.Mutex // guards agg, pending, windows
	agg     Aggregator
	pending []queued // received, held (from head on), sorted by completion
	head    int
	windows []window // the counts at the start of each budget slot

	seq      atomic.Uint64
	received atomic.Int64 // events in accepted batches
	dropped  atomic.Int64 // events in shed batches
	accepted atomic.Int64 // batches
	shed     atomic.Int64 // batches
	rejectMu sync.Mutex
	rejected map[string]int64 // batches, by reason
}

type queued struct {
	record
	recv time.Time
	seq  uint64
}

// window is the counts of every row at a moment: the budget subtracts
// the oldest from the current to count the last BudgetWindow.
type window struct {
	at   time.Time
	rows map[Key]Row
}

// NewServer returns a server; Run must be running for it to count.
func NewServer(opt ServeOptions) *Server {
	opt.defaults()
	s := &Server{opt: opt, decoding: make(chan struct{}, opt.MaxDecoding), wake: make(chan struct{}, 1), rejected: map[string]int64{}}
	s.agg.MaxObjects, s.agg.MaxRows, s.agg.SeriesWindow = opt.MaxObjects, opt.MaxRows, opt.SeriesWindow
	if opt.Budget != nil {
		s.windows = []window{{at: opt.Now()}} // the start: nothing counted
	}
	return s
}

// eventList is an audit.k8s.io/v1 EventList, as the webhook posts it.
type eventList struct {
	APIVersion string  `json:"apiVersion"`
	Kind       string  `json:"kind"`
	Items      []Event `json:"items"`
}

// Rejection reasons (label reason of ssagen_audit_batches_rejected_total).
const (
	RejectMethod    = "method"
	RejectTooLarge  = "too_large"
	RejectMalformed = "malformed"
	RejectVersion   = "version"
)

// ServeWebhook is the webhook's endpoint: a POST of an EventList.
func (s *Server) ServeWebhook(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		s.reject(w, http.StatusMethodNotAllowed, RejectMethod, "POST an audit.k8s.io/v1 EventList here (the API server's audit webhook backend does)")
		return
	}
	select {
	case s.decoding <- struct{}{}:
		defer func() { <-s.decoding }()
	default:
		// Too many batches at once: answer now, without reading it.
		s.shed.Add(1)
		w.WriteHeader(http.StatusOK)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opt.MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			s.reject(w, http.StatusRequestEntityTooLarge, RejectTooLarge,
				fmt.Sprintf("the batch is over %d bytes: lower the API server's --audit-webhook-truncate-max-batch-size or raise ssagen audit serve --max-body", s.opt.MaxBodyBytes))
			return
		}
		s.reject(w, http.StatusBadRequest, RejectMalformed, "reading the batch: "+err.Error())
		return
	}
	var list eventList
	if err := json.Unmarshal(body, &list); err != nil {
		s.reject(w, http.StatusBadRequest, RejectMalformed, "not an audit.k8s.io/v1 EventList: "+err.Error())
		return
	}
	if list.APIVersion != "audit.k8s.io/v1" || list.Kind != "EventList" {
		s.reject(w, http.StatusBadRequest, RejectVersion,
			fmt.Sprintf("apiVersion %q kind %q: want an audit.k8s.io/v1 EventList (the API server's --audit-webhook-version, audit.k8s.io/v1 by default)", list.APIVersion, list.Kind))
		return
	}
	now := s.opt.Now()
	recs := make([]queued, 0, len(list.Items))
	for i := range list.Items {
		if rec, ok := list.Items[i].record(); ok {
			recs = append(recs, queued{record: rec, recv: now, seq: s.seq.Add(1)})
		}
	}
	s.mu.Lock()
	if s.queued+len(recs) > s.opt.MaxQueued {
		s.mu.Unlock()
		s.shed.Add(1)
		s.dropped.Add(int64(len(list.Items)))
		w.WriteHeader(http.StatusOK)
		return
	}
	s.queue = append(s.queue, recs...)
	s.queued += len(recs)
	s.mu.Unlock()
	s.accepted.Add(1)
	s.received.Add(int64(len(list.Items)))
	select {
	case s.wake <- struct{}{}:
	default:
	}
	w.WriteHeader(http.StatusOK)
}

func (s *Server) reject(w http.ResponseWriter, code int, reason, msg string) {
	s.rejectMu.Lock()
	s.rejected[reason]++
	s.rejectMu.Unlock()
	http.Error(w, msg, code)
}

// Run counts what the webhook receives until ctx is done, then counts
// what is left.
func (s *Server) Run(ctx context.Context) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			s.Flush()
			return
		case <-tick.C:
		case <-s.wake:
		}
		s.count(s.opt.Now().Add(-s.opt.Hold))
	}
}

// Flush counts every event received, held or not.
func (s *Server) Flush() { s.count(time.Time{}) }

// count moves the queue into the held events and counts those received
// before cut (all of them when cut is zero), in the order their requests
// completed.
func (s *Server) count(cut time.Time) {
	s.mu.Lock()
	batch := s.queue
	s.queue = nil
	s.mu.Unlock()

	s.countMu.Lock()
	defer s.countMu.Unlock()
	if len(batch) > 0 {
		slices.SortFunc(batch, byCompletion)
		s.hold(batch)
	}
	n := s.head
	for n < len(s.pending) && (cut.IsZero() || !s.pending[n].recv.After(cut)) {
		s.agg.add(&s.pending[n].record)
		n++
	}
	counted := n - s.head
	s.head = n
	if s.head == len(s.pending) {
		s.pending, s.head = s.pending[:0], 0
		if cap(s.pending) > 1<<14 {
			s.pending = nil // a burst's backlog is not kept for the next
		}
	} else if s.head > len(s.pending)/2 {
		s.pending = s.pending[:copy(s.pending, s.pending[s.head:])]
		s.head = 0
	}
	s.mu.Lock()
	s.queued -= counted
	s.mu.Unlock()
	s.slideWindow()
}

func byCompletion(x, y queued) int { return cmp.Or(x.at.Compare(y.at), cmp.Compare(x.seq, y.seq)) }

// hold adds a sorted batch to the held events, kept sorted. Batches
// mostly complete after what is held and are appended; one that
// overlaps is merged with the held events it overlaps only.
func (s *Server) hold(batch []queued) {
	held := s.pending[s.head:]
	i := len(held) - sort.Search(len(held), func(j int) bool { return byCompletion(held[len(held)-1-j], batch[0]) <= 0 })
	if i == len(held) {
		s.pending = append(s.pending, batch...)
		return
	}
	tail := merge(slices.Clone(held[i:]), batch)
	s.pending = append(s.pending[:s.head+i], tail...)
}

// merge merges two slices sorted by completion.
func merge(a, b []queued) []queued {
	out := make([]queued, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if byCompletion(b[j], a[i]) < 0 {
			out = append(out, b[j])
			j++
		} else {
			out = append(out, a[i])
			i++
		}
	}
	return append(append(out, a[i:]...), b[j:]...)
}

// budgetSlots is how many slots a budget window has: the budget counts
// the last BudgetWindow to within one slot.
const budgetSlots = 10

// slideWindow records the counts at each slot's start, and drops the
// slots older than the window. countMu is held.
func (s *Server) slideWindow() {
	if s.opt.Budget == nil {
		return
	}
	now := s.opt.Now()
	slot := s.opt.BudgetWindow / budgetSlots
	if n := len(s.windows); n > 0 && now.Sub(s.windows[n-1].at) < slot {
		return
	}
	rows := make(map[Key]Row, len(s.agg.rows))
	for k, r := range s.agg.rows {
		rows[k] = Row{Key: k, Requests: r.Requests, Conflicts: r.Conflicts, NoopWrites: r.NoopWrites, Undecided: r.Undecided, CreateConflictUpdate: r.CreateConflictUpdate}
	}
	s.windows = append(s.windows, window{at: now, rows: rows})
	for len(s.windows) > budgetSlots+1 {
		s.windows = s.windows[1:]
	}
}

// Report is the counts so far, as ssagen audit reports a log.
func (s *Server) Report() *Report {
	s.countMu.Lock()
	defer s.countMu.Unlock()
	return s.agg.Report()
}

// OverBudget checks the budget against the counts of the last
// BudgetWindow (since the start, when it is younger).
func (s *Server) OverBudget() []Overrun {
	rep, since := s.snapshot()
	return s.overBudget(rep, since)
}

// snapshot is the report so far and the counts at the start of the
// budget window, read together.
func (s *Server) snapshot() (*Report, map[Key]Row) {
	s.countMu.Lock()
	defer s.countMu.Unlock()
	var since map[Key]Row
	if len(s.windows) > 0 {
		since = s.windows[0].rows
	}
	return s.agg.Report(), since
}

// overBudget checks the budget against rep's counts less those of since;
// rep's rows are left as they are.
func (s *Server) overBudget(rep *Report, since map[Key]Row) []Overrun {
	if s.opt.Budget == nil {
		return nil
	}
	windowed := &Report{Rows: make([]*Row, 0, len(rep.Rows))}
	for _, r := range rep.Rows {
		w := *r
		if b, ok := since[r.Key]; ok {
			w.Requests -= b.Requests
			w.Conflicts -= b.Conflicts
			w.NoopWrites -= b.NoopWrites
			w.Undecided -= b.Undecided
			w.CreateConflictUpdate -= b.CreateConflictUpdate
		}
		windowed.Rows = append(windowed.Rows, &w)
	}
	return s.opt.Budget.Check(windowed)
}

// ServerStats are the server's own counts.
type ServerStats struct {
	Stats
	// Received are the events of accepted batches; Dropped those of
	// batches shed; Queued those received and not yet counted.
	Received, Dropped, Queued int64
	// Accepted and Shed are batches; Rejected those refused, by reason.
	Accepted, Shed int64
	Rejected       map[string]int64
}

// ServerStats returns the server's own counts.
func (s *Server) ServerStats() ServerStats {
	s.countMu.Lock()
	st := ServerStats{Stats: s.agg.Stats()}
	s.countMu.Unlock()
	s.mu.Lock()
	st.Queued = int64(s.queued)
	s.mu.Unlock()
	st.Received, st.Dropped, st.Accepted, st.Shed = s.received.Load(), s.dropped.Load(), s.accepted.Load(), s.shed.Load()
	s.rejectMu.Lock()
	st.Rejected = map[string]int64{}
	for k, v := range s.rejected {
		st.Rejected[k] = v
	}
	s.rejectMu.Unlock()
	return st
}

// Handler serves the webhook at /audit, the metrics at /metrics, the
// page at /, the report as JSON lines (a --baseline for ssagen audit) at
// /report.json, and /healthz.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/audit", s.ServeWebhook)
	mux.Handle("/metrics", s.metricsHandler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("GET /report.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		WriteJSON(w, s.Report())
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		rep := s.Report()
		if cut := rep.Last.Add(-s.opt.SeriesWindow); rep.First.Before(cut) {
			rep.First = cut // the chart's span: the minutes kept
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		WriteHTML(w, rep)
	})
	return mux
}
