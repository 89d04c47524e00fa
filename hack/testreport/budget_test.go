package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBudgetFailsWhenATestSleepsPastIt: a real go test run whose test
// sleeps past the package budget fails the check, which names the
// package; the same run within the budget passes.
func TestBudgetFailsWhenATestSleepsPastIt(t *testing.T) {
	mod := t.TempDir()
	writeTree(t, mod, map[string]string{
		"go.mod":            "module example.com/slow\n\ngo 1.26\n",
		"slow_test.go":      "package slow\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestSleeps(t *testing.T) { time.Sleep(2 * time.Second) }\n",
		"fast/fast_test.go": "package fast\n\nimport \"testing\"\n\nfunc TestFast(t *testing.T) {}\n",
	})
	start := time.Now().Unix()
	cmd := exec.Command("go", "test", "-json", "-count=1", "./...")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	events, err := cmd.Output()
	if err != nil {
		t.Fatalf("go test: %v\n%s", err, events)
	}
	reports := t.TempDir()
	r := newReport()
	if err := r.read(strings.NewReader(string(events)), &strings.Builder{}); err != nil {
		t.Fatal(err)
	}
	if err := r.write(filepath.Join(reports, "run"), "run"); err != nil {
		t.Fatal(err)
	}
	statePath := filepath.Join(reports, "budget.state")
	writeState := func(s string) {
		if err := os.WriteFile(statePath, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	budget := func(args ...string) (string, int) {
		var out strings.Builder
		code := budgetMain(append([]string{"-reports", reports, "-state", statePath, "-baseline", filepath.Join(reports, "none.tsv")}, args...), &out)
		return out.String(), code
	}

	writeState(fmt.Sprintf("start=%d\ncache=warm\ncache_files=100000\nclone=again\n", start))
	out, code := budget("-package", "1s", "-warm", "1h")
	if code != 1 || !strings.Contains(out, "OVER the package budget of 1 s: example.com/slow 2 s") || !strings.Contains(out, "the packages that grew: example.com/slow") {
		t.Errorf("a test sleeping 2 s against a 1 s package budget: exit %d\n%s", code, out)
	}
	if strings.Contains(out, "slow/fast") {
		t.Errorf("named the fast package:\n%s", out)
	}
	if out, code := budget("-package", "1m", "-warm", "1h"); code != 0 || !strings.Contains(out, "within its budget") || !strings.Contains(out, "the slowest: example.com/slow 2 s") {
		t.Errorf("within the budget: exit %d\n%s", code, out)
	}

	// The whole run against the warm budget; a clone's first run, with a
	// warm cache, against the cold one, its packages not counted.
	if out, code := budget("-now", fmt.Sprint(start+90), "-warm", "1m"); code != 1 || !strings.Contains(out, "make test: 1.5 min, OVER its budget of 1.0 min") {
		t.Errorf("a second run of 90 s against 1 min: exit %d\n%s", code, out)
	}
	writeState(fmt.Sprintf("start=%d\ncache=warm\ncache_files=100000\nclone=first\n", start))
	if out, code := budget("-now", fmt.Sprint(start+90), "-warm", "1m", "-cold", "2m", "-package", "1s"); code != 0 || !strings.Contains(out, "the first run in this clone") {
		t.Errorf("a first run of 90 s against 2 min: exit %d\n%s", code, out)
	}
	writeState(fmt.Sprintf("start=%d\ncache=cold\n", start))
	if out, code := budget("-now", fmt.Sprint(start+120), "-cold", "1m", "-package", "1s"); code != 1 || !strings.Contains(out, "cold: the Go build cache was empty") || strings.Contains(out, "package budget") {
		t.Errorf("a cold run of 2 min against 1 min: exit %d\n%s", code, out)
	}
	writeState("cache=warm\n")
	if out, code := budget(); code != 2 || !strings.Contains(out, "no start=") {
		t.Errorf("a state without its start: exit %d\n%s", code, out)
	}
}

// writeTree writes files (path → text) under root, making their folders.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
