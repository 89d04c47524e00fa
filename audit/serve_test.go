package audit

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// batch turns audit log lines into the EventList the webhook posts.
func batch(lines ...string) string {
	var items []string
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			items = append(items, l)
		}
	}
	return `{"apiVersion":"audit.k8s.io/v1","kind":"EventList","metadata":{},"items":[` + strings.Join(items, ",") + "]}"
}

func post(t *testing.T, h http.Handler, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
	return rec
}

func get(t *testing.T, h http.Handler, path string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// sameRows compares the counts of two reports row by row.
func sameRows(t *testing.T, got, want *Report) {
	t.Helper()
	key := func(r *Row) string {
		return fmt.Sprintf("%+v requests=%d 409=%d noop=%d undecided=%d ccu=%d", r.Key, r.Requests, r.Conflicts, r.NoopWrites, r.Undecided, r.CreateConflictUpdate)
	}
	var g, w []string
	for _, r := range got.Rows {
		g = append(g, key(r))
	}
	for _, r := range want.Rows {
		w = append(w, key(r))
	}
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		t.Errorf("rows:\n%s\nwant\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
}

// TestServeCountsAsTheLog: the log's events, posted as webhook batches in
// the wrong order (as the API server's concurrent batches can arrive),
// give the report ssagen audit reads from the log, and the metrics say
// the same.
func TestServeCountsAsTheLog(t *testing.T) {
	want, _ := report(t, log, time.Time{})
	lines := strings.SplitAfter(log, "\n")
	s := NewServer(ServeOptions{})
	h := s.Handler()
	for _, b := range []string{batch(lines[5:]...), batch(lines[2:5]...), batch(lines[:2]...)} {
		if rec := post(t, h, "/audit", b); rec.Code != http.StatusOK {
			t.Fatalf("post: %d %s", rec.Code, rec.Body)
		}
	}
	if got := s.Report(); len(got.Rows) != 0 {
		t.Fatalf("counted before Run or Flush: %d rows", len(got.Rows))
	}
	s.Flush()
	sameRows(t, s.Report(), want)

	metrics := get(t, h, "/metrics")
	for _, line := range []string{
		`ssagen_audit_conflicts_total{field_manager="m",group="",resource="configmaps",subresource="",user="system:serviceaccount:op:op",user_agent="op/v1",verb="create"} 2`,
		`ssagen_audit_create_conflict_update_total{field_manager="m",group="",resource="configmaps",subresource="",user="system:serviceaccount:op:op",user_agent="op/v1",verb="create"} 2`,
		`ssagen_audit_noop_writes_total{field_manager="m",group="",resource="configmaps",subresource="",user="system:serviceaccount:op:op",user_agent="op/v1",verb="patch"} 1`,
		`ssagen_audit_undecided_writes_total{field_manager="m",group="",resource="configmaps",subresource="",user="system:serviceaccount:op:op",user_agent="op/v1",verb="patch"} 1`,
		`ssagen_audit_requests_total{field_manager="m",group="",resource="configmaps",subresource="status",user="system:serviceaccount:op:op",user_agent="op/v1",verb="update"} 1`,
		`ssagen_audit_events_received_total 9`,
		`ssagen_audit_batches_total{result="accepted"} 3`,
		`ssagen_audit_queued_events 0`,
	} {
		if !strings.Contains(metrics, line+"\n") {
			t.Errorf("metrics lack %s", line)
		}
	}
	if page := get(t, h, "/"); !strings.Contains(page, "<svg") || !strings.Contains(page, "configmaps") {
		t.Errorf("the page: %.300s", page)
	}
	baseline, err := ReadBaseline(strings.NewReader(get(t, h, "/report.json")))
	if err != nil || len(baseline) != len(want.Rows) {
		t.Errorf("/report.json: %d rows, %v", len(baseline), err)
	}
}

// TestServeRejects: bad batches get a 4xx with the reason, are counted by
// reason, and count nothing.
func TestServeRejects(t *testing.T) {
	s := NewServer(ServeOptions{MaxBodyBytes: 4096})
	h := s.Handler()
	line := strings.SplitAfter(log, "\n")[0]
	for _, tc := range []struct {
		body, reason string
		code         int
		says         string
	}{
		{`{"apiVersion":"audit.k8s.io/v1","kind":"EventList","items":[`, RejectMalformed, 400, "not an audit.k8s.io/v1 EventList"},
		{`[1,2,3]`, RejectMalformed, 400, "not an audit.k8s.io/v1 EventList"},
		{strings.Replace(batch(line), "audit.k8s.io/v1", "audit.k8s.io/v1beta1", 1), RejectVersion, 400, `apiVersion "audit.k8s.io/v1beta1" kind "EventList"`},
		{`{"apiVersion":"v1","kind":"List","items":[]}`, RejectVersion, 400, "want an audit.k8s.io/v1 EventList"},
		{batch(slices.Repeat([]string{line}, 20)...), RejectTooLarge, 413, "the batch is over 4096 bytes"},
	} {
		rec := post(t, h, "/audit", tc.body)
		if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.says) {
			t.Errorf("%.60s: %d %s, want %d %q", tc.body, rec.Code, rec.Body, tc.code, tc.says)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/audit", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET /audit: %d", rec.Code)
	}
	s.Flush()
	st := s.ServerStats()
	if want := map[string]int64{RejectMalformed: 2, RejectVersion: 2, RejectTooLarge: 1, RejectMethod: 1}; !equalCounts(st.Rejected, want) || st.Received != 0 || len(s.Report().Rows) != 0 {
		t.Errorf("stats %+v", st)
	}
	if m := get(t, h, "/metrics"); !strings.Contains(m, `ssagen_audit_batches_rejected_total{reason="malformed"} 2`) || !strings.Contains(m, `ssagen_audit_batches_total{result="rejected"} 6`) {
		t.Errorf("metrics: rejections not counted")
	}
}

func equalCounts(a, b map[string]int64) bool {
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return len(a) == len(b)
}

// TestServeSheds: past the queue's bound a batch is dropped, counted and
// answered 200 at once; what was queued is still counted.
func TestServeSheds(t *testing.T) {
	lines := strings.SplitAfter(log, "\n")
	s := NewServer(ServeOptions{MaxQueued: 5})
	h := s.Handler()
	for _, b := range []string{batch(lines[:4]...), batch(lines[4:8]...), batch(lines[8:]...)} {
		if rec := post(t, h, "/audit", b); rec.Code != http.StatusOK {
			t.Fatalf("post: %d", rec.Code)
		}
	}
	st := s.ServerStats()
	if st.Accepted != 2 || st.Shed != 1 || st.Dropped != 4 || st.Received != 5 || st.Queued != 5 {
		t.Fatalf("stats %+v", st)
	}
	s.Flush()
	if st := s.ServerStats(); st.Queued != 0 || s.Report().Events != 5 {
		t.Errorf("after flush: %+v, %d events", st, s.Report().Events)
	}
	if m := get(t, h, "/metrics"); !strings.Contains(m, "ssagen_audit_events_dropped_total 4\n") {
		t.Errorf("drops not in the metrics")
	}
}

// TestServeUnderLoad: many writers posting at once while Run counts: every
// batch is answered 200, and received + dropped is every event sent.
func TestServeUnderLoad(t *testing.T) {
	lines := strings.SplitAfter(log, "\n")
	s := NewServer(ServeOptions{MaxQueued: 50, MaxDecoding: 2, Hold: time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	body := batch(lines...)
	var wg sync.WaitGroup
	const posters, each = 8, 50
	errs := make(chan error, posters*each)
	for range posters {
		wg.Go(func() {
			for range each {
				resp, err := http.Post(srv.URL+"/audit", "application/json", strings.NewReader(body))
				if err != nil {
					errs <- err
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errs <- fmt.Errorf("answered %d", resp.StatusCode)
				}
			}
		})
	}
	wg.Wait()
	cancel()
	<-done
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st := s.ServerStats()
	// Batches shed before decoding are not read: their events are not
	// known, only the batches.
	sent := int64(posters * each * 9)
	if st.Accepted+st.Shed != posters*each || st.Received+st.Dropped > sent || st.Received != st.Accepted*9 || int64(s.Report().Events) != st.Received {
		t.Errorf("stats %+v, %d events counted, %d sent", st, s.Report().Events, sent)
	}
}

// TestServeBounds: the objects and rows kept stay within their bounds.
func TestServeBounds(t *testing.T) {
	var lines []string
	for i := range 100 {
		for j := range 2 {
			lines = append(lines, ev(t0, i*2+j, "patch", "configmaps", "", fmt.Sprintf("o%d", i), 200, fmt.Sprintf("writer-%d/v1", i%20), "", obj("5")))
		}
	}
	s := NewServer(ServeOptions{MaxObjects: 10, MaxRows: 5})
	post(t, s.Handler(), "/audit", batch(lines...))
	s.Flush()
	st := s.ServerStats()
	if st.Objects > 10 || st.ObjectsForgotten != 90 || st.Rows > 6 || st.RowsFolded == 0 {
		t.Errorf("stats %+v", st)
	}
	rep := s.Report()
	total, noops := 0, 0
	for _, r := range rep.Rows {
		total += r.Requests
		noops += r.NoopWrites
	}
	// Each object's second patch kept its resourceVersion: the objects
	// are written one after the other, so none is forgotten in between.
	if total != 200 || noops != 100 {
		t.Errorf("%d requests, %d no-op", total, noops)
	}
}

// TestServeHoldsAndBudget: events wait Hold before they are counted; the
// budget counts the last BudgetWindow and is exported while over.
func TestServeHoldsAndBudget(t *testing.T) {
	now := t0
	clock := func() time.Time { return now }
	b, err := ParseBudget([]byte("limits:\n- writer: op/*\n  conflicts: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(ServeOptions{Hold: 2 * time.Second, Budget: b, BudgetWindow: 10 * time.Minute, Now: clock})
	h := s.Handler()
	post(t, h, "/audit", batch(strings.SplitAfter(log, "\n")...))
	s.count(now.Add(-2 * time.Second))
	if n := s.Report().Events; n != 0 {
		t.Fatalf("%d events counted before their hold", n)
	}
	now = now.Add(3 * time.Second)
	s.count(now.Add(-2 * time.Second))
	if n := s.Report().Events; n != 9 {
		t.Fatalf("%d events counted after the hold", n)
	}
	over := s.OverBudget()
	if len(over) != 1 || over[0].Field != "conflicts" || over[0].Value != 2 || over[0].Row.Verb != "create" {
		t.Fatalf("over budget: %v", over)
	}
	m := get(t, h, "/metrics")
	if !strings.Contains(m, `ssagen_audit_over_budget{counter="conflicts",field_manager="m",group="",limit="0",resource="configmaps",subresource="",user="system:serviceaccount:op:op",user_agent="op/v1",verb="create"} 2`) ||
		!strings.Contains(m, `ssagen_audit_budget_limit{counter="conflicts",limit="0"} 1`) {
		t.Errorf("budget metrics:\n%s", m)
	}
	// Past the window, with no new 409, the budget holds again.
	for range 12 {
		now = now.Add(time.Minute)
		s.count(now)
	}
	if over := s.OverBudget(); len(over) != 0 {
		t.Errorf("over budget after the window: %v", over)
	}
	if m := get(t, h, "/metrics"); strings.Contains(m, "ssagen_audit_over_budget{") {
		t.Errorf("still over budget in the metrics")
	}
}
