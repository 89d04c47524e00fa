package ownschurning_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/ssagen/ssagen/vet/ownschurning"
)

// TestAnalyzer: Owns() of a pod without a predicate is reported; with the
// generated Owned<Kind>Changes, a predicate that compares generations, or
// of a kind whose status does not churn, not.
func TestAnalyzer(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, testdata, ownschurning.Analyzer, "example.com/ownschurning")
}
