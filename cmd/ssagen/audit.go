package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ssagen/ssagen/audit"
	"github.com/ssagen/ssagen/internal/atomicfile"
	"github.com/ssagen/ssagen/vet/driver"
)

const auditUsage = `Usage: ssagen audit [flags] FILE...|-

Reads kube-apiserver audit logs (audit.k8s.io/v1 JSON lines, gzip too) and
reports, per writer (user, user agent, field manager) x resource x verb, the
requests, 409 Conflicts, writes that changed nothing and
Create -> 409 -> Update sequences, costliest first. docs/audit.md has the
audit policy these numbers need.

With --budget (and --baseline) it is a gate for CI: the rows over a limit,
or costlier than in a previous report, are listed with the code behind
them (--source), and it exits 4.

ssagen audit serve counts the same live, as the API server's audit
webhook (ssagen audit serve -h).

Exit codes: 0 the report, 1 a file could not be read, 2 usage,
3 the report, with lines that were not audit events skipped,
4 over the budget or regressed from the baseline.

Flags:
`

// maxSkipsShown bounds the skipped lines printed; the count is always said.
const maxSkipsShown = 20

func auditCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "serve" {
		return auditServeCmd(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("ssagen audit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	since := fs.String("since", "", "only requests completed after this time: RFC 3339 (2026-11-25T10:00:00Z) or a duration before now (90m)")
	source := fs.String("source", "", "go list patterns of the operator's code (./...): join each costly row to the ssagen vet finding behind it")
	tags := fs.String("tags", "", "build tags for loading --source")
	asJSON := fs.Bool("json", false, "one JSON object a row, instead of the table")
	html := fs.String("html", "", "also write an HTML page with a chart of 409s and no-op writes per minute for each writer")
	all := fs.Bool("all", false, "print every row, not only those that wasted requests")
	markdown := fs.Bool("markdown", false, "a GitHub-flavoured Markdown summary instead of the table (for a CI log or $GITHUB_STEP_SUMMARY)")
	budgetFile := fs.String("budget", "", "a budget file (YAML): limits of 409s, no-op writes, Create→409→Update sequences and requests per writer, resource and verb; exit 4 when one is passed")
	baselineFile := fs.String("baseline", "", "a previous report (ssagen audit --json): exit 4 when a row wastes more requests than there, beyond --tolerance")
	tolerance := fs.Float64("tolerance", 0.1, "with --baseline, the growth allowed (0.1: 10%)")
	fs.Usage = func() {
		fmt.Fprint(stderr, auditUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	var budget *audit.Budget
	if *budgetFile != "" {
		data, err := os.ReadFile(*budgetFile)
		if err == nil {
			budget, err = audit.ParseBudget(data)
		}
		if err != nil {
			fmt.Fprintf(stderr, "ssagen audit: --budget %s: %v\n", *budgetFile, err)
			return 2
		}
	}
	var baseline map[audit.Key]*audit.Row
	if *baselineFile != "" {
		f, err := os.Open(*baselineFile)
		if err == nil {
			baseline, err = audit.ReadBaseline(f)
			f.Close()
		}
		if err != nil {
			fmt.Fprintf(stderr, "ssagen audit: --baseline %s: %v\n", *baselineFile, err)
			return 2
		}
	}
	var agg audit.Aggregator
	if *since != "" {
		t, err := parseSince(*since, time.Now())
		if err != nil {
			fmt.Fprintf(stderr, "ssagen audit: -since=%s: %v\n", *since, err)
			return 2
		}
		agg.Since = t
	}
	var findings []audit.Finding
	if *source != "" {
		found, err := driver.Findings(strings.Split(*source, ","), *tags)
		if err != nil {
			fmt.Fprintf(stderr, "ssagen audit: --source: %v\n", err)
			return 1
		}
		wd, _ := os.Getwd()
		for _, f := range found {
			pos := f.Pos
			if rel, err := filepath.Rel(wd, pos.Filename); err == nil && !strings.HasPrefix(rel, "..") {
				pos.Filename = rel
			}
			findings = append(findings, audit.Finding{Pos: pos.String(), Category: f.Category, Message: f.Message, Kind: f.Kind, Status: f.Status})
		}
	}
	skipped := 0
	skip := func(s audit.Skip) {
		skipped++
		if skipped <= maxSkipsShown {
			fmt.Fprintf(stderr, "ssagen audit: skipped %s\n", s)
		}
	}
	for _, name := range fs.Args() {
		if err := readLog(name, stdin, stderr, agg.Add, skip); err != nil {
			fmt.Fprintf(stderr, "ssagen audit: %v\n", err)
			return 1
		}
	}
	if skipped > maxSkipsShown {
		fmt.Fprintf(stderr, "ssagen audit: skipped %d lines in all (the first %d are listed)\n", skipped, maxSkipsShown)
	}
	rep := agg.Report()
	rep.Skipped = skipped
	var unexplained []*audit.Row
	if *source != "" {
		unexplained = audit.Join(rep, findings)
	}
	var overruns []audit.Overrun
	var regressions []audit.Regression
	if budget != nil {
		overruns = budget.Check(rep)
	}
	if baseline != nil {
		regressions = audit.Compare(rep, baseline, *tolerance)
	}
	var err error
	switch {
	case *asJSON:
		err = audit.WriteJSON(stdout, rep)
	case *markdown:
		err = audit.WriteMarkdown(stdout, rep, overruns, regressions)
	default:
		err = audit.WriteTable(stdout, rep, *all)
		for _, r := range unexplained {
			fmt.Fprintf(stdout, "no finding of ssagen vet in %s explains %s %s %s (%s): its writes come from elsewhere, or from a pattern vet does not know\n",
				*source, r.User, r.Verb, r.Resource, r.UserAgent)
		}
	}
	if err == nil && *html != "" {
		err = writeHTML(*html, rep)
	}
	if err != nil {
		fmt.Fprintf(stderr, "ssagen audit: %v\n", err)
		return 1
	}
	if len(overruns)+len(regressions) > 0 {
		if !*markdown {
			printGate(stdout, overruns, regressions)
		}
		return 4
	}
	if skipped > 0 {
		return 3
	}
	return 0
}

// printGate lists what failed the gate, each row with the code behind it.
func printGate(w io.Writer, overruns []audit.Overrun, regressions []audit.Regression) {
	for _, o := range overruns {
		fmt.Fprintf(w, "over budget: %s\n", o)
		for _, s := range o.Row.Sites {
			fmt.Fprintf(w, "    %s %s\n", s.Pos, s.Category)
		}
	}
	for _, g := range regressions {
		fmt.Fprintf(w, "regressed: %s\n", g)
	}
}

// parseSince reads -since: a time, or a duration before now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, errors.New("want an RFC 3339 time (2026-11-25T10:00:00Z) or a duration (90m)")
	}
	return t, nil
}

// readLog reads one file ("-": standard input), saying how far it is on
// standard error every few seconds on a long read.
func readLog(name string, stdin io.Reader, stderr io.Writer, each func(*audit.Event), skip func(audit.Skip)) error {
	var r io.Reader = stdin
	var size int64
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
		}
		r = f
	}
	p := &progress{r: r, name: name, size: size, out: stderr, next: time.Now().Add(3 * time.Second)}
	err := audit.Read(p, name, each, skip)
	if p.said {
		fmt.Fprintf(stderr, "\r%s: read %s%s\n", name, mib(p.n), strings.Repeat(" ", 20))
	}
	return err
}

// progress is a reader that prints how much it has read, at most every
// few seconds (only reads that take that long print anything).
type progress struct {
	r       io.Reader
	name    string
	n, size int64
	out     io.Writer
	next    time.Time
	said    bool
}

func (p *progress) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if now := time.Now(); now.After(p.next) {
		p.next = now.Add(3 * time.Second)
		p.said = true
		if p.size > 0 {
			fmt.Fprintf(p.out, "\r%s: %s of %s read", p.name, mib(p.n), mib(p.size))
		} else {
			fmt.Fprintf(p.out, "\r%s: %s read", p.name, mib(p.n))
		}
	}
	return n, err
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func writeHTML(path string, rep *audit.Report) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return audit.WriteHTML(w, rep) })
}
