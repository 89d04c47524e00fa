package audit

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// resource names a row's resource as kubectl does: resource.group/subresource.
func (k Key) resource() string {
	s := k.Resource
	if k.Group != "" {
		s += "." + k.Group
	}
	if k.Subresource != "" {
		s += "/" + k.Subresource
	}
	return s
}

// agent is the user agent's product token ("manager/v0.0.0").
func agent(ua string) string {
	if i := strings.IndexByte(ua, ' '); i > 0 {
		return ua[:i]
	}
	return ua
}

// WriteTable prints the rows that cost something (all rows with all),
// then the sites --source found behind them, by row number.
func WriteTable(w io.Writer, rep *Report, all bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tWRITER\tAGENT\tMANAGER\tRESOURCE\tVERB\tREQUESTS\t409\t409/MIN\tNO-OP\tUNDECIDED\tCREATE→409→UPDATE")
	var shown []*Row
	for _, r := range rep.Rows {
		if !all && r.Cost() == 0 && r.CreateConflictUpdate == 0 {
			continue
		}
		shown = append(shown, r)
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%.1f\t%d\t%d\t%d\n", len(shown), r.User, agent(r.UserAgent), dash(r.FieldManager), r.resource(), r.Verb,
			r.Requests, r.Conflicts, r.ConflictsPerMinute, r.NoopWrites, r.Undecided, r.CreateConflictUpdate)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(shown) == 0 {
		fmt.Fprintln(w, "no 409s and no writes that changed nothing")
	}
	for i, r := range shown {
		for _, s := range r.Sites {
			fix := s.Message
			if _, after, ok := strings.Cut(s.Message, "; fix: "); ok {
				fix = "fix: " + after
			}
			fmt.Fprintf(w, "#%d %s %s: %s %s\n    %s\n", i+1, r.Verb, r.resource(), s.Pos, s.Category, fix)
		}
	}
	_, err := fmt.Fprintf(w, "%d requests from %s to %s (%.0f min); %d lines skipped\n", rep.Events,
		rep.First.UTC().Format(time.RFC3339), rep.Last.UTC().Format(time.RFC3339), rep.Minutes(), rep.Skipped)
	return err
}

