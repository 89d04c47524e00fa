package driver

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/internal/gosrc"
)

// The fake client applies as the API server does. controller-runtime's
// fake client (v0.22 on) applies through the type converters it is built
// with: by default client-go's, for the built-in kinds, then a deduced one
// for every other kind, under which every list is atomic. An apply there
// replaces a list the API server merges by key (a Gateway's listeners) and
// drops what another writer set in it, so a test that passed with the
// Update fails with the helper, though the API server would keep the
// other writer's fields. controller-runtime's documentation asks for "a
// type converter for your types"; the tree ssagen generates has one
// (NewTypeConverter, as applyconfiguration-gen's). So once a fix makes a
// package write through a generated helper, each fake client its tests
// build
//
//	fake.NewClientBuilder().WithScheme(testScheme).WithObjects(objs...).Build()
//
// gets that converter first, and the two it had after it:
//
//	fake.NewClientBuilder().WithScheme(testScheme).WithTypeConverters(ssa.NewTypeConverter(testScheme),
//		clientgoapplyconfigurations.NewTypeConverter(testScheme), managedfields.NewDeducedTypeConverter()).WithObjects(objs...).Build()
//
// Each converter declines the kinds it has no schema for, so every other
// kind is converted as before. A builder is left alone where its chain
// ends other than in Build() (it escapes, and may get WithObjectTracker,
// which cannot go with converters), already sets converters or an object
// tracker, or takes its scheme from an expression that is more than a
// name (it would be evaluated twice); so is every builder when the
// module's controller-runtime predates WithTypeConverters. The edits are
// checked with the fix: the package's build, go vet and its tests.

const (
	fakePath         = "sigs.k8s.io/controller-runtime/pkg/client/fake"
	managedFieldsPkg = "k8s.io/apimachinery/pkg/util/managedfields"
	clientGoACPkg    = "k8s.io/client-go/applyconfigurations"
	clientGoScheme   = "k8s.io/client-go/kubernetes/scheme"
)

// converterDecl is how the generated tree declares its type converter.
var converterDecl = []byte("func NewTypeConverter(scheme *runtime.Scheme) managedfields.TypeConverter")

// converterEdits are the edits of the package's test files that build
// their fake clients with the type converter of the generated tree whose
// helpers c's edits call.
func converterEdits(c *candidate, changed map[string][]byte) []edit {
	f := c.f
	if !declares(moduleFile(f.pkg, "sigs.k8s.io/controller-runtime", "pkg/client/fake/client.go"), []byte("WithTypeConverters(")) ||
		!declares(moduleFile(f.pkg, "k8s.io/client-go", "applyconfigurations/utils.go"), []byte("func NewTypeConverter(")) {
		return nil
	}
	roots := treeRoots(c, changed)
	if len(roots) != 1 {
		return nil // no helper, or helpers of several trees: no one converter
	}
	return eachTestFile(f, changed, func(name string, src []byte) []edit {
		return withConverters(name, src, roots[0])
	})
}

// moduleFile is the file at rel in the folder of the module modPath, as
// pkg's dependencies have it, or "" when none is of that module.
func moduleFile(pkg *packages.Package, modPath, rel string) string {
	dir := ""
	packages.Visit([]*packages.Package{pkg}, func(p *packages.Package) bool {
		if m := p.Module; m != nil && m.Path == modPath {
			dir = m.Dir
			if m.Replace != nil && m.Replace.Dir != "" {
				dir = m.Replace.Dir
			}
		}
		return dir == ""
	}, nil)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, filepath.FromSlash(rel))
}

// declares reports whether the file name holds text.
func declares(name string, text []byte) bool {
	if name == "" {
		return false
	}
	b, err := os.ReadFile(name)
	return err == nil && bytes.Contains(b, text)
}

// quoted finds the import paths a fix's text names.
var quoted = regexp.MustCompile(`"([^"\s]+)"`)

