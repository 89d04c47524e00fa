package updatefromscratch_test

import (
	"testing"

	"github.com/ssagen/ssagen/vet/internal/vettest"
	"github.com/ssagen/ssagen/vet/updatefromscratch"
)

// TestAnalyzer: Update of an object built from a literal is reported; of
// one read first, not.
func TestAnalyzer(t *testing.T) {
	vettest.Run(t, updatefromscratch.Analyzer, "example.com/updatefromscratch")
}
