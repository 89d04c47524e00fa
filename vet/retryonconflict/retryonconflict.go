// Package retryonconflict defines an analyzer of ssagen vet that reports retry.RetryOnConflict around a Get and an Update: the
// conflicts are retried, each retry another read and write, instead of
// avoided. The fix is a server-side apply of the fields the controller
// owns (Ensure<Kind>, Ensure<Kind>Status), which carries no
// resourceVersion and cannot 409 on a stale read.
package retryonconflict

import (
	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/vet/internal/check"
)

// Doc is the analyzer's one-line description.
const Doc = "retry.RetryOnConflict around Get + Update: conflicts retried instead of avoided"

// Analyzer finds generated helpers among each package's imports, as
// drivers that know nothing of ssagen run it (go vet -vettool, gopls).
var Analyzer = New(nil)

// New returns the analyzer, also finding the helpers in h, which a driver
// resolved before analysis (vet.FindHelpers; nil for none).
func New(h *check.Helpers) *analysis.Analyzer {
	return check.RetryOnConflict(h, "retryonconflict", Doc)
}
