// Package retryonconflict defines an analyzer of ssagen vet that reports retry.RetryOnConflict around a Get and an Update: the
// conflicts are retried, each retry another read and write, instead of
// avoided. The fix is a server-side apply of the fields the controller
// owns (Ensure<Kind>, Ensure<Kind>Status), which carries no
// resourceVersion and cannot 409 on a stale read.
package retryonconflict

import (
	"github.com/ssagen/ssagen/vet/internal/check"
)

// Doc is the analyzer's one-line description.
const Doc = "retry.RetryOnConflict around Get + Update: conflicts retried instead of avoided"

// Analyzer is the analyzer. It finds the generated helpers its fixes name
// among each package's imports, and among those ssagen's drivers resolve
// (check.HelpersAnalyzer's flags).
var Analyzer = check.Analyzer("retryonconflict", Doc, run)

// pass is the analyzer's pass; its methods are the analyzer's matchers.
type pass struct{ *check.Pass }
