package ownschurning_test

import (
	"testing"

	"github.com/ssagen/ssagen/vet/internal/vettest"
	"github.com/ssagen/ssagen/vet/ownschurning"
)

// TestAnalyzer: Owns() of a pod without a predicate is reported; with the
// generated Owned<Kind>Changes, a predicate that compares generations, or
// of a kind whose status does not churn, not.
func TestAnalyzer(t *testing.T) {
	vettest.Run(t, ownschurning.Analyzer, "example.com/ownschurning")
}
