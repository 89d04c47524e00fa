package main

import (
	"strings"
	"testing"
)

// TestRanNamesTheTestNoRunPassed: a test that passed in no run is listed
// (one skipped in make test and not run by make test-matrix), a test in a
// raw string (a fixture) is not a test, and with every test passed
// somewhere the check passes.
func TestRanNamesTheTestNoRunPassed(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.mod":               "module example.com/m\n\ngo 1.26\n",
		"a/a_test.go":          "package a_test\n\nimport \"testing\"\n\nfunc TestFast(t *testing.T) {}\n\nfunc TestSlow(t *testing.T) {}\n\nfunc Testable() {}\n\nconst fixture = `\nfunc TestInFixture(t *testing.T) {}\n`\n",
		"a/testdata/x_test.go": "package x\n\nimport \"testing\"\n\nfunc TestIgnored(t *testing.T) {}\n",
		"sub/go.mod":           "module example.com/sub\n\ngo 1.26\n",
		"sub/b_test.go":        "package sub\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) {}\n",
	})
	reports := t.TempDir()
	write := func(run, list string) { writeTree(t, reports, map[string]string{run + "/tests.txt": list}) }
	write("test", "example.com/m/a TestFast pass\nexample.com/sub TestB pass\nexample.com/m/a TestSlow skip\n")
	var out strings.Builder
	if code := ranMain([]string{"-root", root, "-reports", reports}, &out); code != 1 || !strings.Contains(out.String(), "1 of the 3 tests") || !strings.Contains(out.String(), "example.com/m/a TestSlow") {
		t.Errorf("TestSlow skipped in make test and not run by the matrix: exit %d\n%s", code, out.String())
	}
	out.Reset()
	if code := ranMain([]string{"-root", root, "-reports", reports, "-measurements", "example.com/m/a TestSlow"}, &out); code != 0 {
		t.Errorf("TestSlow named a measurement: exit %d\n%s", code, out.String())
	}
	write("matrix", "example.com/m/a TestSlow pass\n")
	out.Reset()
	if code := ranMain([]string{"-root", root, "-reports", reports}, &out); code != 0 || !strings.Contains(out.String(), "every one of the 3 tests") {
		t.Errorf("every test passed somewhere: exit %d\n%s", code, out.String())
	}
}
