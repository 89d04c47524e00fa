package contract

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// spellers are the folders (from the repository's root) whose code must
// take the contract's names from this package, never spell them: the
// Kubebuilder plugin and its templates, and ssagen audit.
var spellers = []string{"kubebuilder", "templates/kubebuilder", "audit"}

// TestNobodyElseSpellsTheContract reads the non-test Go files and the
// templates of spellers for what this package answers (issue 32): the
// runtime's import path, its alias, the helper package's name as a
// literal, a helper name built from the "Ensure" prefix, and each
// category's value. A Go file is read for its string literals (comments
// may say what they like); a template, whole, as the text it writes.
func TestNobodyElseSpellsTheContract(t *testing.T) {
	rules := contractRules(t)
	var found []string
	for _, dir := range spellers {
		root := filepath.Join("..", "..", filepath.FromSlash(dir))
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			switch {
			case strings.HasSuffix(p, "_test.go"):
			case strings.HasSuffix(p, ".go"):
				found = append(found, goLiterals(t, p, rules)...)
			case strings.HasSuffix(p, ".tmpl"):
				found = append(found, templateText(t, p, rules)...)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range found {
		t.Error(f)
	}
}

// rule is one thing the contract answers: where text spells it, and the
// name in this package to use instead.
type rule struct {
	re  *regexp.Regexp
	use string
	// goOnly: templates are not read for it (prose says "ensure").
	goOnly bool
	// tmplOnly: Go literals are not read for it.
	tmplOnly bool
}

// contractRules builds the rules from this package's constants: the
// categories are read from contract.go, so that a new one is checked too.
func contractRules(t *testing.T) []rule {
	t.Helper()
	// A path or name is spelled when it stands alone: not part of a longer
	// path or identifier ("…/ensure/ensuretest" is another package).
	whole := func(s string) string {
		return `(^|[^A-Za-z0-9_./-])` + regexp.QuoteMeta(s) + `($|[^A-Za-z0-9_/-])`
	}
	rules := []rule{
		{re: regexp.MustCompile(whole(RuntimePkg)), use: "contract.RuntimePkg"},
		{re: regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(RuntimeAlias) + `($|[^A-Za-z0-9_])`), use: "contract.RuntimeAlias"},
		// The helper package's name as a literal of its own: an alias or
		// a path built from it.
		{re: regexp.MustCompile(`^` + regexp.QuoteMeta(HelperPkgName) + `$`), use: "contract.HelperPkgName or contract.HelperAlias", goOnly: true},
		// A helper's name built from its prefix: "Ensure"+kind,
		// "Ensure%s", Ensure{{.Kind}}.
		{re: regexp.MustCompile(`(^|[^A-Za-z0-9_])` + Ensure("") + `($|%)`), use: "contract.Ensure / contract.EnsureStatus", goOnly: true},
		{re: regexp.MustCompile(`(Ensure|Owned|Apply)\{\{`), use: "contract.Ensure, EnsureStatus, OwnedChanges or ApplyChanges, passed in the template's data", tmplOnly: true},
		// The runtime qualified by its package name, not its alias.
		{re: regexp.MustCompile(`(^|[^A-Za-z0-9_.])` + HelperPkgName + `\.[A-Z]`), use: "contract.RuntimeAlias (.RuntimeAlias)", tmplOnly: true},
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "contract.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	categories := 0
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Category") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("contract.go: %s is not a string literal: the test cannot read it", name.Name)
				}
				v, _ := strconv.Unquote(lit.Value)
				rules = append(rules, rule{re: regexp.MustCompile(`(^|[^a-z0-9-])` + regexp.QuoteMeta(v) + `($|[^a-z0-9-])`), use: "contract." + name.Name})
				categories++
			}
		}
	}
	if categories == 0 {
		t.Fatal("contract.go declares no Category constant: the test reads none")
	}
	return rules
}

// goLiterals checks the string literals of the Go file p.
func goLiterals(t *testing.T, p string, rules []rule) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	name := fromRoot(p)
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
		}
		for _, r := range rules {
			if r.tmplOnly {
				continue
			}
			for _, line := range strings.Split(s, "\n") {
				if r.re.MatchString(line) {
					pos := fset.Position(lit.Pos())
					out = append(out, fmt.Sprintf("%s:%d: %s spells what internal/contract answers: use %s", name, pos.Line, lit.Value, r.use))
					break
				}
			}
		}
		return true
	})
	return out
}

// templateText checks the text of the template p, line by line.
func templateText(t *testing.T, p string, rules []rule) []string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, line := range strings.Split(string(b), "\n") {
		for _, r := range rules {
			if !r.goOnly && r.re.MatchString(line) {
				out = append(out, fmt.Sprintf("%s:%d: %q spells what internal/contract answers: use %s", fromRoot(p), i+1, strings.TrimSpace(line), r.use))
			}
		}
	}
	return out
}

// fromRoot is p, a path from this folder, from the repository's root.
func fromRoot(p string) string {
	if rel, err := filepath.Rel(filepath.Join("..", ".."), p); err == nil {
		return filepath.ToSlash(rel)
	}
	return p
}
