package statusupdate_test

import (
	"testing"

	"github.com/ssagen/ssagen/vet/internal/vettest"
	"github.com/ssagen/ssagen/vet/statusupdate"
)

// TestAnalyzer: Status().Update() of an object read from the cache is
// reported; of one built in the function, not.
func TestAnalyzer(t *testing.T) {
	vettest.Run(t, statusupdate.Analyzer, "example.com/statusupdate")
}
