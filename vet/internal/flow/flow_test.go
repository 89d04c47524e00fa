package flow_test

import (
	"testing"

	"github.com/ssagen/ssagen/vet/internal/flow"
	"github.com/ssagen/ssagen/vet/internal/vettest"
)

// TestFacts: the summary each helper of the fixture exports — what it
// reads and writes itself and through the helpers it calls, the
// parameters it Updates, the results that hold what it read — and none
// for a function that only builds an object.
func TestFacts(t *testing.T) {
	vettest.Run(t, flow.Analyzer, "example.com/crossfunc/kube")
}
