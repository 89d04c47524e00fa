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

// Analyzers are ssagen vet's analyzers — the one list of them, one value
// each — as every driver runs them: ssagen vet, go vet -vettool, the
// golangci-lint plugin, gopls. They find the generated helpers their fixes
// name among each package's imports, and among those UseHelpers names.
var Analyzers = []*analysis.Analyzer{
	createupdate.Analyzer,
	createorupdate.Analyzer,
	retryonconflict.Analyzer,
	statusupdate.Analyzer,
	updatefromscratch.Analyzer,
	applytypedstruct.Analyzer,
	ownschurning.Analyzer,
}

// UseHelpers names to the analyzers, for the runs that follow, the
// modules (folders in them) whose generated helper packages their fixes
// may name although the analysed package does not import them yet, and
// further helper packages by import path. It configures the analyzer
// that resolves them, which every check requires (as its flags modules
// and pkgs would): that analyzer finds and type-checks them once, when
// the first pass asks, and the checks read only its result and their
// package. The setting is the process's, as analyzer flags are: a driver
// that runs analyses concurrently with different modules serialises them.
func UseHelpers(dirs, pkgs []string) { check.UseHelpers(dirs, pkgs) }

// UseOverlay sets, for the process, the files the next analyses read in
// place of those on disk: those the packages were loaded with
// (packages.Config.Overlay). The analysis framework's Pass.ReadFile reads
// the disk.
func UseOverlay(files map[string][]byte) { check.UseOverlay(files) }

// Result is what each of the analyzers returns: a Target for each of its
// diagnostics (Result.Targets.Of) — the kind whose helper the fix names,
// whether it is the status helper, why no fix is offered — and the code
// its findings cover.
type (
	Result  = check.Result
	Target  = check.Target
	Targets = check.Targets
	// SeamInfo is a Target's function field rewritten with the fix (the
	// field, the helper's signature), for the edits of the tests' stubs.
	SeamInfo = check.SeamInfo
	TypeRef  = check.TypeRef
)

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
