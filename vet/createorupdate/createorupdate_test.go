package createorupdate_test

import (
	"testing"

	"github.com/ssagen/ssagen/vet/createorupdate"
	"github.com/ssagen/ssagen/vet/internal/vettest"
)

// TestAnalyzer applies the suggested fixes to
// testdata/src/example.com/fixmutate: a mutate function that only assigns
// fields and sets the controller reference merges with the literal into
// one intent; one that reads the object gets none.
func TestAnalyzer(t *testing.T) {
	vettest.RunWithSuggestedFixes(t, createorupdate.Analyzer, "example.com/fixmutate")
}
