// Package statusupdate defines an analyzer of ssagen vet that reports Status().Update() of an object read in the same function
// from the cache: a stale copy 409s, and the Update rewrites every status
// field another writer set (agent-sandbox's status 409s, seed 002). The
// fix is Ensure<Kind>Status with the conditions built by
// ensure.Condition.
package statusupdate

import (
	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/vet/internal/check"
)

// Doc is the analyzer's one-line description.
const Doc = "Status().Update() of an object read from the (possibly stale) cache"

// Analyzer finds generated helpers among each package's imports, as
// drivers that know nothing of ssagen run it (go vet -vettool, gopls).
var Analyzer = New(nil)

// New returns the analyzer, also finding the helpers in h, which a driver
// resolved before analysis (vet.FindHelpers; nil for none).
func New(h *check.Helpers) *analysis.Analyzer {
	return check.StatusUpdate(h, "statusupdate", Doc)
}
