// Package applytypedstruct defines an analyzer of ssagen vet that reports Patch(ctx, obj, client.Apply) (and client.Apply of a
// typed object) with a typed Go struct: encoding/json sends its zero
// values, and the apply takes ownership of each (replicas: 0, an empty
// selector), fighting the controllers that own them. It stays silent
// when every field encoding/json writes is set by the code. The fix is
// the generated builders, which send only what is set, through
// Ensure<Kind>.
package applytypedstruct

import (
	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/vet/internal/check"
)

// Doc is the analyzer's one-line description.
const Doc = "server-side apply of a typed Go struct: zero values claim field ownership"

// Analyzer finds generated helpers among each package's imports, as
// drivers that know nothing of ssagen run it (go vet -vettool, gopls).
var Analyzer = New(nil)

// New returns the analyzer, also finding the helpers in h, which a driver
// resolved before analysis (vet.FindHelpers; nil for none).
func New(h *check.Helpers) *analysis.Analyzer {
	return check.ApplyTypedStruct(h, "applytypedstruct", Doc)
}
