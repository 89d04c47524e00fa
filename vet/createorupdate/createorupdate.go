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
	"github.com/ssagen/ssagen/vet/internal/check"
)

// Doc is the analyzer's one-line description.
const Doc = "controllerutil.CreateOrUpdate / CreateOrPatch: optimistic locking on cached objects"

// Analyzer is the analyzer. It finds the generated helpers its fixes name
// among each package's imports, and among those ssagen's drivers resolve
// (check.HelpersAnalyzer's flags).
var Analyzer = check.Analyzer("createorupdate", Doc, run)

// pass is the analyzer's pass; its methods are the analyzer's matchers.
type pass struct{ *check.Pass }
