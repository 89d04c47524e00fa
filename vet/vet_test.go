package vet_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/ssagen/ssagen/vet"
	"github.com/ssagen/ssagen/vet/internal/vettest"
)

// TestAnalyzers runs every analyzer on testdata/src/example.com/operator:
// each pattern carries a `// want`, and the near misses (generateName,
// Update after Get, unstructured apply, Owns with a predicate, test files)
// must stay silent.
func TestAnalyzers(t *testing.T) {
	results := vettest.Run(t, vet.Combined(vet.Analyzers), "example.com/operator")
	// The package is analysed twice (alone and with its tests): count places.
	wantCategories(t, countCategories(results, true), map[string]int{"create-update": 7, "create-ignore": 8, "create-or-update": 3, "retry-on-conflict": 2,
		"status-update": 4, "update-cached-churning": 1, "update-from-scratch": 1, "apply-typed-struct": 1, "owns-churning": 5}, false)
}

// countCategories counts the diagnostics of results by category; with
// places, each place once.
func countCategories(results []*analysistest.Result, places bool) map[string]int {
	counts := map[string]int{}
	seen := map[string]bool{}
	for _, r := range results {
		for _, d := range r.Diagnostics {
			key := r.Pass.Fset.Position(d.Pos).String() + d.Category
			if places && seen[key] {
				continue
			}
			seen[key] = true
			counts[d.Category]++
		}
	}
	return counts
}

// wantCategories fails t for each category whose count is not want's;
// with only, also for a category want does not name.
func wantCategories(t *testing.T, got, want map[string]int, only bool) {
	t.Helper()
	for c, n := range want {
		if got[c] != n {
			t.Errorf("category %s: %d diagnostics, want %d", c, got[c], n)
		}
	}
	for c, n := range got {
		if only && want[c] == 0 {
			t.Errorf("category %s: %d diagnostics, want none", c, n)
		}
	}
}

// TestAcrossFunctions runs every analyzer on
// testdata/src/example.com/crossfunc, whose reads and writes are in
// different functions — of the package, or of example.com/crossfunc/kube,
// whose summaries reach it as facts: a cached object handed to a helper
// that Updates it, an object a helper read and returned, the items of a
// cached List, retried functions that read and write through the
// functions they call. A built object handed on, a helper writing only
// the status, and a retried read stay silent.
func TestAcrossFunctions(t *testing.T) {
	results := vettest.Run(t, vet.Combined(vet.Analyzers), "example.com/crossfunc")
	wantCategories(t, countCategories(results, false), map[string]int{"retry-on-conflict": 4, "update-cached-churning": 12, "update-from-scratch": 1}, true)
}

// TestClientGo runs every analyzer on testdata/src/example.com/clientset,
// which writes through client-go's typed clients: Create → AlreadyExists
// → Update, a Create ignoring AlreadyExists, a retried Get + Update, an
// Update of what a constructor built, an AlreadyExists check through the
// module's own predicate — each naming the kind's helper.
func TestClientGo(t *testing.T) {
	results := vettest.Run(t, vet.Combined(vet.Analyzers), "example.com/clientset")
	wantCategories(t, countCategories(results, false), map[string]int{"create-update": 3, "create-ignore": 1, "retry-on-conflict": 1, "update-from-scratch": 1}, true)
}
