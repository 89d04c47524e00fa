// Package createupdate defines an analyzer of ssagen vet that reports a Create whose error path checks IsAlreadyExists and then
// Updates or Patches the object (category create-update), and a Create
// that tolerates AlreadyExists and moves on (category create-ignore).
//
// Every reconcile of an object that exists then costs a POST answered
// 409, and the Update another request that 409s whenever the cached copy
// is stale (Kargo's ~800 409s a minute, seed 000). The fix is the
// generated Ensure<Kind> helper: one server-side apply, and no request
// when the object already is as desired; CreateOnly() for objects that
// must be created and never overwritten. Where the rewrite is exact the
// diagnostic carries a suggested fix (ssagen vet -fix applies it after
// the package, with the edit, builds, passes go vet and its tests).
package createupdate

import (
	"github.com/ssagen/ssagen/vet/internal/check"
)

// Doc is the analyzer's one-line description.
const Doc = "Create → AlreadyExists → Update/Patch, and Create that ignores AlreadyExists, on every reconcile"

// Analyzer is the analyzer. It finds the generated helpers its fixes name
// among each package's imports, and among those ssagen's drivers resolve
// (check.HelpersAnalyzer's flags).
var Analyzer = check.Analyzer("createupdate", Doc, run)

// pass is the analyzer's pass; its methods are the analyzer's matchers.
type pass struct{ *check.Pass }