// treeRoots are the import paths of the generated trees whose helper
// packages c's edits of the package's own files name: the nearest folder
// above each, in the package's module, that declares NewTypeConverter.
func treeRoots(c *candidate, changed map[string][]byte) []string {
	mod := c.f.pkg.Module
	if mod == nil || mod.Dir == "" {
		return nil
	}
	helpers := map[string]bool{}
	texts := map[string][]byte{} // the text c's edits write, by file
	for _, e := range c.edits {
		if !strings.HasSuffix(e.file, "_test.go") {
			texts[e.file] = append(texts[e.file], e.text...)
		}
	}
	for name, text := range texts {
		for _, m := range quoted.FindAllSubmatch(text, -1) {
			if contract.IsHelperPkg(string(m[1])) {
				helpers[string(m[1])] = true
			}
		}
		// A helper package the file already imports, named in the text.
		src, _ := sourceOf(changed, name)
		file, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, spec := range file.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			if spec.Name != nil && contract.IsHelperPkg(path) && bytes.Contains(text, []byte(spec.Name.Name+".")) {
				helpers[path] = true
			}
		}
	}
	roots := map[string]bool{}
	for path := range helpers {
		if !strings.HasPrefix(path, mod.Path+"/") {
			continue
		}
		dir := filepath.Join(mod.Dir, filepath.FromSlash(strings.TrimPrefix(path, mod.Path+"/")))
		for rel := path; strings.HasPrefix(rel, mod.Path+"/"); {
			if dirDeclares(dir, converterDecl) {
				roots[rel] = true
				break
			}
			dir, rel = filepath.Dir(dir), rel[:strings.LastIndex(rel, "/")]
		}
	}
	out := make([]string, 0, len(roots))
	for r := range roots {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// dirDeclares reports whether a non-test Go file in dir holds text.
func dirDeclares(dir string, text []byte) bool {
	names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, n := range names {
		if !strings.HasSuffix(n, "_test.go") && declares(n, text) {
			return true
		}
	}
	return false
}

// withConverters are the edits of one test file: each fake client
// builder chain that ends in Build() gets the converters of root.
func withConverters(name string, src []byte, root string) []edit {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	im := newImports(file, func(p token.Pos) int { return fset.Position(p).Offset })
	fakeName, ok := im.byPath[fakePath]
	if !ok {
		return nil
	}
	off := im.off
	parents := gosrc.Parents(file)
	var out []edit
	ast.Inspect(file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 0 || !isSelector(call.Fun, fakeName, "NewClientBuilder") {
			return true
		}
		// The chain: NewClientBuilder().A(...).B(...)...Build(), or a
		// builder kept in a variable whose every use goes on with it.
		var scheme ast.Expr
		after := ast.Expr(call) // what the converters follow
		ok = true
		last, cur := chain(parents, call, func(name string, c *ast.CallExpr) {
			switch name {
			case "WithObjectTracker", "WithTypeConverters":
				ok = false
			case "WithScheme":
				if len(c.Args) == 1 {
					scheme, after = c.Args[0], c
				}
			}
		})
		if last != "Build" && ok {
			last = keptBuilder(parents, cur, func(name string, c *ast.CallExpr) {
				switch name {
				case "WithObjectTracker", "WithTypeConverters", "WithScheme":
					ok = false // set apart from the chain the converters go in
				}
			})
		}
		if !ok || last != "Build" {
			return true
		}
		schemeText := ""
		switch {
		case scheme == nil:
			schemeText = im.name(clientGoScheme, "clientgoscheme") + ".Scheme"
		case plainName(scheme):
			schemeText = string(src[off(scheme.Pos()):off(scheme.End())])
		default:
			return true
		}
		rootName := im.name(root, contract.ImportName(root, root[strings.LastIndex(root, "/")+1:], ""))
		text := ".WithTypeConverters(" + rootName + ".NewTypeConverter(" + schemeText + "), " +
			im.name(clientGoACPkg, "clientgoapplyconfigurations") + ".NewTypeConverter(" + schemeText + "), " +
			im.name(managedFieldsPkg, "managedfields") + ".NewDeducedTypeConverter())"
		at := off(after.End())
		out = append(out, edit{file: name, start: at, end: at, text: []byte(text)})
		return true
	})
	if len(out) == 0 {
		return nil
	}
	return append(out, im.edits(name)...)
}

// chain walks the method calls made on the result of call in turn
// (call.A(...).B(...)), handing each to each; it returns the name of the
// last and the last call (call itself when none is made).
func chain(parents map[ast.Node]ast.Node, call *ast.CallExpr, each func(string, *ast.CallExpr)) (string, ast.Node) {
	last := ""
	cur := ast.Node(call)
	for {
		sel, ok := parents[cur].(*ast.SelectorExpr)
		if !ok || sel.X != cur {
			return last, cur
		}
		next, ok := parents[sel].(*ast.CallExpr)
		if !ok || next.Fun != sel {
			return last, cur
		}
		last = sel.Sel.Name
		each(last, next)
		cur = next
	}
}

// keptBuilder follows a builder chain end that is assigned to a variable
// (b := fake.NewClientBuilder().WithScheme(s)) to the uses of the
// variable in the function that declares it: each must go on with a
// chain (b.Build(), b.WithObjects(o).Build()), whose calls it hands to
// each. It returns "Build" when every use ends in Build(), else "".
func keptBuilder(parents map[ast.Node]ast.Node, end ast.Node, each func(string, *ast.CallExpr)) string {
	as, ok := parents[end].(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || as.Rhs[0] != end {
		return ""
	}
	v, ok := as.Lhs[0].(*ast.Ident)
	if !ok || v.Name == "_" {
		return ""
	}
	var body *ast.BlockStmt
	for n := parents[as]; n != nil && body == nil; n = parents[n] {
		switch f := n.(type) {
		case *ast.FuncDecl:
			body = f.Body
		case *ast.FuncLit:
			body = f.Body
		}
	}
	if body == nil {
		return ""
	}
	uses := 0
	ok = true
	ast.Inspect(body, func(n ast.Node) bool {
		id, isID := n.(*ast.Ident)
		if !ok || !isID || id == v || id.Name != v.Name || id.Pos() < as.End() {
			return ok
		}
		sel, isSel := parents[id].(*ast.SelectorExpr)
		call, isCall := parents[sel].(*ast.CallExpr)
		if !isSel || !isCall || call.Fun != sel {
			ok = false // used other than by a method call: it escapes
			return false
		}
		each(sel.Sel.Name, call)
		last, _ := chain(parents, call, each)
		if last == "" {
			last = sel.Sel.Name
		}
		if last != "Build" {
			ok = false
			return false
		}
		uses++
		return true
	})
	if !ok || uses == 0 {
		return ""
	}
	return "Build"
}

// plainName reports whether e is a name or a selector of names (s,
// scheme.Scheme, t.scheme).
func plainName(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		return plainName(e.X)
	}
	return false
}
