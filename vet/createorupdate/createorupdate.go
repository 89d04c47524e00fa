// Package createorupdate defines an analyzer of ssagen vet that reports controllerutil.CreateOrUpdate and CreateOrPatch (and
// controller-runtime's root package's re-export).
//
// Both read the object from the cache, mutate it and write it back with
// its resourceVersion: concurrent reconciles of one owner race on it and
// 409 (network-services-operator's 3–4 minute stall, seed 001), and a
// field the API server defaults makes every call a write. The fix is
// Ensure<Kind> with the fields the controller owns; an inline mutate
// function that only sets fields has a suggested fix.
package createorupdate

import (
	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/vet/internal/check"
)

// Doc is the analyzer's one-line description.
const Doc = "controllerutil.CreateOrUpdate / CreateOrPatch: optimistic locking on cached objects"

// Analyzer finds generated helpers among each package's imports, as
// drivers that know nothing of ssagen run it (go vet -vettool, gopls).
var Analyzer = New(nil)

// New returns the analyzer, also finding the helpers in h, which a driver
// resolved before analysis (vet.FindHelpers; nil for none).
func New(h *check.Helpers) *analysis.Analyzer {
	return check.CreateOrUpdate(h, "createorupdate", Doc)
}
