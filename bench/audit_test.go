package bench

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/ssagen/ssagen/audit"
	"github.com/ssagen/ssagen/audit/auditenvtest"
	"github.com/ssagen/ssagen/internal/testenv"
)

// auditVerbs are the audit log's verbs for the requests the benchmark
// counts (an apply is a patch there).
var auditVerbs = map[string]string{"GET": "get", "POST": "create", "PUT": "update", "PATCH": "patch", "APPLY": "patch", "DELETE": "delete"}

// TestAuditAgrees runs the projects scenario for every write pattern on an
// API server writing an audit log, and checks that ssagen audit reports,
// for the controller, exactly what the benchmark counted itself: requests
// by verb and resource (the five child kinds and the Projects' status),
// 409s, and the child writes that changed nothing (the benchmark's are its
// update and patch answers 200 less the resourceVersion changes its
// informers saw).
func TestAuditAgrees(t *testing.T) {
	testenv.Require(t)
	ctrl.SetLogger(logr.Discard())
	children := map[string]bool{"roles": true, "rolebindings": true, "serviceaccounts": true, "clusterroles": true, "clusterrolebindings": true}
	for _, p := range Patterns {
		name := p.Name
		t.Run(name, func(t *testing.T) {
			// Both backends in one run: the log, and ssagen audit serve
			// as the webhook.
			dir := t.TempDir()
			serve := audit.NewServer(audit.ServeOptions{Hold: 100 * time.Millisecond})
			srv := httptest.NewServer(serve.Handler())
			defer srv.Close()
			ctx, stopServe := context.WithCancel(context.Background())
			served := make(chan struct{})
			go func() { serve.Run(ctx); close(served) }()
			res, err := RunProjects(context.Background(), p, 3, 2, 2, Audit(auditenvtest.Options{Dir: dir, WebhookURL: srv.URL + "/audit", BatchMaxWait: 200 * time.Millisecond}))
			stopServe() // the API server has stopped and sent its last batches
			<-served
			if err != nil {
				t.Fatal(err)
			}
			log := filepath.Join(dir, "audit.log")
			want, wantConflicts := map[string]int{}, map[string]int{}
			okWrites, bumps := 0, res.Initial.Bumps+res.Resync.Bumps+res.Change.Bumps
			for k, n := range sum(res.Initial, res.Resync, res.Change).Requests {
				verb, ok := auditVerbs[k.Verb]
				if !ok || !(children[k.Resource] || k.Resource == "projects/status") {
					continue
				}
				want[verb+" "+k.Resource] += n
				if k.Code == 409 {
					wantConflicts[verb+" "+k.Resource] += n
				}
				if (verb == "update" || verb == "patch") && k.Code == 200 && children[k.Resource] {
					okWrites += n
				}
			}
			wantNoops := okWrites - bumps

			var agg audit.Aggregator
			if err := audit.ReadFile(log, agg.Add, func(s audit.Skip) { t.Errorf("skipped %s", s) }); err != nil {
				t.Fatal(err)
			}
			got, gotConflicts := map[string]int{}, map[string]int{}
			gotNoops, undecided, ccu := 0, 0, 0
			for _, r := range agg.Report().Rows {
				resource := r.Resource
				if r.Subresource != "" {
					resource += "/" + r.Subresource
				}
				if r.UserAgent != UserAgent(p) || !(children[resource] || resource == "projects/status") || r.Verb == "list" || r.Verb == "watch" {
					continue
				}
				got[r.Verb+" "+resource] += r.Requests
				if r.Conflicts > 0 {
					gotConflicts[r.Verb+" "+resource] += r.Conflicts
				}
				if children[resource] {
					gotNoops += r.NoopWrites
					undecided += r.Undecided
				}
				ccu += r.CreateConflictUpdate
			}
			if !equal(got, want) {
				t.Errorf("requests: audit %v, benchmark %v", got, want)
			}
			if !equal(gotConflicts, wantConflicts) {
				t.Errorf("409s: audit %v, benchmark %v", gotConflicts, wantConflicts)
			}
			if gotNoops != wantNoops || undecided != 0 {
				t.Errorf("writes that changed nothing: audit %d (%d undecided), benchmark %d (%d update/patch answered 200, %d resourceVersion changes)",
					gotNoops, undecided, wantNoops, okWrites, bumps)
			}
			// Create → AlreadyExists → Update is the create-update pattern:
			// every unchanged resync of every child is one.
			if (name == "create-update") != (ccu > 0) {
				t.Errorf("Create → 409 → Update sequences: %d", ccu)
			}
			// The CI gate: a budget of no 409, no write that changed
			// nothing and no Create → 409 → Update for the controller
			// passes the ensure pattern and fails create-update.
			budget, err := audit.ParseBudget([]byte("limits:\n- writer: " + UserAgent(p) + "\n  conflicts: 0\n  noopWrites: 0\n  createConflictUpdate: 0\n"))
			if err != nil {
				t.Fatal(err)
			}
			over := budget.Check(agg.Report())
			if name == "ensure" && len(over) > 0 || name == "create-update" && len(over) == 0 {
				t.Errorf("over budget: %v", over)
			}
			// The webhook's metrics say what the log says, row by row.
			fromLog := rowsOf(agg.Report(), UserAgent(p))
			fromMetrics := metricRows(t, srv.URL+"/metrics", UserAgent(p))
			if !maps.Equal(fromMetrics, fromLog) || len(fromLog) == 0 {
				t.Errorf("ssagen audit serve's metrics:\n%v\nthe log:\n%v", fromMetrics, fromLog)
			}
			if st := serve.ServerStats(); st.Dropped != 0 || st.Shed != 0 || sumCounts(st.Rejected) != 0 {
				t.Errorf("the webhook lost batches: %+v", st)
			}
			t.Logf("%s: %d requests, %d 409s, %d writes that changed nothing, %d Create → 409 → Update", name, sumOf(got), sumOf(gotConflicts), gotNoops, ccu)
		})
	}
}

