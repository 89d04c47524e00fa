package audit

import (
	"bytes"
	"strings"
	"testing"
)

func rowsReport(rows ...*Row) *Report { return &Report{Rows: rows, Events: 10} }

func row(user, manager, resource, verb string, requests, conflicts, noop, ccu int) *Row {
	return &Row{Key: Key{Writer: Writer{User: user, UserAgent: user + "/v1 (linux)", FieldManager: manager}, Resource: resource, Verb: verb},
		Requests: requests, Conflicts: conflicts, NoopWrites: noop, CreateConflictUpdate: ccu}
}

func TestBudget(t *testing.T) {
	b, err := ParseBudget([]byte(`
limits:
- writer: "system:serviceaccount:op:*"
  conflicts: 0
  noopWrites: 2
- resource: roles.rbac.authorization.k8s.io
  verb: create
  createConflictUpdate: 0
  requests: 3
`))
	if err != nil {
		t.Fatal(err)
	}
	op := "system:serviceaccount:op:manager"
	rep := rowsReport(
		row(op, "op", "configmaps", "patch", 9, 0, 2, 0),  // within
		row(op, "op", "configmaps", "update", 4, 1, 3, 0), // two overruns
		&Row{Key: Key{Writer: Writer{User: "kargo"}, Group: "rbac.authorization.k8s.io", Resource: "roles", Verb: "create"}, Requests: 5, CreateConflictUpdate: 2},
		row("someone", "", "secrets", "update", 100, 50, 50, 0), // no limit matches
	)
	var got []string
	for _, o := range b.Check(rep) {
		got = append(got, o.String())
	}
	want := []string{
		"update configmaps by system:serviceaccount:op:manager (op): 1 409s, over the limit of 0 (limits[0])",
		"update configmaps by system:serviceaccount:op:manager (op): 3 writes that changed nothing, over the limit of 2 (limits[0])",
		"create roles.rbac.authorization.k8s.io by kargo (-): 2 Create → 409 → Update sequences, over the limit of 0 (limits[1])",
		"create roles.rbac.authorization.k8s.io by kargo (-): 5 requests, over the limit of 3 (limits[1])",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("overruns:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	for _, bad := range []struct{ src, err string }{
		{"limits: []", "no limits"},
		{"limits:\n- writer: x\n", "limits nothing"},
		{"limits:\n- writer: '['\n  conflicts: 0\n", "syntax error in pattern"},
		{"limits:\n- conflict: 0\n", "unknown field"},
	} {
		if _, err := ParseBudget([]byte(bad.src)); err == nil || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("ParseBudget(%q): %v, want %q", bad.src, err, bad.err)
		}
	}
}

func TestBaseline(t *testing.T) {
	before := rowsReport(row("op", "op", "configmaps", "update", 10, 10, 0, 0), row("op", "op", "secrets", "update", 10, 0, 0, 0))
	var buf bytes.Buffer
	if err := WriteJSON(&buf, before); err != nil {
		t.Fatal(err)
	}
	base, err := ReadBaseline(&buf)
	if err != nil {
		t.Fatal(err)
	}
	after := rowsReport(
		row("op", "op", "configmaps", "update", 10, 11, 0, 0), // +10%: within
		row("op", "op", "secrets", "update", 10, 0, 1, 0),     // from a clean row: regressed
		row("new", "", "pods", "patch", 3, 0, 2, 0),           // not in the baseline: regressed
	)
	var got []string
	for _, g := range Compare(after, base, 0.1) {
		got = append(got, g.String())
	}
	want := "update secrets by op (op): 1 wasted requests, 0 in the baseline\npatch pods by new (-): 2 wasted requests, 0 in the baseline"
	if strings.Join(got, "\n") != want {
		t.Errorf("regressions:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
	if _, err := ReadBaseline(strings.NewReader("{}\nnot json\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a bad baseline: %v", err)
	}
}

func TestMarkdown(t *testing.T) {
	r := row("op", "op", "configmaps", "update", 4, 1, 3, 0)
	r.Sites = []Site{{Pos: "controllers/cm.go:12:3", Category: "createupdate"}}
	var buf bytes.Buffer
	WriteMarkdown(&buf, rowsReport(r), []Overrun{{Row: r, Counter: "409s", Value: 1, Max: 0}}, nil)
	for _, want := range []string{"| 1 | `op` | op | configmaps | update | 4 | 1 | 3 | 0 |", "- #1 `controllers/cm.go:12:3` createupdate", "**Over budget** (1):"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, buf.String())
		}
	}
}
