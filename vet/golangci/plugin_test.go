package golangci

import (
	"os"
	"slices"
	"testing"

	"github.com/ssagen/ssagen/vet"
	"github.com/ssagen/ssagen/vet/internal/check"
)

// TestBuildAnalyzers: the plugin hands golangci-lint ssagen vet's
// analyzers, the very values the CLI runs, and points the analyzer that
// resolves generated helpers at the module it runs in — on each call, as
// golangci-lint calls it once per run.
func TestBuildAnalyzers(t *testing.T) {
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"..", t.TempDir()} {
		t.Chdir(dir)
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.BuildAnalyzers()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, vet.Analyzers) {
			t.Errorf("plugin analyzers %v, want vet.Analyzers %v", got, vet.Analyzers)
		}
		if modules := check.HelpersAnalyzer.Flags.Lookup("modules").Value.String(); modules != wd {
			t.Errorf("helpers resolved for %q, want the working directory %q", modules, wd)
		}
	}
}
