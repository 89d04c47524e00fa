// Package vet holds the analyzers of `ssagen vet`: they find the write
// patterns that make controllers flood API servers with 409 Conflicts and
// needless writes, explain the cost, and name the fix — the EnsureX helper
// ssagen generates for the kind.
//
// Analyzers match calls by package path and name on go/types information;
// they never execute code.
package vet

import (
	"slices"

	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/vet/applytypedstruct"
	"github.com/ssagen/ssagen/vet/createorupdate"
	"github.com/ssagen/ssagen/vet/createupdate"
	"github.com/ssagen/ssagen/vet/internal/check"
	"github.com/ssagen/ssagen/vet/ownschurning"
	"github.com/ssagen/ssagen/vet/retryonconflict"
	"github.com/ssagen/ssagen/vet/statusupdate"
	"github.com/ssagen/ssagen/vet/updatefromscratch"
)

// Helpers are generated helper packages a driver resolves before analysis
// (FindHelpers) and hands to the analyzers it builds (New).
type Helpers = check.Helpers

// FindHelpers finds and type-checks the generated helper packages of the
// modules that hold dirs, and the packages extra names.
func FindHelpers(dirs, extra []string) *Helpers { return check.FindHelpers(dirs, extra) }

// Target is the generated helper a finding's fix names: its kind and
// whether it is the kind's status helper. Targets, the result of each of
// the analyzers New returns, holds it for each diagnostic (Targets.Of).
type (
	Target  = check.Target
	Targets = check.Targets
)

// NoFixReason is why a finding carries no suggested fix, from its message.
func NoFixReason(msg string) string { return check.NoFixReason(msg) }

// Analyzers are ssagen vet's analyzers as go/analysis drivers that know
// nothing of ssagen (go vet -vettool, gopls) run them: helpers are found
// among each package's imports only.
var Analyzers = New(nil)

// New returns ssagen vet's analyzers — the one list of them — finding
// generated helpers among each package's imports and in h (nil for none).
// Each call returns new analyzers: what one run was handed never leaks
// into another.
func New(h *Helpers) []*analysis.Analyzer {
	return []*analysis.Analyzer{
		createupdate.New(h),
		createorupdate.New(h),
		retryonconflict.New(h),
		statusupdate.New(h),
		updatefromscratch.New(h),
		applytypedstruct.New(h),
		ownschurning.New(h),
	}
}

// Combined runs analyzers as one analyzer (for tests and for tools that
// take one).
func Combined(analyzers []*analysis.Analyzer) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:     "ssagenvet",
		Doc:      "all of ssagen vet's checks",
		Requires: requires(analyzers),
		Run: func(p *analysis.Pass) (any, error) {
			for _, a := range analyzers {
				if _, err := a.Run(p); err != nil {
					return nil, err
				}
			}
			return nil, nil
		},
	}
}

// requires is every analyzer analyzers require, each once: what their
// runs read from the combined pass.
func requires(analyzers []*analysis.Analyzer) []*analysis.Analyzer {
	var out []*analysis.Analyzer
	for _, a := range analyzers {
		for _, r := range a.Requires {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}