func sumOf(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// counts are a row's numbers, as text: "requests=… 409=… noop=…".
func counts(requests, conflicts, noops, undecided, ccu float64) string {
	return fmt.Sprintf("requests=%v 409=%v noop=%v undecided=%v ccu=%v", requests, conflicts, noops, undecided, ccu)
}

// rowsOf are the rows of a user agent's writes (watches end when the
// server stops, after the webhook's last batch; reads are left out with them).
func rowsOf(rep *audit.Report, userAgent string) map[string]string {
	out := map[string]string{}
	for _, r := range rep.Rows {
		if r.UserAgent != userAgent || !writeVerb[r.Verb] {
			continue
		}
		out[r.Verb+" "+r.Resource+"/"+r.Subresource] = counts(float64(r.Requests), float64(r.Conflicts), float64(r.NoopWrites), float64(r.Undecided), float64(r.CreateConflictUpdate))
	}
	return out
}

var writeVerb = map[string]bool{"create": true, "update": true, "patch": true, "delete": true}

// metricRows scrapes ssagen audit serve's metrics into the same rows.
func metricRows(t *testing.T, url, userAgent string) map[string]string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ requests, conflicts, noops, undecided, ccu float64 }
	rows := map[string]*row{}
	for name, field := range map[string]func(*row, float64){
		"ssagen_audit_requests_total":               func(r *row, v float64) { r.requests = v },
		"ssagen_audit_conflicts_total":              func(r *row, v float64) { r.conflicts = v },
		"ssagen_audit_noop_writes_total":            func(r *row, v float64) { r.noops = v },
		"ssagen_audit_undecided_writes_total":       func(r *row, v float64) { r.undecided = v },
		"ssagen_audit_create_conflict_update_total": func(r *row, v float64) { r.ccu = v },
	} {
		for _, m := range families[name].GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			if l["user_agent"] != userAgent || !writeVerb[l["verb"]] {
				continue
			}
			k := l["verb"] + " " + l["resource"] + "/" + l["subresource"]
			if rows[k] == nil {
				rows[k] = &row{}
			}
			field(rows[k], m.GetCounter().GetValue())
		}
	}
	out := map[string]string{}
	for k, r := range rows {
		out[k] = counts(r.requests, r.conflicts, r.noops, r.undecided, r.ccu)
	}
	return out
}

func sumCounts(m map[string]int64) int64 {
	n := int64(0)
	for _, v := range m {
		n += v
	}
	return n
}
