package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ssagen/ssagen/internal/gomod"
)

// ranMain is `testreport ran`: after make test and make test-matrix, every
// top-level test function of the repository's modules must have passed in
// one of the runs whose tests.txt is under -reports. A test that make test
// skips and make test-matrix does not run (or that every run skips) is
// listed, and the exit code is 1: moving tests between the targets never
// drops one.
func ranMain(args []string, out io.Writer) int {
	fs := flag.NewFlagSet("ran", flag.ContinueOnError)
	root := fs.String("root", ".", "the repository")
	reports := fs.String("reports", ".cache/test-report", "the folder of the runs' reports (each a folder with tests.txt)")
	measurements := fs.String("measurements", "", "comma-separated \"package TestName\" of measurements an environment variable turns on, which every run skips")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	declared, err := testFuncs(*root)
	if err != nil {
		fmt.Fprintln(out, "testreport ran:", err)
		return 2
	}
	passed, err := passedTests(*reports)
	if err != nil {
		fmt.Fprintln(out, "testreport ran:", err)
		return 2
	}
	for _, m := range strings.Split(*measurements, ",") {
		if m = strings.TrimSpace(m); m != "" {
			passed[m] = true
		}
	}
	var missing []string
	for _, t := range declared {
		if !passed[t] {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(out, "%d of the %d tests of the repository passed in no run of make test or make test-matrix:\n  %s\n", len(missing), len(declared), strings.Join(missing, "\n  "))
		return 1
	}
	fmt.Fprintf(out, "every one of the %d tests of the repository passed in make test or make test-matrix\n", len(declared))
	return 0
}

// testFuncs lists "importpath TestName" for every func TestX(t
// *testing.T) declared in a _test.go file of the repository's modules
// (testdata, hidden folders and .cache left out).
func testFuncs(root string) ([]string, error) {
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg, err := importPath(filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv == nil && isTest(fd) {
				out = append(out, pkg+" "+fd.Name.Name)
			}
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

func isTest(fd *ast.FuncDecl) bool {
	name := fd.Name.Name
	if !strings.HasPrefix(name, "Test") || name == "TestMain" || len(fd.Type.Params.List) != 1 {
		return false
	}
	if rest := name[len("Test"):]; rest != "" && strings.ToLower(rest[:1]) == rest[:1] && rest[:1] != "_" {
		return false // Testable is not a test
	}
	star, ok := fd.Type.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "T"
}

// importPath is dir's import path, from the nearest go.mod above it.
func importPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	root, mod, ok := gomod.Enclosing(abs)
	if !ok {
		return "", fmt.Errorf("%s: no go.mod above it", dir)
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == "." {
		return mod, err
	}
	return mod + "/" + filepath.ToSlash(rel), nil
}

// passedTests is the set of "package TestName" that passed in any run.
func passedTests(dir string) (map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "tests.txt"))
	if err != nil {
		return nil, err
	}
	passed := map[string]bool{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) == 3 && fields[2] == "pass" && !strings.Contains(fields[1], "/") {
				passed[fields[0]+" "+fields[1]] = true
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return passed, nil
}