// WriteMarkdown writes a GitHub-flavoured Markdown summary for a CI log or
// a job summary ($GITHUB_STEP_SUMMARY): the rows that wasted requests,
// their sites, and what passed a budget or regressed from a baseline.
func WriteMarkdown(w io.Writer, rep *Report, overruns []Overrun, regressions []Regression) error {
	fmt.Fprintf(w, "### ssagen audit: %d requests over %.0f min\n\n", rep.Events, rep.Minutes())
	var shown []*Row
	for _, r := range rep.Rows {
		if r.Cost() > 0 || r.CreateConflictUpdate > 0 {
			shown = append(shown, r)
		}
	}
	if len(shown) == 0 {
		fmt.Fprintln(w, "No 409s and no writes that changed nothing.")
	} else {
		fmt.Fprintln(w, "| # | writer | manager | resource | verb | requests | 409 | no-op | create→409→update |")
		fmt.Fprintln(w, "|---:|---|---|---|---|---:|---:|---:|---:|")
		for i, r := range shown {
			fmt.Fprintf(w, "| %d | `%s` | %s | %s | %s | %d | %d | %d | %d |\n", i+1, r.User, dash(r.FieldManager), r.resource(), r.Verb,
				r.Requests, r.Conflicts, r.NoopWrites, r.CreateConflictUpdate)
		}
		for i, r := range shown {
			for _, s := range r.Sites {
				fmt.Fprintf(w, "\n- #%d `%s` %s", i+1, s.Pos, s.Category)
			}
		}
		fmt.Fprintln(w)
	}
	if len(overruns) > 0 {
		fmt.Fprintf(w, "\n**Over budget** (%d):\n\n", len(overruns))
		for _, o := range overruns {
			fmt.Fprintf(w, "- %s\n", o)
		}
	}
	if len(regressions) > 0 {
		fmt.Fprintf(w, "\n**Regressed from the baseline** (%d):\n\n", len(regressions))
		for _, g := range regressions {
			fmt.Fprintf(w, "- %s\n", g)
		}
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteJSON writes one JSON object a row, costliest first.
func WriteJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	for _, r := range rep.Rows {
		if r.Sites == nil {
			r.Sites = []Site{}
		}
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// chart is one writer's minutes, drawn as bars.
type chart struct {
	Writer                Writer
	Width, Height         float64
	Conflicts, Noops      []bar
	First, Last           string
	Max                   int
	ConflTotal, NoopTotal int
}

type bar struct{ X, Y, W, H float64 }

// WriteHTML writes a page with, per writer that spent something, a chart
// of its 409s and no-op writes per minute over the log's span, and the
// table of rows.
func WriteHTML(w io.Writer, rep *Report) error {
	start := rep.First.Truncate(time.Minute)
	n := int(rep.Last.Truncate(time.Minute).Sub(start)/time.Minute) + 1
	const width, height = 720.0, 160.0
	var charts []chart
	seen := map[Writer]bool{}
	for _, r := range rep.Rows {
		if r.Cost() == 0 || seen[r.Writer] {
			continue
		}
		seen[r.Writer] = true
		c := chart{Writer: r.Writer, Width: width, Height: height,
			First: start.UTC().Format(time.RFC3339), Last: rep.Last.UTC().Format(time.RFC3339)}
		for _, m := range rep.Series[r.Writer] {
			c.Max = max(c.Max, m.Conflicts, m.NoopWrites)
			c.ConflTotal += m.Conflicts
			c.NoopTotal += m.NoopWrites
		}
		slot := width / float64(n)
		for _, m := range rep.Series[r.Writer] {
			i := float64(m.Start.Sub(start) / time.Minute)
			scale := (height - 10) / float64(max(1, c.Max))
			hc, hn := float64(m.Conflicts)*scale, float64(m.NoopWrites)*scale
			c.Conflicts = append(c.Conflicts, bar{i * slot, height - hc, slot / 2, hc})
			c.Noops = append(c.Noops, bar{i*slot + slot/2, height - hn, slot / 2, hn})
		}
		charts = append(charts, c)
	}
	return page.Execute(w, struct {
		Report *Report
		Charts []chart
	}{rep, charts})
}

var page = template.Must(template.New("audit").Funcs(template.FuncMap{
	"agent": agent,
	"res":   func(r *Row) string { return r.resource() },
}).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>ssagen audit</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td:nth-child(-n+5),th:nth-child(-n+5){text-align:left}.c{fill:#c0392b}.n{fill:#e67e22}</style></head>
<body><h1>ssagen audit</h1>
<p>{{.Report.Events}} requests from {{.Report.First.UTC.Format "2006-01-02T15:04:05Z07:00"}} to {{.Report.Last.UTC.Format "2006-01-02T15:04:05Z07:00"}}; {{.Report.Skipped}} lines skipped.
Bars per minute: <span style="color:#c0392b">409 Conflicts</span>, <span style="color:#e67e22">writes that changed nothing</span>.</p>
{{range .Charts}}<h2>{{.Writer.User}} · {{agent .Writer.UserAgent}}{{if .Writer.FieldManager}} · {{.Writer.FieldManager}}{{end}}</h2>
<p>{{.ConflTotal}} 409s, {{.NoopTotal}} no-op writes; the highest minute: {{.Max}}.</p>
<svg width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img"><rect width="{{.Width}}" height="{{.Height}}" fill="#fafafa"/>
{{range .Conflicts}}<rect class="c" x="{{printf "%.2f" .X}}" y="{{printf "%.2f" .Y}}" width="{{printf "%.2f" .W}}" height="{{printf "%.2f" .H}}"/>{{end}}
{{range .Noops}}<rect class="n" x="{{printf "%.2f" .X}}" y="{{printf "%.2f" .Y}}" width="{{printf "%.2f" .W}}" height="{{printf "%.2f" .H}}"/>{{end}}
</svg><p>{{.First}} … {{.Last}}</p>
{{end}}<h2>Rows</h2>
<table><tr><th>writer</th><th>agent</th><th>manager</th><th>resource</th><th>verb</th><th>requests</th><th>409</th><th>409/min</th><th>no-op</th><th>undecided</th><th>create→409→update</th><th>sites</th></tr>
{{range .Report.Rows}}<tr><td>{{.User}}</td><td>{{agent .UserAgent}}</td><td>{{.FieldManager}}</td><td>{{res .}}</td><td>{{.Verb}}</td><td>{{.Requests}}</td><td>{{.Conflicts}}</td><td>{{printf "%.1f" .ConflictsPerMinute}}</td><td>{{.NoopWrites}}</td><td>{{.Undecided}}</td><td>{{.CreateConflictUpdate}}</td><td>{{range .Sites}}{{.Pos}} {{.Category}}<br>{{end}}</td></tr>
{{end}}</table></body></html>
`))
