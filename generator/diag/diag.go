// Package diag holds the errors ssagen reports about its input: each one
// points at a source position, says what is wrong and how to fix it.
// A run collects every error before it stops, so users fix them in one pass.
//
// This package imports only the standard library.
package diag

import (
	"fmt"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
)

// Error is one problem with the input.
type Error struct {
	Pos  token.Position // may be invalid for errors without a source position
	Msg  string         // what is wrong
	Hint string         // how to fix it; may be empty
}

func (e Error) Error() string {
	var b strings.Builder
	if e.Pos.IsValid() {
		b.WriteString(e.Pos.String())
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString("\n\tfix: ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// List collects errors. The zero value is ready to use.
type List struct {
	errs []Error
	seen map[string]bool
}

// Add records an error at pos. Identical errors are recorded once.
func (l *List) Add(pos token.Position, hint, format string, args ...any) {
	e := Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Hint: hint}
	key := e.Error()
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	if l.seen[key] {
		return
	}
	l.seen[key] = true
	l.errs = append(l.errs, e)
}

// Len is the number of errors recorded.
func (l *List) Len() int { return len(l.errs) }

// Err returns nil when nothing was recorded, else the errors sorted by
// position as one error.
func (l *List) Err() error {
	if len(l.errs) == 0 {
		return nil
	}
	return l.Sorted()
}

// Sorted returns what was recorded, sorted by position.
func (l *List) Sorted() Errors {
	if len(l.errs) == 0 {
		return nil
	}
	out := append(Errors(nil), l.errs...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return out[i].Msg < out[j].Msg
	})
	return out
}

// Errors is a sorted list of errors; it is the error type Err returns.
type Errors []Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Relative rewrites absolute file names below dir as relative ones, so
// messages read as file:line:col from where the user ran the command.
func Relative(err error, dir string) error {
	es, ok := err.(Errors)
	if !ok || dir == "" {
		return err
	}
	out := make(Errors, len(es))
	for i, e := range es {
		if rel, rerr := filepath.Rel(dir, e.Pos.Filename); rerr == nil && !strings.HasPrefix(rel, "..") {
			e.Pos.Filename = rel
		}
		out[i] = e
	}
	return out
}
