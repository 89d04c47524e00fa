package driver

import (
	"bytes"
	"encoding/json"
	"strings"
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

// TestJSON: -json prints the findings as data on standard output (what
// hack/vet-sample.sh compares) and exits as the text output does.
func TestJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"-json", "../../examples/unfixed"}, &stdout, &stderr); code != exitFindings {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitFindings, stderr.String())
	}
	var got []struct {
		Pos, Category, Message, Kind string
		Status                       bool
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout.String())
	}
	if len(got) != 2 || stderr.Len() != 0 {
		t.Fatalf("%d findings (want 2), stderr %q:\n%s", len(got), stderr.String(), stdout.String())
	}
	for _, f := range got {
		if !strings.Contains(f.Pos, "examples/unfixed/") || f.Category == "" || f.Message == "" || f.Kind == "" {
			t.Errorf("finding without its data: %+v", f)
		}
		if f.Category == contract.CategoryStatusUpdate && (!f.Status || f.Kind != "Project") {
			t.Errorf("status finding: %+v, want kind Project, status true", f)
		}
	}
}

// TestSkipsPackagesOnlyTestsImport: a package of the module that only
// test files import (a fixture, a testutil) is not operator code, told by
// the import graph and not by its name: its writes are not reported; the
// same code in a package the controller imports is (issue 55).
func TestSkipsPackagesOnlyTestsImport(t *testing.T) {
	found, err := Findings([]string{"./testdata/testonly/fixture", "./testdata/testonly/lib", "./testdata/testonly/controller"}, "")
	if err != nil {
		t.Fatal(err)
	}
	var where []string
	for _, f := range found {
		where = append(where, f.Pos.Filename)
	}
	if len(found) != 1 || !strings.HasSuffix(found[0].Pos.Filename, "testonly/lib/lib.go") {
		t.Fatalf("findings in %v, want one, in lib (fixture is imported by tests alone)", where)
	}
}
