// Package updatefromscratch defines an analyzer of ssagen vet that reports Update of an object built in the function with no read
// and no resourceVersion: it overwrites every field other writers set, or
// 409s. The fix is Ensure<Kind> with the fields the controller owns.
// An Update that is the second half of a Create → AlreadyExists → Update
// is createupdate's finding, not this one.
package updatefromscratch

import (
	"github.com/ssagen/ssagen/vet/createupdate"
	"github.com/ssagen/ssagen/vet/internal/check"
)

// Doc is the analyzer's one-line description.
const Doc = "Update of an object built from scratch: overwrites every field, or 409s"

// Analyzer is the analyzer. It finds the generated helpers its fixes name
// among each package's imports, and among those ssagen's drivers resolve
// (check.HelpersAnalyzer's flags).
var Analyzer = check.Analyzer("updatefromscratch", Doc, run, createupdate.Analyzer)

// pass is the analyzer's pass; its methods are the analyzer's matchers.
type pass struct{ *check.Pass }
