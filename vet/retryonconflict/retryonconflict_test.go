package retryonconflict_test

import (
	"testing"

	"github.com/ssagen/ssagen/vet/internal/vettest"
	"github.com/ssagen/ssagen/vet/retryonconflict"
)

// TestAnalyzer: a RetryOnConflict around a read and an Update is
// reported; one around a read alone is not. Its one write becomes an
// apply: the status helper, or Apply<Kind>Changes (the .golden file).
func TestAnalyzer(t *testing.T) {
	vettest.RunWithSuggestedFixes(t, retryonconflict.Analyzer, "example.com/retryonconflict")
}
