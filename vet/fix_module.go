package vet

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/internal/gomod"
	"github.com/ssagen/ssagen/templates"
)

// Helpers the package does not import yet — the user has just generated
// them — are found in the package's own module: a folder named as the
// contract's helper packages whose files carry ssagen's header, declaring
// Ensure<Kind> with the object type as its first result. Only a match is
// type-checked (from export data, once per process), so the fix can build
// the apply configuration and add the imports. -createupdate.helpers
// names more helper packages (of other modules, say).

// helperFlag is -createupdate.helpers.
var helperFlag string

func init() {
	CreateUpdate.Flags.StringVar(&helperFlag, "helpers", "", "import paths of generated helper packages (<apply configurations>/ensure) to fix with, besides those the package imports and those in its module (comma-separated)")
}

type helperCandidate struct {
	path  string // import path
	dir   string
	files []*ast.File // syntax only, for matching
	fset  *token.FileSet
}

// loaded holds each helper package type-checked, by module root, import
// path and the state of its files (names, sizes, modification times): a
// helper regenerated since is loaded again, never answered from the past.
var loaded sync.Map // helperKey → *loadedHelper

type helperKey struct{ root, path, stamp string }

type loadedHelper struct {
	once sync.Once
	pkg  *types.Package
	err  string // why it did not load
}

// moduleHelper finds Ensure<Kind> for named in the helpers of the
// package's module (or named by -helpers) when the package does not
// import them.
func (p *pass) moduleHelper(named *types.Named) *types.Func {
	p.helperErr = ""
	if len(p.Files) == 0 || named.Obj().Pkg() == nil {
		return nil
	}
	file := p.Fset.File(p.Files[0].Pos())
	if file == nil {
		return nil
	}
	dir := filepath.Dir(file.Name())
	root, modPath := moduleOf(dir)
	if root == "" {
		return nil
	}
	// Only the package's own module: its import path must be where the
	// module puts its folder (not so for GOPATH-style test data).
	if rel, err := filepath.Rel(root, dir); err != nil || path.Join(modPath, filepath.ToSlash(rel)) != p.Pkg.Path() {
		return nil
	}
	if !p.moduleLooked {
		p.moduleCands, p.moduleLooked = findHelperPackages(root, modPath), true
	}
	cands := append([]helperCandidate(nil), p.moduleCands...)
	for _, hp := range strings.Split(helperFlag, ",") {
		if hp = strings.TrimSpace(hp); hp != "" {
			cands = append(cands, helperCandidate{path: hp})
		}
	}
	kind, objPath := named.Obj().Name(), named.Obj().Pkg().Path()
	want := types.TypeString(types.NewPointer(named), nil)
	for _, c := range cands {
		if c.files != nil && !declaresHelper(c, contract.Ensure(kind), objPath, kind) {
			continue
		}
		pkg, err := loadHelper(root, c.path, c.dir)
		if pkg == nil {
			p.helperErr = fmt.Sprintf("%s declares %s but does not type-check (%s): fix it (go build %s), then run -fix again", c.path, contract.Ensure(kind), err, c.path)
			continue
		}
		fn, ok := pkg.Scope().Lookup(contract.Ensure(kind)).(*types.Func)
		if !ok {
			continue
		}
		sig := fn.Type().(*types.Signature)
		if sig.Params().Len() > contract.ParamDesired && sig.Results().Len() == 3 &&
			types.TypeString(sig.Results().At(0).Type(), nil) == want && acNamed(sig.Params().At(contract.ParamDesired).Type()) != nil {
			return fn
		}
	}
	return nil
}

// moduleOf returns the root and path of the module dir is in.
func moduleOf(dir string) (string, string) {
	root, mod, _ := gomod.Enclosing(dir)
	return root, mod
}

// findHelperPackages walks the module for folders named as helper
// packages whose Go files carry ssagen's header.
func findHelperPackages(root, modPath string) []helperCandidate {
	var out []helperCandidate
	filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		name := d.Name()
		if dir != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "vendor" || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if dir != root {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		if name != contract.HelperPkgName {
			return nil
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return nil
		}
		c := helperCandidate{path: modPath + "/" + filepath.ToSlash(rel), dir: dir, fset: token.NewFileSet()}
		matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, m := range matches {
			if strings.HasSuffix(m, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(c.fset, m, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil || !generatedBySSAgen(f) {
				continue
			}
			c.files = append(c.files, f)
		}
		if len(c.files) > 0 {
			out = append(out, c)
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// generatedBySSAgen reports whether ssagen's marker line is among the
// comments before the package clause (after a license header, if any).
func generatedBySSAgen(f *ast.File) bool {
	for _, g := range f.Comments {
		if g.Pos() > f.Package {
			break
		}
		for _, c := range g.List {
			if c.Text == templates.GeneratedMarker {
				return true
			}
		}
	}
	return false
}

// declaresHelper reports whether c declares func name returning
// *<objPath>.<kind> first, read from its syntax.
func declaresHelper(c helperCandidate, name, objPath, kind string) bool {
	for _, f := range c.files {
		imports := map[string]string{}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			n := filepath.Base(p)
			if imp.Name != nil {
				n = imp.Name.Name
			}
			imports[n] = p
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Name.Name != name || fd.Type.Results == nil || len(fd.Type.Results.List) == 0 {
				continue
			}
			star, ok := fd.Type.Results.List[0].Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			sel, ok := star.X.(*ast.SelectorExpr)
			if !ok {
				continue
			}
			if x, ok := sel.X.(*ast.Ident); ok && imports[x.Name] == objPath && sel.Sel.Name == kind {
				return true
			}
		}
	}
	return false
}

// loadHelper type-checks one helper package (from export data), once
// for the state of its files in dir ("" for a package of another module,
// named by -helpers); when it does not, the first error says why.
func loadHelper(root, path, dir string) (*types.Package, string) {
	v, _ := loaded.LoadOrStore(helperKey{root, path, dirStamp(dir)}, &loadedHelper{})
	lh := v.(*loadedHelper)
	lh.once.Do(func() {
		pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: root}, path)
		switch {
		case err != nil:
			lh.err = err.Error()
		case len(pkgs) != 1 || pkgs[0].Types == nil:
			lh.err = "not found"
		case len(pkgs[0].Errors) > 0:
			lh.err = pkgs[0].Errors[0].Error()
		default:
			lh.pkg = pkgs[0].Types
		}
	})
	return lh.pkg, lh.err
}

// dirStamp is the state of a folder's Go files: their names, sizes and
// modification times ("" for no folder).
func dirStamp(dir string) string {
	if dir == "" {
		return ""
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		if info, err := e.Info(); err == nil {
			fmt.Fprintf(&b, "%s %d %d;", e.Name(), info.Size(), info.ModTime().UnixNano())
		}
	}
	return b.String()
}
