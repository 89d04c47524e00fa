// Command testreport reads `go test -json` on its standard input, prints
// what `go test` would (the output of failing tests, a line per package),
// and writes where the time went: a table of wall time per package and per
// top-level test over a minute (times.md), and the list of the tests that
// ran with their result (tests.txt), which CI keeps to show no test was
// dropped; packages.tsv and seconds.tsv hold the same times for the
// budget check (testreport budget, budget.go). A package that times out is summed up by the tests still
// running and the step they were in, not by a goroutine dump.
//
// It exits 1 when a test or a package failed.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// event is one line of test2json's output.
type event struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string // build-output and build-fail events
	Test       string
	Elapsed    float64
	Output     string
}

type pkgState struct {
	elapsed  float64
	result   string // ok, FAIL, skip (no test files)
	output   []string
	tests    map[string]*testState
	timedOut bool
}

type testState struct {
	output  []string
	result  string
	elapsed float64
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "budget" {
		os.Exit(budgetMain(os.Args[2:], os.Stdout))
	}
	if len(os.Args) > 1 && os.Args[1] == "ran" {
		os.Exit(ranMain(os.Args[2:], os.Stdout))
	}
	dir := flag.String("dir", ".cache/test-report", "folder for times.md and tests.txt")
	title := flag.String("title", "make test", "what ran, for the table's heading")
	flag.Parse()
	r := newReport()
	if err := r.read(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if err := r.write(*dir, *title); err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if r.failed {
		os.Exit(1)
	}
}

type report struct {
	pkgs   map[string]*pkgState
	order  []string
	failed bool
}

func newReport() *report { return &report{pkgs: map[string]*pkgState{}} }

func (r *report) pkg(name string) *pkgState {
	p := r.pkgs[name]
	if p == nil {
		p = &pkgState{tests: map[string]*testState{}}
		r.pkgs[name] = p
		r.order = append(r.order, name)
	}
	return p
}

// read consumes the events, printing as go test would.
func (r *report) read(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1024*1024), 64*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// Not an event: a build error printed by go itself.
			fmt.Fprintln(out, string(line))
			if len(line) > 0 {
				r.failed = r.failed || strings.HasPrefix(string(line), "FAIL") || strings.Contains(string(line), "build failed")
			}
			continue
		}
		switch e.Action {
		case "build-output":
			fmt.Fprint(out, e.Output) // a compile error
			continue
		case "build-fail":
			r.failed = true
			continue
		}
		if e.Package == "" {
			continue
		}
		p := r.pkg(e.Package)
		if e.Test == "" {
			switch e.Action {
			case "output":
				p.output = append(p.output, e.Output)
				if strings.HasPrefix(e.Output, "panic: test timed out") {
					p.timedOut = true
				}
			case "pass", "fail", "skip":
				p.elapsed = e.Elapsed
				p.result = map[string]string{"pass": "ok", "fail": "FAIL", "skip": "skip"}[e.Action]
				r.printPackage(out, e.Package, p)
			}
			continue
		}
		t := p.tests[e.Test]
		if t == nil {
			t = &testState{}
			p.tests[e.Test] = t
		}
		switch e.Action {
		case "output":
			t.output = append(t.output, e.Output)
		case "pass", "fail", "skip":
			t.result, t.elapsed = e.Action, e.Elapsed
		}
	}
	return sc.Err()
}

