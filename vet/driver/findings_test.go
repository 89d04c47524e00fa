package driver

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

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
// the import graph and not by its name: a pattern with "..." that reaches
// it leaves it out; the same code in a package the controller imports
// stays (issue 55). A package named without "..." is analysed: it was
// asked for. (The go command matches no testdata folder with "...", so
// the wildcard run is the filter's, on the packages loaded by name.)
func TestSkipsPackagesOnlyTestsImport(t *testing.T) {
	named := []string{"./testdata/testonly/fixture", "./testdata/testonly/lib", "./testdata/testonly/controller"}
	pkgs, err := load(named, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	names := func(pkgs []*packages.Package) []string {
		var out []string
		for _, p := range pkgs {
			out = append(out, p.Name)
		}
		sort.Strings(out)
		return out
	}
	if got := names(withoutTestOnly(pkgs, []string{"./testdata/testonly/..."}, nil)); strings.Join(got, " ") != "controller lib" {
		t.Errorf("reached by a wildcard: %v, want controller and lib (fixture is imported by tests alone)", got)
	}
	if got := names(withoutTestOnly(pkgs, named, nil)); len(got) != 3 {
		t.Errorf("named one by one: %v, want all three", got)
	}
	found, err := Findings(named, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 2 {
		t.Errorf("%d findings when named, want fixture's and lib's", len(found))
	}
}
