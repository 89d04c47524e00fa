// Package statusupdate defines an analyzer of ssagen vet that reports Status().Update() of an object read in the same function
// from the cache: a stale copy 409s, and the Update rewrites every status
// field another writer set (agent-sandbox's status 409s, seed 002). The
// fix is Ensure<Kind>Status with the conditions built by
// ensure.Condition.
package statusupdate

import (
	"github.com/ssagen/ssagen/vet/internal/check"
	"github.com/ssagen/ssagen/vet/retryonconflict"
)

// Doc is the analyzer's one-line description.
const Doc = "Status().Update() of an object read from the (possibly stale) cache"

// Analyzer is the analyzer. It finds the generated helpers its fixes name
// among each package's imports, and among those ssagen's drivers resolve
// (check.HelpersAnalyzer's flags).
var Analyzer = check.Analyzer("statusupdate", Doc, run, retryonconflict.Analyzer)

// pass is the analyzer's pass; its methods are the analyzer's matchers.
type pass struct{ *check.Pass }
