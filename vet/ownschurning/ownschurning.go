// Package ownschurning defines an analyzer of ssagen vet that reports Owns() of kinds whose status churns (Pod, Deployment,
// ReplicaSet, StatefulSet, DaemonSet, Job) without a predicate that drops
// status-only updates: every kubelet or controller status write requeues
// the owner (a pod start reconciled its owner 7 times, seed 002). The fix
// is builder.WithPredicates with the generated Owned<Kind>Changes(c),
// plus a check of the status fields the owner mirrors.
package ownschurning

import (
	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/vet/internal/check"
)

// Doc is the analyzer's one-line description.
const Doc = "Owns() on kinds whose status churns (Pod, Deployment, ...) without a predicate: one reconcile per status write"

// Analyzer finds generated helpers among each package's imports, as
// drivers that know nothing of ssagen run it (go vet -vettool, gopls).
var Analyzer = New(nil)

// New returns the analyzer, also finding the helpers in h, which a driver
// resolved before analysis (vet.FindHelpers; nil for none).
func New(h *check.Helpers) *analysis.Analyzer {
	return check.OwnsChurning(h, "ownschurning", Doc)
}
