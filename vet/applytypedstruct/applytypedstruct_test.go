package applytypedstruct_test

import (
	"testing"

	"github.com/ssagen/ssagen/vet/applytypedstruct"
	"github.com/ssagen/ssagen/vet/internal/vettest"
)

// TestAnalyzer: a typed-struct apply is reported when it sends a zero
// value the code never set (a field without omitempty, a zero time), and
// not when every field it writes is set on purpose or lies in the stanza
// the endpoint drops (spec, for a status apply).
func TestAnalyzer(t *testing.T) {
	vettest.Run(t, applytypedstruct.Analyzer, "example.com/applied")
}
