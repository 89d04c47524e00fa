package updatefromscratch_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/ssagen/ssagen/vet/updatefromscratch"
)

// TestAnalyzer: Update of an object built from a literal is reported; of
// one read first, not.
func TestAnalyzer(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, testdata, updatefromscratch.Analyzer, "example.com/updatefromscratch")
}
