package check

import (
	"go/ast"
	"go/token"

	"golang.org/x/tools/go/analysis"
)

// Target is what a finding says, as data: the kind whose generated helper
// its fix names ("" when the finding cannot tell), whether that is the
// kind's status helper (Ensure<Kind>Status), and why the finding carries
// no suggested fix ("" when it does, or when no fix is attempted).
// ssagen audit --source joins a finding to the rows of an audit log by
// it, and ssagen vet -fix groups what it leaves by Why: neither reads the
// message.
type Target struct {
	Kind   string
	Status bool
	Why    string
	// Seam: the fix rewrites the function field the site writes
	// through; the driver makes the tests' stubs of it follow.
	Seam *SeamInfo
}

// Targets holds the Target of each diagnostic of a pass.
type Targets map[TargetKey]Target

// Result is the result of each of ssagen vet's analyzers: the Target of
// each diagnostic it reported, and the code its findings cover. An
// analyzer that must not report a site another already reports requires
// that analyzer and asks its result (Covers), so a site is reported once
// by construction.
type Result struct {
	Targets Targets
	Covered []Span
}

// Span is a stretch of a file's source: [Pos, End).
type Span struct{ Pos, End token.Pos }

// Covers reports whether n lies within code r's findings cover.
func (r *Result) Covers(n ast.Node) bool {
	if r == nil {
		return false
	}
	for _, s := range r.Covered {
		if s.Pos <= n.Pos() && n.End() <= s.End {
			return true
		}
	}
	return false
}

// Cover records that the pass's findings cover n: the analyzers that
// require this one report nothing within it.
func (p *Pass) Cover(n ast.Node) {
	p.result.Covered = append(p.result.Covered, Span{n.Pos(), n.End()})
}

// TargetKey identifies a diagnostic of one pass: its position and category.
type TargetKey struct {
	Pos      token.Pos
	Category string
}

// Of is the Target of d, a diagnostic of the pass whose result t is.
func (t Targets) Of(d analysis.Diagnostic) Target {
	return t[TargetKey{d.Pos, d.Category}]
}

// Ensures is the target of a fix that names kind's Ensure<Kind> helper
// (Ensure<Kind>Status with status): no kind when the finding's type is
// not a kind's (client.Object, unstructured).
func Ensures(kind string, status bool) Target {
	if GenericKind(kind) {
		kind = ""
	}
	return Target{Kind: kind, Status: status}
}

// Finding is a diagnostic with the helper its fix names.
type Finding struct {
	analysis.Diagnostic
	Target Target
}

// NewFinding builds a diagnostic: what goes wrong at run time, then the fix,
// which names target's helper.
func NewFinding(pos token.Pos, category, cost, fix string, target Target) Finding {
	return Finding{analysis.Diagnostic{Pos: pos, Category: category, Message: cost + "; fix: " + fix}, target}
}

// ReportFinding reports d, and records the helper its fix names in the pass's
// Fixed is d with the fixes a fix function gave, or the reason it gave
// none.
func (d Finding) Fixed(fixes []analysis.SuggestedFix, why string) Finding {
	d.SuggestedFixes = fixes
	return WithWhy(d, why)
}

// result.
func (p *Pass) ReportFinding(d Finding) {
	p.result.Targets[TargetKey{d.Pos, d.Category}] = d.Target
	p.Report(d.Diagnostic)
}

// ResultOfAnalyzer is the Result of a, an analyzer built by Analyzer that the
// pass's analyzer requires (nil when it is not one).
func (p *Pass) ResultOfAnalyzer(a *analysis.Analyzer) *Result {
	r, _ := p.ResultOf[a].(*Result)
	return r
}

// SeamInfo is what the driver needs to make the tests' stubs of a seam
// follow: the field's name, and the types of the helper's signature.
type SeamInfo struct {
	Field   string
	Params  []TypeRef // context, client, owner, desired, options (variadic)
	Results []TypeRef // object, result, error
	// Runtime is the import path of ssagen's runtime (for Created,
	// Unchanged), Object the object type the stubs assert on.
	Runtime string
	Object  TypeRef
}

// TypeRef is a type as a test file spells it: [*]pkg.Name, or a
// predeclared Name when Path is "".
type TypeRef struct {
	Path, Pkg, Name string
	Pointer         bool
}
