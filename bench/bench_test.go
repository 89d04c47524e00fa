package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/ssagen/ssagen/internal/testenv"
)

// TestSmoke runs every pattern through every scenario at a small size,
// writes the report and checks the counts that do not depend on timing.
func TestSmoke(t *testing.T) {
	testenv.Require(t)
	ctrl.SetLogger(logr.Discard())
	res, err := Run(context.Background(), Smoke, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	md := filepath.Join(dir, "docs", "benchmarks.md")
	if err := Report(res, Machine{CPU: "test"}, "go test", md, filepath.Join(dir, "docs", "benchmarks")); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	// Saved results render the same report again (`make bench-report`).
	saved, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var again Results
	if err := json.Unmarshal(saved, &again); err != nil {
		t.Fatal(err)
	}
	md2 := filepath.Join(dir, "again", "benchmarks.md")
	if err := Report(&again, Machine{CPU: "test"}, "go test", md2, filepath.Join(dir, "again", "benchmarks")); err != nil {
		t.Fatal(err)
	}
	if text2, err := os.ReadFile(md2); err != nil || string(text2) != string(text) {
		t.Errorf("the report rendered from saved results differs (%v)", err)
	}
	for _, want := range []string{"## Scenario \"projects\"", "## Scenario \"proxy\"", "## Scenario \"sandbox\"", "## Targets", "### Removal", "](benchmarks/projects-requests.svg)"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, f := range []string{"projects-requests.svg", "proxy-ready.svg", "sandbox-reconciles.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, "docs", "benchmarks", f))
		if err != nil || !strings.Contains(string(b), "<svg") {
			t.Errorf("chart %s: %v", f, err)
		}
	}

	p, k := Smoke.Projects[0], Smoke.Resyncs
	for _, r := range res.Projects {
		if r.CrossCheck != "" {
			t.Errorf("projects %s: the API server counted otherwise: %s", r.Pattern, r.CrossCheck)
		}
		if r.Initial.ControllerWrites() != 5*p || r.Change.ControllerWrites() != 2*p {
			t.Errorf("projects %s: %d objects created, %d changed; want %d, %d", r.Pattern, r.Initial.ControllerWrites(), r.Change.ControllerWrites(), 5*p, 2*p)
		}
		var want map[string]int
		switch r.Pattern {
		case "create-update":
			want = map[string]int{"POST 409": 5 * p * k, "PUT 200": 5 * p * k}
		case "ssa-by-hand", "ensure-nocache":
			want = map[string]int{"APPLY 200": 5 * p * k}
		case "create-or-update", "create-or-patch", "ensure":
			want = map[string]int{}
		}
		if got := byVerbCode(r.Resync.Requests); !equal(got, want) {
			t.Errorf("projects %s: %d unchanged resyncs sent %v, want %v", r.Pattern, k, got, want)
		}
		if r.Resync.ControllerWrites() != 0 {
			t.Errorf("projects %s: unchanged resyncs changed %d objects", r.Pattern, r.Resync.ControllerWrites())
		}
	}
	if len(res.Removal) != len(Removals)*len(Smoke.Projects) {
		t.Errorf("%d removal results, want %d", len(res.Removal), len(Removals)*len(Smoke.Projects))
	}
	for _, r := range res.Removal {
		if r.CrossCheck != "" {
			t.Errorf("removal %s: the API server counted otherwise: %s", r.Method, r.CrossCheck)
		}
		if r.Leaked != 0 {
			t.Errorf("removal %s: %d children left after the projects' deletion", r.Method, r.Leaked)
		}
		if got := byVerbCode(r.Drop.Requests)["DELETE 200"]; got != 3*p {
			t.Errorf("removal %s: %d DELETEs for a dropped namespace, want %d", r.Method, got, 3*p)
		}
		if r.Method != "ensure" {
			continue
		}
		if got := byVerbCode(r.Steady.Requests); len(got) != 0 {
			t.Errorf("removal ensure: nothing to remove sent %v", got)
		}
		if got, want := byVerbCode(r.Drop.Requests), map[string]int{"DELETE 200": 3 * p}; !equal(got, want) {
			t.Errorf("removal ensure: a dropped namespace sent %v, want %v", got, want)
		}
		if got, want := byVerbCode(r.Delete.Requests), map[string]int{"DELETE 200": 5 * p, "PATCH 200": p}; !equal(got, want) {
			t.Errorf("removal ensure: the deletion sent %v, want %v", got, want)
		}
	}
	for _, r := range res.Proxy {
		if r.CrossCheck != "" {
			t.Errorf("proxy %s: %s", r.Pattern, r.CrossCheck)
		}
		if len(r.ToReady) != Smoke.Proxies {
			t.Errorf("proxy %s: %d proxies Ready, want %d", r.Pattern, len(r.ToReady), Smoke.Proxies)
		}
		if r.Pattern == "ensure" || r.Pattern == "ssa-by-hand" || r.Pattern == "ensure-nocache" {
			if n := r.Measure.Conflicts(); n != 0 {
				t.Errorf("proxy %s: %d 409s", r.Pattern, n)
			}
		}
	}
	for _, r := range res.Sandbox {
		if r.CrossCheck != "" {
			t.Errorf("sandbox %s: %s", r.Pattern, r.CrossCheck)
		}
		if r.Pattern == "ensure" {
			if r.Start.Reconciles != RealChanges*r.N || r.Start.Conflicts() != 0 || r.Start.ControllerWrites() != r.N {
				t.Errorf("sandbox ensure: %d reconciles, %d 409s, %d writes for %d pod starts; want one reconcile and one status write each, no 409",
					r.Start.Reconciles, r.Start.Conflicts(), r.Start.ControllerWrites(), r.N)
			}
		}
		if r.Pattern == "create-update" && r.Start.Reconciles <= r.N {
			t.Errorf("sandbox create-update: %d reconciles for %d pod starts; plain Owns() should requeue on kubelet writes", r.Start.Reconciles, r.N)
		}
	}
}

func byVerbCode(r Requests) map[string]int {
	out := map[string]int{}
	for k, v := range r {
		if k.Verb != "WATCH" {
			out[strings.Join([]string{k.Verb, itoa(k.Code)}, " ")] += v
		}
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

func equal(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
