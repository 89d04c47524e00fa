package createupdate_test

import (
	"testing"

	"github.com/ssagen/ssagen/vet/createupdate"
	"github.com/ssagen/ssagen/vet/internal/vettest"
)

// TestAnalyzer applies the suggested fixes to testdata/src/example.com/fix
// and compares with the .golden files: fixed where the literal maps onto
// the apply configuration and a helper exists, left alone otherwise.
func TestAnalyzer(t *testing.T) {
	vettest.RunWithSuggestedFixes(t, createupdate.Analyzer, "example.com/fix")
}
