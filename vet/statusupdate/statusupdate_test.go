package statusupdate_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/ssagen/ssagen/vet/statusupdate"
)

// TestAnalyzer: Status().Update() of an object read from the cache is
// reported; of one built in the function, not.
func TestAnalyzer(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, testdata, statusupdate.Analyzer, "example.com/statusupdate")
}
