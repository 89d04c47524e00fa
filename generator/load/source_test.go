package load

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"sort"
	"strings"
	"testing"

	"github.com/ssagen/ssagen/internal/gosrc"
)

const trickySource = `package p

import "strings"

type T struct {
	F func(int) (string, error)
	G interface{ M() struct{ X int } }
}

func (t *T) Method(f func(x struct{ A int }) int) func() int {
	if f(struct{ A int }{1}) > 0 {
		return func() int { return 1 }
	}
	return nil
}

func Generic[E interface{ ~int | ~string }](xs []E) (out struct{ N int }) {
	for range xs {
		out.N++
	}
	return
}

func Asm(x int) int

var Handlers = map[string]func() error{
	"a": func() error { return nil },
}

var Table = []struct{ K, V string }{{"a", "b"}}

var Lengths = [...]int{1, 2, 3}

var Ptr = &T{F: nil}

var Derived = strings.ToUpper("x")

const C = iota

func Results() (a, b int, c func() map[string]struct{}) { return 0, 0, nil }
`

// scopeOf type-checks src without function bodies and lists its
// package-level objects with their types.
func scopeOf(t *testing.T, src []byte, strip bool) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	if strip {
		dropInitializers(f)
	}
	conf := types.Config{IgnoreFuncBodies: true, Importer: gosrc.ImporterFunc(func(path string) (*types.Package, error) {
		return types.NewPackage(path, "strings"), nil
	}), Error: func(error) {}}
	pkg, _ := conf.Check("p", fset, []*ast.File{f}, nil)
	var lines []string
	for _, n := range pkg.Scope().Names() {
		lines = append(lines, types.ObjectString(pkg.Scope().Lookup(n), nil))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestBlankBodies: blanking function bodies and dropping the initializers
// of typed variables keeps every declaration's type and every position —
// what the source loader relies on for dependencies.
func TestBlankBodies(t *testing.T) {
	src := []byte(trickySource)
	blanked := blankBodies(src)
	if len(blanked) != len(src) || strings.Count(string(blanked), "\n") != strings.Count(trickySource, "\n") {
		t.Fatal("blanking moved positions")
	}
	for _, gone := range []string{"return func() int { return 1 }", "out.N++", `return nil }`} {
		if strings.Contains(string(blanked), gone) {
			t.Errorf("body text %q left in:\n%s", gone, blanked)
		}
	}
	for _, kept := range []string{"F func(int) (string, error)", "G interface{ M() struct{ X int } }", "func Asm(x int) int", "[E interface{ ~int | ~string }]"} {
		if !strings.Contains(string(blanked), kept) {
			t.Errorf("declaration text %q lost:\n%s", kept, blanked)
		}
	}
	want, got := scopeOf(t, src, false), scopeOf(t, blanked, true)
	if want != got {
		t.Errorf("declarations changed:\nwant\n%s\ngot\n%s", want, got)
	}
}
