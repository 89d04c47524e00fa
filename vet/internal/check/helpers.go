package check

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/internal/gomod"
	"github.com/ssagen/ssagen/templates"
)

// Helpers are generated helper packages the analysed packages may not
// import yet — the user has just generated them — found and type-checked
// (FindHelpers) by HelpersAnalyzer for the modules a driver names, once,
// and read by the checks from its result. The checks never walk the file
// system or load packages themselves. Without a driver's names (go vet
// -vettool, gopls) there are none, and the checks find helpers only among
// the package's imports.
type Helpers struct {
	modules []helperModule // longest module path first
	extra   []helperPkg    // named by the driver's -helpers, for every module
}

type helperModule struct {
	path string
	pkgs []helperPkg
}

// helperPkg is one helper package: type-checked, or why it is not.
type helperPkg struct {
	path     string
	pkg      *types.Package
	err      string
	declares map[string]string // Ensure<Kind> → the kind's package path, read from syntax
}

// FindHelpers finds the helper packages of the modules that hold dirs —
// folders named as the contract's helper packages whose files carry
// ssagen's header — plus the packages extra names, and type-checks them
// (from export data) in one load. A package that does not type-check is
// kept with its first error, so a fix can say why it was not used.
func FindHelpers(dirs []string, extra []string) *Helpers {
	h := &Helpers{}
	seen := map[string]bool{}
	for _, dir := range dirs {
		root, modPath, _ := gomod.Enclosing(dir)
		if root == "" || seen[root] {
			continue
		}
		seen[root] = true
		cands := findHelperPackages(root, modPath)
		h.modules = append(h.modules, helperModule{path: modPath, pkgs: loadHelpers(root, cands)})
	}
	sort.Slice(h.modules, func(i, j int) bool { return len(h.modules[i].path) > len(h.modules[j].path) })
	var named []helperPkg
	for _, p := range extra {
		if p = strings.TrimSpace(p); p != "" {
			named = append(named, helperPkg{path: p})
		}
	}
	if len(named) > 0 {
		wd, _ := os.Getwd()
		h.extra = loadHelpers(wd, named)
	}
	return h
}

// forPackage are the helpers a package at import path pkgPath may use:
// those of its own module, then those named by the driver.
func (h *Helpers) forPackage(pkgPath string) []helperPkg {
	if h == nil {
		return nil
	}
	var out []helperPkg
	for _, m := range h.modules {
		if pkgPath == m.path || strings.HasPrefix(pkgPath, m.path+"/") {
			out = append(out, m.pkgs...)
			break
		}
	}
	return append(out, h.extra...)
}

// findHelperPackages walks the module for folders named as helper
// packages whose Go files carry ssagen's header, and reads what each
// declares from its syntax.
func findHelperPackages(root, modPath string) []helperPkg {
	var out []helperPkg
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
		hp := helperPkg{path: modPath + "/" + filepath.ToSlash(rel), declares: map[string]string{}}
		fset := token.NewFileSet()
		matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		generated := false
		for _, m := range matches {
			if strings.HasSuffix(m, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, m, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil || !generatedBySSAgen(f) {
				continue
			}
			generated = true
			declared(f, hp.declares)
		}
		if generated {
			out = append(out, hp)
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// loadHelpers type-checks the helper packages from export data, in one
// load from root; each that does not gets its first error.
func loadHelpers(root string, hps []helperPkg) []helperPkg {
	if len(hps) == 0 {
		return nil
	}
	paths := make([]string, len(hps))
	for i, hp := range hps {
		paths[i] = hp.path
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: root}, paths...)
	byPath := map[string]*packages.Package{}
	for _, p := range pkgs {
		byPath[p.PkgPath] = p
	}
	for i := range hps {
		p := byPath[hps[i].path]
		switch {
		case err != nil:
			hps[i].err = err.Error()
		case p == nil || p.Types == nil:
			hps[i].err = "not found"
		case len(p.Errors) > 0:
			hps[i].err = p.Errors[0].Error()
		default:
			hps[i].pkg = p.Types
		}
	}
	return hps
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

// declared records, from f's syntax, each function returning *<pkg>.<T>
// first: its name, and the import path of T's package.
func declared(f *ast.File, into map[string]string) {
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
		if !ok || fd.Recv != nil || fd.Type.Results == nil || len(fd.Type.Results.List) == 0 {
			continue
		}
		star, ok := fd.Type.Results.List[0].Type.(*ast.StarExpr)
		if !ok {
			continue
		}
		if sel, ok := star.X.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok {
				into[fd.Name.Name] = imports[x.Name] + "." + sel.Sel.Name
			}
		}
	}
}

// moduleHelper finds Ensure<Kind> for named among the helpers the driver
// resolved for the package's module (or named with -helpers), when the
// package does not import them.
func (p *Pass) moduleHelper(named *types.Named) *types.Func {
	p.helperErr = ""
	if named.Obj().Pkg() == nil {
		return nil
	}
	kind, objPath := named.Obj().Name(), named.Obj().Pkg().Path()
	want := types.TypeString(types.NewPointer(named), nil)
	for _, hp := range p.helpers.forPackage(p.Pkg.Path()) {
		if hp.declares != nil && hp.declares[contract.Ensure(kind)] != objPath+"."+kind {
			continue
		}
		if hp.pkg == nil {
			p.helperErr = fmt.Sprintf("%s declares %s but does not type-check (%s): fix it (go build %s), then run -fix again", hp.path, contract.Ensure(kind), hp.err, hp.path)
			continue
		}
		fn, ok := hp.pkg.Scope().Lookup(contract.Ensure(kind)).(*types.Func)
		if !ok {
			continue
		}
		sig := fn.Type().(*types.Signature)
		if sig.Params().Len() > contract.ParamDesired && sig.Results().Len() == 3 &&
			types.TypeString(sig.Results().At(0).Type(), nil) == want && ACNamed(sig.Params().At(contract.ParamDesired).Type()) != nil {
			return fn
		}
	}
	return nil
}
