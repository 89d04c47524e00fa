package statusupdate_test

import (
	"testing"

	"github.com/ssagen/ssagen/vet/internal/vettest"
	"github.com/ssagen/ssagen/vet/statusupdate"
)

// TestAnalyzer: Status().Update() of an object read from the cache is
// reported; of one built in the function, not. -fix turns it into the
// status helper with the status converted, unless another reconciler of
// the package writes the same kind's status.
func TestAnalyzer(t *testing.T) {
	vettest.RunWithSuggestedFixes(t, statusupdate.Analyzer, "example.com/statusupdate")
	vettest.Run(t, statusupdate.Analyzer, "example.com/statusowners")
}
