// Package applytypedstruct defines an analyzer of ssagen vet that reports Patch(ctx, obj, client.Apply) (and client.Apply of a
// typed object) with a typed Go struct: encoding/json sends its zero
// values, and the apply takes ownership of each (replicas: 0, an empty
// selector), fighting the controllers that own them. It stays silent
// when every field encoding/json writes is set by the code. The fix is
// the generated builders, which send only what is set, through
// Ensure<Kind>.
package applytypedstruct

import (
	"github.com/ssagen/ssagen/vet/internal/check"
)

// Doc is the analyzer's one-line description.
const Doc = "server-side apply of a typed Go struct: zero values claim field ownership"

// Analyzer is the analyzer. It finds the generated helpers its fixes name
// among each package's imports, and among those ssagen's drivers resolve
// (check.HelpersAnalyzer's flags).
var Analyzer = check.Analyzer("applytypedstruct", Doc, run)

// pass is the analyzer's pass; its methods are the analyzer's matchers.
type pass struct{ *check.Pass }
