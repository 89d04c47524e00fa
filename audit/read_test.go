package audit

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// ev is one audit event line.
func ev(t0 time.Time, sec int, verb, resource, sub, name string, code int, ua string, req, resp string) string {
	e := map[string]any{"apiVersion": "audit.k8s.io/v1", "kind": "Event", "level": "RequestResponse", "stage": "ResponseComplete",
		"requestURI": "/api/v1/namespaces/ns/" + resource + "/" + name + "?fieldManager=m", "verb": verb,
		"user": map[string]any{"username": "system:serviceaccount:op:op"}, "userAgent": ua,
		"objectRef":      map[string]any{"resource": resource, "namespace": "ns", "name": name, "apiVersion": "v1", "subresource": sub},
		"responseStatus": map[string]any{"code": code}, "stageTimestamp": t0.Add(time.Duration(sec) * time.Second).Format(time.RFC3339Nano)}
	if req != "" {
		e["requestObject"] = json.RawMessage(req)
	}
	if resp != "" {
		e["responseObject"] = json.RawMessage(resp)
	}
	b, _ := json.Marshal(e)
	return string(b) + "\n"
}

func obj(rv string) string {
	return fmt.Sprintf(`{"kind":"ConfigMap","metadata":{"resourceVersion":%q}}`, rv)
}

var t0 = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

// log is a writer's Create → 409 → Update twice, a no-op patch, a patch
// that changed the object, a status update that 409s, and a patch whose
// effect the log cannot tell.
var log = ev(t0, 0, "create", "configmaps", "", "a", 201, "op/v1", obj(""), obj("10")) +
	ev(t0, 30, "create", "configmaps", "", "a", 409, "op/v1", obj(""), `{"kind":"Status","code":409}`) +
	ev(t0, 31, "update", "configmaps", "", "a", 200, "op/v1", obj(""), obj("10")) +
	ev(t0, 60, "create", "configmaps", "", "a", 409, "op/v1", obj(""), `{"kind":"Status","code":409}`) +
	ev(t0, 61, "update", "configmaps", "", "a", 200, "op/v1", obj(""), obj("11")) +
	ev(t0, 90, "patch", "configmaps", "", "a", 200, "op/v1", "", obj("11")) +
	ev(t0, 120, "update", "configmaps", "status", "a", 409, "op/v1", obj("9"), `{"kind":"Status","code":409}`) +
	ev(t0, 150, "patch", "configmaps", "", "b", 200, "op/v1", "", obj("3")) +
	ev(t0, 180, "get", "configmaps", "", "a", 200, "other/v2", "", "")

func report(t *testing.T, in string, since time.Time) (*Report, []Skip) {
	t.Helper()
	agg := Aggregator{Since: since}
	var skips []Skip
	if err := Read(strings.NewReader(in), "audit.log", agg.Add, func(s Skip) { skips = append(skips, s) }); err != nil {
		t.Fatal(err)
	}
	rep := agg.Report()
	rep.Skipped = len(skips)
	return rep, skips
}

func rowOf(rep *Report, verb, sub string) *Row {
	for _, r := range rep.Rows {
		if r.Verb == verb && r.Subresource == sub && r.UserAgent == "op/v1" {
			return r
		}
	}
	return nil
}

func TestAggregate(t *testing.T) {
	rep, skips := report(t, log, time.Time{})
	if len(skips) != 0 || rep.Events != 9 {
		t.Fatalf("%d events, skips %v", rep.Events, skips)
	}
	create, update, patch, status := rowOf(rep, "create", ""), rowOf(rep, "update", ""), rowOf(rep, "patch", ""), rowOf(rep, "update", "status")
	if create.Requests != 3 || create.Conflicts != 2 || create.CreateConflictUpdate != 2 {
		t.Errorf("create %+v", create)
	}
	// The first update kept resourceVersion 10 (nothing changed), the second made it 11.
	if update.Requests != 2 || update.NoopWrites != 1 || update.Undecided != 0 {
		t.Errorf("update %+v", update)
	}
	// The patch of a kept 11 changed nothing; b's patch has no earlier version.
	if patch.Requests != 2 || patch.NoopWrites != 1 || patch.Undecided != 1 {
		t.Errorf("patch %+v", patch)
	}
	if status.Conflicts != 1 || status.FieldManager != "m" || status.User != "system:serviceaccount:op:op" {
		t.Errorf("status %+v", status)
	}
	// Costliest first: the creates (2 409s), then update, patch, status.
	if rep.Rows[0] != create || rep.Minutes() != 3 || create.ConflictsPerMinute != 2.0/3 {
		t.Errorf("first row %+v, %v minutes", rep.Rows[0].Key, rep.Minutes())
	}
	if ms := rep.Series[create.Writer]; len(ms) != 3 || ms[0] != (Minute{t0, 1, 1}) || ms[1] != (Minute{t0.Add(time.Minute), 1, 1}) || ms[2] != (Minute{t0.Add(2 * time.Minute), 1, 0}) {
		t.Errorf("series %+v", ms)
	}
	// --since drops what came before.
	rep, _ = report(t, log, t0.Add(100*time.Second))
	if rep.Events != 3 || rowOf(rep, "create", "") != nil {
		t.Errorf("since: %d events", rep.Events)
	}
}

