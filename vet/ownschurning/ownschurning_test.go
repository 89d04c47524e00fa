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

// TestFix: -fix gives the Owns() the predicate of what the reconciler's
// Reconcile reaches reads of the pod — fields, getters through an
// interface, metav1.GetControllerOf, a pointer field read whole — joined
// to the predicates it has; declined, with the reason, for a pod handed
// to another package's function or its resourceVersion read.
func TestFix(t *testing.T) {
	vettest.RunWithSuggestedFixes(t, ownschurning.Analyzer, "example.com/ownsread")
}
