package driver

import (
	"testing"

	"github.com/ssagen/ssagen/internal/contract"
)

// TestFindingsCarryTheKind: each finding says, as data, the kind whose
// helper its fix names and whether it is the status helper — what ssagen
// audit --source joins on (issue 32), never read back from the message.
func TestFindingsCarryTheKind(t *testing.T) {
	found, err := Findings([]string{"../../examples/unfixed"}, "")
	if err != nil {
		t.Fatal(err)
	}
	type target struct {
		kind   string
		status bool
	}
	got := map[string]target{}
	for _, f := range found {
		got[f.Category] = target{f.Kind, f.Status}
	}
	want := map[string]target{
		contract.CategoryCreateUpdate: {"Role", false},
		contract.CategoryStatusUpdate: {"Project", true},
	}
	for cat, w := range want {
		if g, ok := got[cat]; !ok || g != w {
			t.Errorf("%s finding: kind %q, status %v (found: %v); want %q, %v", cat, g.kind, g.status, ok, w.kind, w.status)
		}
	}
	if len(found) != len(want) {
		t.Errorf("%d findings, want %d: %+v", len(found), len(want), found)
	}
}
