package createorupdate_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/ssagen/ssagen/vet/createorupdate"
)

// TestAnalyzer applies the suggested fixes to
// testdata/src/example.com/fixmutate: a mutate function that only assigns
// fields and sets the controller reference merges with the literal into
// one intent; one that reads the object gets none.
func TestAnalyzer(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.RunWithSuggestedFixes(t, testdata, createorupdate.Analyzer, "example.com/fixmutate")
}