// printPackage prints a finished package: the failing tests' output, and
// its summary line.
func (r *report) printPackage(out io.Writer, name string, p *pkgState) {
	if p.result != "FAIL" {
		if p.result == "ok" {
			fmt.Fprintf(out, "ok  \t%s\t%.1fs\n", name, p.elapsed)
		}
		return
	}
	r.failed = true
	if p.timedOut {
		fmt.Fprintf(out, "--- TIMEOUT %s after %.0fs: still running:\n", name, p.elapsed)
		for _, n := range sortedKeys(p.tests) {
			if t := p.tests[n]; t.result == "" {
				fmt.Fprintf(out, "    %s, in its step: %s\n", n, lastStep(t.output))
			}
		}
	}
	for _, n := range sortedKeys(p.tests) {
		t := p.tests[n]
		if t.result == "fail" {
			for _, o := range t.output {
				fmt.Fprint(out, o)
			}
		}
	}
	if !p.timedOut {
		for _, o := range p.output {
			if !strings.HasPrefix(o, "=== ") && !strings.HasPrefix(o, "--- ") {
				fmt.Fprint(out, o)
			}
		}
	}
	fmt.Fprintf(out, "FAIL\t%s\t%.1fs\n", name, p.elapsed)
}

// lastStep is the last line a test logged before the deadline: the step
// (a scratch.Run command, a t.Log) it was in.
func lastStep(output []string) string {
	for i := len(output) - 1; i >= 0; i-- {
		s := strings.TrimSpace(output[i])
		if s != "" && !strings.HasPrefix(s, "=== ") {
			return s
		}
	}
	return "(nothing logged)"
}

// write writes times.md and tests.txt, and prints the table.
func (r *report) write(dir, title string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: wall time per package\n\n", title)
	b.WriteString("Packages run in parallel (go test -p), so the times add up to more than the run took.\n\n")
	b.WriteString("| package | seconds | result |\n|---|---:|---|\n")
	names := append([]string(nil), r.order...)
	sort.SliceStable(names, func(i, j int) bool { return r.pkgs[names[i]].elapsed > r.pkgs[names[j]].elapsed })
	var slow []string
	for _, n := range names {
		p := r.pkgs[n]
		if p.result == "" || len(p.tests) == 0 && p.result != "FAIL" {
			continue
		}
		fmt.Fprintf(&b, "| %s | %.1f | %s |\n", n, p.elapsed, p.result)
		for _, tn := range sortedKeys(p.tests) {
			if t := p.tests[tn]; !strings.Contains(tn, "/") && t.elapsed >= 60 {
				slow = append(slow, fmt.Sprintf("| %s | %s | %.1f |", n, tn, t.elapsed))
			}
		}
	}
	if len(slow) > 0 {
		b.WriteString("\nTop-level tests over a minute:\n\n| package | test | seconds |\n|---|---|---:|\n")
		b.WriteString(strings.Join(slow, "\n") + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "times.md"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	var tsv strings.Builder
	for _, n := range names {
		if p := r.pkgs[n]; p.result != "" && (len(p.tests) > 0 || p.result == "FAIL") {
			fmt.Fprintf(&tsv, "%.1f\t%s\n", p.elapsed, n)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "packages.tsv"), []byte(tsv.String()), 0o644); err != nil {
		return err
	}
	fmt.Print("\n" + b.String())
	var list []string
	for _, n := range r.order {
		for tn, t := range r.pkgs[n].tests {
			if t.result != "" {
				list = append(list, fmt.Sprintf("%s %s %s", n, tn, t.result))
			}
		}
	}
	sort.Strings(list)
	if err := os.WriteFile(filepath.Join(dir, "tests.txt"), []byte(strings.Join(list, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "seconds.tsv"), []byte(r.seconds()), 0o644)
}

// seconds lists every top-level test that ran with its wall time, slowest
// first: where to look when a package grows past its budget.
func (r *report) seconds() string {
	type row struct {
		pkg, test string
		s         float64
	}
	var rows []row
	for _, n := range r.order {
		for tn, t := range r.pkgs[n].tests {
			if t.result != "" && !strings.Contains(tn, "/") {
				rows = append(rows, row{n, tn, t.elapsed})
			}
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].s != rows[j].s {
			return rows[i].s > rows[j].s
		}
		return rows[i].pkg+" "+rows[i].test < rows[j].pkg+" "+rows[j].test
	})
	var b strings.Builder
	for _, x := range rows {
		fmt.Fprintf(&b, "%.1f\t%s\t%s\n", x.s, x.pkg, x.test)
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
