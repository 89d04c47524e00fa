package updatefromscratch_test

import (
	"testing"

	"github.com/ssagen/ssagen/vet/internal/vettest"
	"github.com/ssagen/ssagen/vet/updatefromscratch"
)

// TestAnalyzer: Update of an object built from a literal is reported; of
// one read first, not — unless another controller keeps writing its kind:
// then -fix copies it where it was read and applies what the code
// changed (Apply<Kind>Changes), or says why not.
func TestAnalyzer(t *testing.T) {
	vettest.Run(t, updatefromscratch.Analyzer, "example.com/updatefromscratch")
	vettest.RunWithSuggestedFixes(t, updatefromscratch.Analyzer, "example.com/updatecached")
}
