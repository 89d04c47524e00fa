// Package ownschurning defines an analyzer of ssagen vet that reports
// Owns() of kinds whose status churns (Pod, Deployment, ReplicaSet,
// StatefulSet, DaemonSet, Job) without a predicate that drops
// status-only updates: every kubelet or controller status write requeues
// the owner (a pod start reconciled its owner 7 times, seed 002). The fix
// is builder.WithPredicates(ensure.FieldsChanged(...)) listing what the
// reconciler reads of the kind, found by following Reconcile through the
// package's calls (reads.go, fix.go), or the generated
// Owned<Kind>Changes(c) when the child is applied with the helpers.
package ownschurning

import (
	"github.com/ssagen/ssagen/vet/internal/check"
)

// Doc is the analyzer's one-line description.
const Doc = "Owns() on kinds whose status churns (Pod, Deployment, ...) without a predicate: one reconcile per status write"

// Analyzer is the analyzer. It finds the generated helpers its fixes name
// among each package's imports, and among those ssagen's drivers resolve
// (check.HelpersAnalyzer's flags).
var Analyzer = check.Analyzer("ownschurning", Doc, run)

// pass is the analyzer's pass; its methods are the analyzer's matchers.
type pass struct{ *check.Pass }
