package createupdate_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/ssagen/ssagen/vet/createupdate"
)

// TestAnalyzer applies the suggested fixes to testdata/src/example.com/fix
// and compares with the .golden files: fixed where the literal maps onto
// the apply configuration and a helper exists, left alone otherwise.
func TestAnalyzer(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.RunWithSuggestedFixes(t, testdata, createupdate.Analyzer, "example.com/fix")
}
