package vet_test

import (
	"testing"

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
	categories := map[string]int{}
	seen := map[string]bool{}
	for _, r := range results {
		for _, d := range r.Diagnostics {
			key := r.Pass.Fset.Position(d.Pos).String() + d.Category
			if !seen[key] {
				seen[key] = true
				categories[d.Category]++
			}
		}
	}
	want := map[string]int{"create-update": 7, "create-ignore": 6, "create-or-update": 3, "retry-on-conflict": 2,
		"status-update": 4, "update-cached-churning": 1, "update-from-scratch": 1, "apply-typed-struct": 1, "owns-churning": 4}
	for c, n := range want {
		if categories[c] != n {
			t.Errorf("category %s: %d diagnostics, want %d", c, categories[c], n)
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
	categories := map[string]int{}
	for _, r := range results {
		for _, d := range r.Diagnostics {
			categories[d.Category]++
		}
	}
	want := map[string]int{"retry-on-conflict": 4, "update-cached-churning": 12, "update-from-scratch": 1}
	for c, n := range want {
		if categories[c] != n {
			t.Errorf("category %s: %d diagnostics, want %d", c, categories[c], n)
		}
	}
	for c, n := range categories {
		if want[c] == 0 {
			t.Errorf("category %s: %d diagnostics, want none", c, n)
		}
	}
}

// TestClientGo runs every analyzer on testdata/src/example.com/clientset,
// which writes through client-go's typed clients: Create → AlreadyExists
// → Update, a Create ignoring AlreadyExists, a retried Get + Update — each
// naming the kind's helper.
func TestClientGo(t *testing.T) {
	results := vettest.Run(t, vet.Combined(vet.Analyzers), "example.com/clientset")
	categories := map[string]int{}
	for _, r := range results {
		for _, d := range r.Diagnostics {
			categories[d.Category]++
		}
	}
	want := map[string]int{"create-update": 2, "create-ignore": 1, "retry-on-conflict": 1}
	for c, n := range want {
		if categories[c] != n {
			t.Errorf("category %s: %d diagnostics, want %d", c, categories[c], n)
		}
	}
	if len(categories) != len(want) {
		t.Errorf("categories %v, want %v", categories, want)
	}
}
