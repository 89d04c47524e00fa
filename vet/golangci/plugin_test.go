package golangci

import (
	"slices"
	"testing"

	"github.com/ssagen/ssagen/vet"
)

// TestBuildAnalyzers: the plugin builds ssagen vet's analyzers, the same
// list as the CLI, anew on each call (golangci-lint calls it once per run).
func TestBuildAnalyzers(t *testing.T) {
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	first, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	second, _ := p.BuildAnalyzers()
	var names, want []string
	for i, a := range first {
		names = append(names, a.Name)
		if second[i] == a {
			t.Errorf("%s: the same analyzer value in two runs", a.Name)
		}
	}
	for _, a := range vet.Analyzers {
		want = append(want, a.Name)
	}
	if !slices.Equal(names, want) {
		t.Errorf("plugin analyzers %v, want %v", names, want)
	}
}
