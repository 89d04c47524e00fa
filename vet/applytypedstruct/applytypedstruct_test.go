package applytypedstruct_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/ssagen/ssagen/vet/applytypedstruct"
)

// TestAnalyzer: a typed-struct apply is reported when it sends a zero
// value the code never set (a field without omitempty, a zero time), and
// not when every field it writes is set on purpose or lies in the stanza
// the endpoint drops (spec, for a status apply).
func TestAnalyzer(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, testdata, applytypedstruct.Analyzer, "example.com/applied")
}
