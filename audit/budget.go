package audit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strings"

	"sigs.k8s.io/yaml"
)

// Budget is what a run may spend, per writer and resource: ssagen audit
// --budget fails a CI job whose audit log passes a limit.
//
//	limits:
//	- writer: "system:serviceaccount:op-system:*"   # user, user agent or field manager (a path.Match glob)
//	  resource: "*"                                  # resource[.group][/subresource], a glob
//	  verb: "*"
//	  conflicts: 0
//	  noopWrites: 0
//	  createConflictUpdate: 0
//	  requests: 500
//
// A row is held to every limit that matches it; a counter a limit leaves
// out is not limited.
type Budget struct {
	Limits []Limit `json:"limits"`
}

// Limit bounds the rows it matches. Empty patterns match everything.
type Limit struct {
	Writer   string `json:"writer,omitempty"`
	Resource string `json:"resource,omitempty"`
	Verb     string `json:"verb,omitempty"`

	Conflicts            *int `json:"conflicts,omitempty"`
	NoopWrites           *int `json:"noopWrites,omitempty"`
	CreateConflictUpdate *int `json:"createConflictUpdate,omitempty"`
	Requests             *int `json:"requests,omitempty"`
}

// ParseBudget reads a budget file (YAML or JSON), refusing unknown fields
// and bad patterns.
func ParseBudget(data []byte) (*Budget, error) {
	var b Budget
	if err := yaml.UnmarshalStrict(data, &b); err != nil {
		return nil, err
	}
	if len(b.Limits) == 0 {
		return nil, fmt.Errorf("no limits: a budget lists them under limits:")
	}
	for i, l := range b.Limits {
		for _, p := range []string{l.Writer, l.Resource, l.Verb} {
			if _, err := path.Match(p, ""); err != nil {
				return nil, fmt.Errorf("limits[%d]: pattern %q: %v", i, p, err)
			}
		}
		if l.Conflicts == nil && l.NoopWrites == nil && l.CreateConflictUpdate == nil && l.Requests == nil {
			return nil, fmt.Errorf("limits[%d] limits nothing: set conflicts, noopWrites, createConflictUpdate or requests", i)
		}
	}
	return &b, nil
}

// Overrun is one counter of one row past a limit.
type Overrun struct {
	Row   *Row
	Limit int // index in Budget.Limits
	// Field is the limit's field (conflicts, noopWrites,
	// createConflictUpdate, requests); Counter says it in words.
	Field   string
	Counter string
	Value   int
	Max     int
}

func (o Overrun) String() string {
	return fmt.Sprintf("%s by %s (%s): %d %s, over the limit of %d (limits[%d])",
		o.Row.Verb+" "+o.Row.resource(), o.Row.User, dash(o.Row.FieldManager), o.Value, o.Counter, o.Max, o.Limit)
}

func match(pattern string, values ...string) bool {
	if pattern == "" || pattern == "*" {
		return true
	}
	for _, v := range values {
		if ok, _ := path.Match(pattern, v); ok {
			return true
		}
	}
	return false
}

// Check returns every counter of rep's rows past a limit, in row order.
func (b *Budget) Check(rep *Report) []Overrun {
	var out []Overrun
	for _, r := range rep.Rows {
		for i, l := range b.Limits {
			if !match(l.Writer, r.User, r.UserAgent, agent(r.UserAgent), r.FieldManager) ||
				!match(l.Resource, r.resource(), r.Resource) || !match(l.Verb, r.Verb) {
				continue
			}
			for _, c := range []struct {
				field, name string
				value       int
				max         *int
			}{
				{"conflicts", "409s", r.Conflicts, l.Conflicts},
				{"noopWrites", "writes that changed nothing", r.NoopWrites, l.NoopWrites},
				{"createConflictUpdate", "Create → 409 → Update sequences", r.CreateConflictUpdate, l.CreateConflictUpdate},
				{"requests", "requests", r.Requests, l.Requests},
			} {
				if c.max != nil && c.value > *c.max {
					out = append(out, Overrun{Row: r, Limit: i, Field: c.field, Counter: c.name, Value: c.value, Max: *c.max})
				}
			}
		}
	}
	return out
}

// Regression is a row that costs more than it did in a baseline.
type Regression struct {
	Key
	Before, After int // 409s + writes that changed nothing
}

func (g Regression) String() string {
	return fmt.Sprintf("%s %s by %s (%s): %d wasted requests, %d in the baseline",
		g.Verb, g.Key.resource(), g.User, dash(g.FieldManager), g.After, g.Before)
}

// ReadBaseline reads a report written by WriteJSON (ssagen audit --json).
func ReadBaseline(r io.Reader) (map[Key]*Row, error) {
	out := map[Key]*Row{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var row Row
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			return nil, fmt.Errorf("line %d: not a row of ssagen audit --json: %v", n, err)
		}
		out[row.Key] = &row
	}
	return out, sc.Err()
}

// Compare returns the rows whose cost (409s and writes that changed
// nothing) grew past the baseline's by more than tolerance (0.1: 10%); a
// row the baseline lacks is compared with 0, so from a clean baseline any
// waste is a regression.
func Compare(rep *Report, baseline map[Key]*Row, tolerance float64) []Regression {
	var out []Regression
	for _, r := range rep.Rows {
		before := 0
		if b := baseline[r.Key]; b != nil {
			before = b.Cost()
		}
		if after := r.Cost(); after > before && float64(after) > float64(before)*(1+tolerance) {
			out = append(out, Regression{Key: r.Key, Before: before, After: after})
		}
	}
	return out
}
