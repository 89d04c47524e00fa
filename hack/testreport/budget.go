package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// budgetMain is `testreport budget`: make test's last step. It reads the
// run's state (when it started, whether the Go build cache was warm,
// whether make test ran in the clone before) and every report's
// packages.tsv, prints make test's time against its budget — the warm one
// for a second run with a warm build cache, and then every package's too;
// the cold one otherwise — and returns 1 when the run is over it, naming
// the packages that grew past the baseline.
func budgetMain(args []string, out io.Writer) int {
	fs := flag.NewFlagSet("budget", flag.ContinueOnError)
	reports := fs.String("reports", ".cache/test-report", "the folder of the runs' reports (each a folder with packages.tsv)")
	statePath := fs.String("state", ".cache/test-report/budget.state", "the run's state, written by hack/test-budget.sh start")
	baselinePath := fs.String("baseline", "hack/test-budget.tsv", "each package's warm seconds when the budget was last measured")
	warm := fs.Duration("warm", 10*time.Minute, "make test's budget with a warm Go build cache")
	cold := fs.Duration("cold", 30*time.Minute, "make test's budget with an empty Go build cache")
	pkgBudget := fs.Duration("package", 5*time.Minute, "each package's budget with a warm Go build cache")
	nowFlag := fs.Int64("now", 0, "the run's end, in Unix seconds (default: now)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	st, err := readState(*statePath)
	if err != nil {
		fmt.Fprintln(out, "testreport budget:", err)
		return 2
	}
	pkgs, err := readPackages(*reports)
	if err != nil {
		fmt.Fprintln(out, "testreport budget:", err)
		return 2
	}
	baseline, _ := readTSV(*baselinePath) // no baseline: nothing to compare with
	end := time.Now().Unix()
	if *nowFlag != 0 {
		end = *nowFlag
	}
	b := budget{warm: *warm, cold: *cold, pkg: *pkgBudget}
	text, over := b.check(st, end, pkgs, baseline, *baselinePath)
	fmt.Fprint(out, text)
	_ = os.WriteFile(filepath.Join(*reports, "budget.md"), []byte(text), 0o644)
	if over {
		return 1
	}
	return 0
}

type budget struct{ warm, cold, pkg time.Duration }

// state is what hack/test-budget.sh recorded of the run.
type state struct {
	start      int64 // Unix seconds
	coldCache  bool  // the Go build cache was (nearly) empty at the start
	cacheFiles int   // files it held, up to the count that makes it warm
	again      bool  // make test ran in this clone before
}

// check renders the run against the budget and says whether it is over.
// A second run in a clone with a warm Go build cache counts against the
// warm budget, and each of its packages against the package budget. Any
// other run — an empty cache, or a clone's first run, which builds the
// tools and compiles the clone's own packages in a new folder — counts
// against the cold budget.
func (b budget) check(st state, end int64, pkgs map[string]float64, baseline map[string]float64, baselinePath string) (string, bool) {
	var w strings.Builder
	counted := time.Duration(end-st.start) * time.Second
	warm := !st.coldCache && st.again
	limit, kind := b.cold, "cold: the Go build cache was empty"
	switch {
	case warm:
		limit, kind = b.warm, fmt.Sprintf("warm: a second run in this clone, the Go build cache holding %d files or more", st.cacheFiles)
	case !st.coldCache:
		kind = "the first run in this clone: it builds the tools and compiles the clone's packages; the warm budget is a second run's"
	}
	fmt.Fprintf(&w, "== the time budget (docs/testing.md) ==\nmake test (%s)\n", kind)
	over := counted > limit
	verdict := "within"
	if over {
		verdict = "OVER"
	}
	fmt.Fprintf(&w, "make test: %s, %s its budget of %s\n", mins(counted), verdict, mins(limit))
	var overPkgs []string
	names := sortedByTime(pkgs)
	if warm {
		for _, n := range names {
			if d := time.Duration(pkgs[n] * float64(time.Second)); d > b.pkg {
				overPkgs = append(overPkgs, fmt.Sprintf("%s %.0f s", n, pkgs[n]))
			}
		}
		if len(overPkgs) > 0 {
			over = true
			fmt.Fprintf(&w, "OVER the package budget of %s: %s\n", mins(b.pkg), strings.Join(overPkgs, ", "))
		} else if len(names) > 0 {
			fmt.Fprintf(&w, "every package within %s; the slowest: %s %.0f s\n", mins(b.pkg), names[0], pkgs[names[0]])
		}
	}
	if !over {
		return w.String(), false
	}
	var grew []string
	for _, n := range names {
		was, ok := baseline[n]
		if now := pkgs[n]; now >= min(30, b.pkg.Seconds()) && (!ok || now > was*1.2+10) {
			if ok {
				grew = append(grew, fmt.Sprintf("%s %.0f s (%.0f s in %s)", n, now, was, baselinePath))
			} else {
				grew = append(grew, fmt.Sprintf("%s %.0f s (new)", n, now))
			}
		}
	}
	if len(grew) > 0 {
		fmt.Fprintf(&w, "the packages that grew: %s\n", strings.Join(grew, "; "))
	} else {
		top := names
		if len(top) > 5 {
			top = top[:5]
		}
		for i, n := range top {
			top[i] = fmt.Sprintf("%s %.0f s", n, pkgs[n])
		}
		fmt.Fprintf(&w, "no package grew past %s; the slowest: %s\n", baselinePath, strings.Join(top, ", "))
	}
	w.WriteString("where each test's time went: .cache/test-report/*/seconds.tsv; move what need not run on every change to make test-matrix, or make it cheaper\n")
	return w.String(), true
}

func mins(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.0f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f min", d.Minutes())
}

func sortedByTime(m map[string]float64) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if m[names[i]] != m[names[j]] {
			return m[names[i]] > m[names[j]]
		}
		return names[i] < names[j]
	})
	return names
}

// readState reads key=value lines.
func readState(path string) (state, error) {
	var st state
	f, err := os.Open(path)
	if err != nil {
		return st, fmt.Errorf("%v: run make test (hack/test-budget.sh start records the run)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok {
			continue
		}
		var err error
		switch k {
		case "start":
			st.start, err = strconv.ParseInt(v, 10, 64)
		case "cache_files":
			st.cacheFiles, err = strconv.Atoi(v)
		case "cache":
			st.coldCache = v == "cold"
		case "clone":
			st.again = v == "again"
		}
		if err != nil {
			return st, fmt.Errorf("%s:%d: %s: %v", path, line, k, err)
		}
	}
	if st.start == 0 {
		return st, fmt.Errorf("%s: no start=: run make test (hack/test-budget.sh start records the run)", path)
	}
	return st, sc.Err()
}

// readPackages merges the packages.tsv of every run under dir.
func readPackages(dir string) (map[string]float64, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "packages.tsv"))
	if err != nil {
		return nil, err
	}
	all := map[string]float64{}
	for _, f := range files {
		m, err := readTSV(f)
		if err != nil {
			return nil, err
		}
		for k, v := range m {
			all[k] = v
		}
	}
	return all, nil
}

// readTSV reads "seconds<TAB>package" lines.
func readTSV(path string) (map[string]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]float64{}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, name, ok := strings.Cut(line, "\t")
		v, err := strconv.ParseFloat(s, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("%s:%d: want seconds<TAB>package, got %q", path, i+1, line)
		}
		m[name] = v
	}
	return m, nil
}
