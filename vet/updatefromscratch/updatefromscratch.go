// Package updatefromscratch defines an analyzer of ssagen vet that reports Update of an object built in the function with no read
// and no resourceVersion: it overwrites every field other writers set, or
// 409s. The fix is Ensure<Kind> with the fields the controller owns.
// An Update that is the second half of a Create → AlreadyExists → Update
// is createupdate's finding, not this one.
package updatefromscratch

import (
	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/vet/internal/check"
)

// Doc is the analyzer's one-line description.
const Doc = "Update of an object built from scratch: overwrites every field, or 409s"

// Analyzer finds generated helpers among each package's imports, as
// drivers that know nothing of ssagen run it (go vet -vettool, gopls).
var Analyzer = New(nil)

// New returns the analyzer, also finding the helpers in h, which a driver
// resolved before analysis (vet.FindHelpers; nil for none).
func New(h *check.Helpers) *analysis.Analyzer {
	return check.UpdateFromScratch(h, "updatefromscratch", Doc)
}
