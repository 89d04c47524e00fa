package retryonconflict_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/ssagen/ssagen/vet/retryonconflict"
)

// TestAnalyzer: a RetryOnConflict around a read and an Update is
// reported; one around a read alone is not.
func TestAnalyzer(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, testdata, retryonconflict.Analyzer, "example.com/retryonconflict")
}