// TestBadLines: each line that is not an audit event is reported with its
// number and skipped; the rest is read.
func TestBadLines(t *testing.T) {
	lines := strings.SplitAfter(log, "\n")
	in := lines[0] + "not json at all\n" + `{"apiVersion":"audit.k8s.io/v1beta1","kind":"Event"}` + "\n" + `{"kind":"ConfigMap"}` + "\n" + lines[1] + lines[2][:40]
	rep, skips := report(t, in, time.Time{})
	want := []string{
		"audit.log:2: not a JSON object (a truncated line?)",
		`audit.log:3: apiVersion "audit.k8s.io/v1beta1" kind "Event": not an audit.k8s.io/v1 Event`,
		`audit.log:4: apiVersion "" kind "ConfigMap": not an audit.k8s.io/v1 Event`,
		"audit.log:6: the last line is cut short",
	}
	if len(skips) != len(want) {
		t.Fatalf("skips %v", skips)
	}
	for i, w := range want {
		if !strings.HasPrefix(skips[i].String(), w) {
			t.Errorf("skip %d: %s, want %s", i, skips[i], w)
		}
	}
	if rep.Events != 2 {
		t.Errorf("%d events read around the bad lines", rep.Events)
	}
}

func TestGzip(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(log))
	zw.Close()
	rep, skips := report(t, b.String(), time.Time{})
	if rep.Events != 9 || len(skips) != 0 {
		t.Errorf("gzip: %d events, skips %v", rep.Events, skips)
	}
}

func TestOutputs(t *testing.T) {
	rep, _ := report(t, log, time.Time{})
	Join(rep, []Finding{
		{Pos: "c.go:3:2", Category: "create-update", Message: "Create → AlreadyExists → Update: …; fix: ensure.EnsureConfigMap: one apply", Kind: "ConfigMap"},
		{Pos: "c.go:9:2", Category: "create-update", Message: "…; fix: rbacensure.EnsureRole: one apply", Kind: "Role"},
		{Pos: "c.go:20:2", Category: "status-update", Message: "…; fix: EnsureConfigMapStatus (…)", Kind: "ConfigMap", Status: true},
	})
	var js bytes.Buffer
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(js.String(), "\n", 2)[0]
	for _, field := range []string{`"writer":`, `"userAgent":"op/v1"`, `"group":""`, `"resource":"configmaps"`, `"subresource":""`, `"verb":"create"`, `"requests":3`, `"conflicts":2`, `"noopWrites":0`, `"createConflictUpdate":2`, `"sites":[{"pos":"c.go:3:2","category":"create-update"`} {
		if !strings.Contains(first, field) {
			t.Errorf("JSON row %s lacks %s", first, field)
		}
	}
	var tbl bytes.Buffer
	if err := WriteTable(&tbl, rep, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tbl.String(), "c.go:3:2") || !strings.Contains(tbl.String(), "c.go:20:2") || strings.Contains(tbl.String(), "other/v2") {
		t.Errorf("table:\n%s", tbl.String())
	}
	var h1, h2 bytes.Buffer
	if err := WriteHTML(&h1, rep); err != nil {
		t.Fatal(err)
	}
	WriteHTML(&h2, rep)
	if h1.String() != h2.String() || !strings.Contains(h1.String(), "<svg") || !strings.Contains(h1.String(), `class="c"`) {
		t.Errorf("HTML not deterministic or without a chart")
	}
}

// BenchmarkRead reads and aggregates a log of 10,000 events on 100
// objects: the per-event cost of a multi-GB log (docs/audit.md).
func BenchmarkRead(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 10000; i++ {
		name := fmt.Sprintf("o%d", i%100)
		sb.WriteString(ev(t0, i, "patch", "configmaps", "", name, 200, "op/v1", "", obj(fmt.Sprint(i/100))))
	}
	in := sb.String()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		var agg Aggregator
		if err := Read(strings.NewReader(in), "bench", agg.Add, func(Skip) { b.Fatal("skip") }); err != nil {
			b.Fatal(err)
		}
		if rep := agg.Report(); rep.Events != 10000 {
			b.Fatal(rep.Events)
		}
	}
}
