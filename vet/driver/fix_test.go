package driver

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestSplitDetail: sites declined for the same reason group together in
// the summary; the expression that differs per site is kept for its line.
func TestSplitDetail(t *testing.T) {
	for _, c := range []struct{ why, general, detail string }{
		{
			"the object is a typed value built elsewhere (desired.gateway.DeepCopy()), not a literal in this block: build it there",
			"the object is a typed value built elsewhere, not a literal in this block: build it there",
			"desired.gateway.DeepCopy()",
		},
		{"the mutate function is not written inline (a named function): x", "the mutate function is not written inline (a named function): x", ""},
	} {
		general, detail := splitDetail(c.why)
		if general != c.general || detail != c.detail {
			t.Errorf("splitDetail(%q) = %q, %q; want %q, %q", c.why, general, detail, c.general, c.detail)
		}
	}
}

// TestInjects: a failing test is taken for one that injects errors only
// when its own body uses controller-runtime's interceptor; a test that
// fails otherwise (a field an Update cleared, which an apply leaves) gets
// the other reason, even where other tests of the package inject.
func TestInjects(t *testing.T) {
	dir := t.TempDir()
	src := `package x

import "testing"

func TestInjecting(t *testing.T) {
	_ = interceptor.Funcs{}
}

func TestClearing(t *testing.T) {
	t.Log("no injection here")
}
`
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ch := &vetCheck{pkg: &packages.Package{GoFiles: []string{filepath.Join(dir, "x.go")}}}
	for _, c := range []struct {
		failing []string
		want    bool
	}{
		{[]string{"TestInjecting/case"}, true},
		{[]string{"TestClearing"}, false},
		{[]string{"TestInjecting", "TestClearing"}, false},
	} {
		if got := ch.injects(c.failing); got != c.want {
			t.Errorf("injects(%v) = %v, want %v", c.failing, got, c.want)
		}
	}
}

// TestRelText: a reason naming another writer's position names it as the
// finding's own position is named, relative to the working directory;
// a path outside it stays whole.
func TestRelText(t *testing.T) {
	wd := filepath.Join(string(filepath.Separator)+"work", "op")
	o := options{wd: wd}
	for _, c := range []struct{ in, want string }{
		{"another writer of X's status is in evidence (" + filepath.Join(wd, "internal", "x.go") + ":3:4): apply", "another writer of X's status is in evidence (" + filepath.Join("internal", "x.go") + ":3:4): apply"},
		{"in evidence (" + filepath.Join(string(filepath.Separator)+"elsewhere", "x.go") + ":3:4)", "in evidence (" + filepath.Join(string(filepath.Separator)+"elsewhere", "x.go") + ":3:4)"},
		{"in evidence (" + wd + "x/y.go:1:1)", "in evidence (" + wd + "x/y.go:1:1)"},
		{"in evidence (" + filepath.Join(string(filepath.Separator)+"home", "me") + filepath.Join(wd, "x.go") + ":1:1)", "in evidence (" + filepath.Join(string(filepath.Separator)+"home", "me") + filepath.Join(wd, "x.go") + ":1:1)"},
		{filepath.Join(wd, "a.go") + " and " + filepath.Join(wd, "b.go"), "a.go and b.go"},
	} {
		if got := o.relText(c.in); got != c.want {
			t.Errorf("relText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := (options{}).relText("a " + wd + "/b"); got != "a "+wd+"/b" {
		t.Errorf("without a working directory relText changed %q", got)
	}
}
