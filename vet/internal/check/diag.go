package check

import (
	"go/token"

	"golang.org/x/tools/go/analysis"
)

// Target is the generated helper a finding's fix names, as data: the kind
// it is for ("" when the finding cannot tell), and whether it is the
// kind's status helper (Ensure<Kind>Status). ssagen audit --source joins
// a finding to the rows of an audit log by it, never by the message.
type Target struct {
	Kind   string
	Status bool
}

// Targets is the result of each of ssagen vet's analyzers: the Target of
// each diagnostic it reported whose fix names a kind's helper.
type Targets map[TargetKey]Target

// TargetKey identifies a diagnostic of one pass: its position and category.
type TargetKey struct {
	Pos      token.Pos
	Category string
}

// Of is the Target of d, a diagnostic of the pass whose result t is (zero
// when its fix names no kind's helper).
func (t Targets) Of(d analysis.Diagnostic) Target {
	return t[TargetKey{d.Pos, d.Category}]
}

// ensures is the target of a fix that names kind's Ensure<Kind> helper
// (Ensure<Kind>Status with status): no kind when the finding's type is
// not a kind's (client.Object, unstructured).
func ensures(kind string, status bool) Target {
	if genericKind(kind) {
		kind = ""
	}
	return Target{Kind: kind, Status: status}
}

// diagnostic is a diagnostic with the helper its fix names.
type diagnostic struct {
	analysis.Diagnostic
	target Target
}

// diag builds a diagnostic: what goes wrong at run time, then the fix,
// which names target's helper.
func diag(pos token.Pos, category, cost, fix string, target Target) diagnostic {
	return diagnostic{analysis.Diagnostic{Pos: pos, Category: category, Message: cost + "; fix: " + fix}, target}
}

// report reports d, and records the helper its fix names in the pass's
// result.
func (p *pass) report(d diagnostic) {
	if d.target.Kind != "" {
		p.targets[TargetKey{d.Pos, d.Category}] = d.target
	}
	p.Report(d.Diagnostic)
}
