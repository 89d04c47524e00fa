package arch

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function of generator/ or vet/ may be,
// from its func keyword to its closing brace: a longer one does more than
// one thing, and the loader's phases, the emitters and vet's rules stay
// readable as named steps.
const maxFuncLines = 80

// TestFunctionLength: no function of generator/ or vet/ (tests and
// testdata aside) is longer than maxFuncLines.
func TestFunctionLength(t *testing.T) {
	checked := 0
	for _, root := range []string{"../../generator", "../../vet"} {
		n, err := checkLengths(t, root)
		if err != nil {
			t.Fatal(err)
		}
		if n < 100 {
			t.Fatalf("only %d functions found under %s: the walk is looking in the wrong place", n, root)
		}
		checked += n
	}
}

// checkLengths checks the functions of the Go files under root.
func checkLengths(t *testing.T, root string) (int, error) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			checked++
			from, to := fset.Position(fd.Pos()), fset.Position(fd.End())
			n := to.Line - from.Line + 1
			if n > maxFuncLines {
				t.Errorf("%s: %s is %d lines, more than %d: split it into named steps", from, fd.Name.Name, n, maxFuncLines)
			}
		}
		return nil
	})
	return checked, err
}
