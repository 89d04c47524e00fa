package load

import (
	"fmt"
	"go/ast"
	"go/parser"
	"io/fs"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/tools/go/packages"

	"github.com/ssagen/ssagen/generator/model"
)

// discovery is what ssagen found, without a flag, about the apply
// configurations a type package's own module ships.
type discovery struct {
	applyPkg string   // import path of the apply configurations, "" if none
	searched string   // what was looked at, for the error when none fit
	rejected []string // candidates that failed the field-by-field check
}

// indexModules records the module of every package the input reaches.
func (l *loader) indexModules(pkgs []*packages.Package) {
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.Module != nil {
			l.modules[p.PkgPath] = p.Module
		}
	})
}

// discover finds the apply configurations of the types of pkg in pkg's
// own module: a package under a folder named applyconfiguration*, whose
// path ends in pkg's last two elements (where applyconfiguration-gen and
// controller-gen put them: gateway-api's applyconfiguration/apis/v1,
// kueue's client-go/applyconfiguration/kueue/v1beta1, controller-gen's
// <pkg>/applyconfiguration/<group>/<version>), and that declares, for each
// type wanted, <Type>ApplyConfiguration with the type's JSON fields.
// Candidates are tried in path order; the first that fits every wanted
// type wins.
func (l *loader) discover(pkg string, want []*model.Type) discovery {
	if d, ok := l.discovered[pkg]; ok {
		return d
	}
	d := discovery{}
	defer func() { l.discovered[pkg] = d }()
	mod := l.modules[pkg]
	if mod == nil || mod.Dir == "" {
		d.searched = "no module folder is known for " + pkg
		return d
	}
	suffix := model.OutSubdir(pkg)
	candidates := candidateDirs(mod.Dir, suffix)
	d.searched = fmt.Sprintf("searched module %s (%s) for packages under an applyconfiguration folder ending in %s", mod.Path, mod.Dir, suffix)
	for _, rel := range candidates {
		dir := filepath.Join(mod.Dir, filepath.FromSlash(rel))
		decls := l.structDecls(dir)
		ok := true
		for _, t := range want {
			st := decls[t.Name.Name+"ApplyConfiguration"]
			if st == nil {
				d.rejected = append(d.rejected, fmt.Sprintf("%s has no %sApplyConfiguration", rel, t.Name.Name))
				ok = false
				break
			}
			if why := sameJSON(t, st); why != "" {
				d.rejected = append(d.rejected, fmt.Sprintf("%s.%sApplyConfiguration %s", rel, t.Name.Name, why))
				ok = false
				break
			}
		}
		if ok {
			d.applyPkg = path.Join(mod.Path, rel)
			return d
		}
	}
	return d
}

// candidateDirs lists the folders of a module, relative and sorted, that
// may hold apply configurations of a package whose output folder is
// suffix (rbac/v1): below a folder named applyconfiguration*, ending in
// suffix.
func candidateDirs(modDir, suffix string) []string {
	var candidates []string
	_ = filepath.WalkDir(modDir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return nil
		}
		name := e.Name()
		if p != modDir && (name == "vendor" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(modDir, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if strings.HasSuffix(rel, "/"+suffix) && strings.Contains("/"+rel, "/applyconfiguration") {
			candidates = append(candidates, rel)
		}
		return nil
	})
	sort.Strings(candidates)
	return candidates
}

// structDecls parses the Go files of dir (no type-checking) and returns
// its struct type declarations by name.
func (l *loader) structDecls(dir string) map[string]*ast.StructType {
	out := map[string]*ast.StructType{}
	matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range matches {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		for n, st := range l.structDeclsOf(f) {
			out[n] = st
		}
	}
	return out
}

// structDeclsOf parses one file (once) and returns its struct types.
func (l *loader) structDeclsOf(file string) map[string]*ast.StructType {
	return l.parsedDecls(file).structs
}

// fileDecls are the struct types of a parsed file, and the paths its
// imports name (by the name the file uses).
type fileDecls struct {
	structs map[string]*ast.StructType
	imports map[string]string
}

// parsedDecls parses one file once.
func (l *loader) parsedDecls(file string) fileDecls {
	if d, ok := l.structs[file]; ok {
		return d
	}
	d := fileDecls{structs: map[string]*ast.StructType{}, imports: map[string]string{}}
	l.structs[file] = d
	f, err := parser.ParseFile(l.fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		return d
	}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		d.imports[name] = path
	}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range gd.Specs {
			if ts, ok := s.(*ast.TypeSpec); ok {
				if st, ok := ts.Type.(*ast.StructType); ok {
					d.structs[ts.Name.Name] = st
				}
			}
		}
	}
	return d
}

// sameJSON checks an apply configuration against the type it configures:
// the same JSON names, each a list where the type's is a list and a map
// where it is a map. Inline members (TypeMeta, embedded structs) are not
// compared. It returns what differs, or "".
func sameJSON(t *model.Type, st *ast.StructType) string {
	theirs := map[string]string{}
	for _, f := range st.Fields.List {
		name, inline := jsonName(f)
		if inline || name == "-" {
			continue
		}
		theirs[name] = shapeOfExpr(f.Type)
	}
	ours := map[string]string{}
	for _, f := range t.Fields {
		if f.Inline || f.JSONName == "" || f.JSONName == "-" {
			continue
		}
		ours[f.JSONName] = shapeOfRef(f.Type)
	}
	var diffs []string
	for n, s := range ours {
		switch ts, ok := theirs[n]; {
		case !ok:
			diffs = append(diffs, "lacks "+n)
		case ts != s:
			diffs = append(diffs, fmt.Sprintf("has %s as a %s, the type as a %s", n, ts, s))
		}
	}
	for n := range theirs {
		if _, ok := ours[n]; !ok {
			diffs = append(diffs, "has "+n+", which the type lacks")
		}
	}
	sort.Strings(diffs)
	return strings.Join(diffs, ", ")
}

func jsonName(f *ast.Field) (name string, inline bool) {
	if f.Tag != nil {
		if tag, err := strconv.Unquote(f.Tag.Value); err == nil {
			v := reflect.StructTag(tag).Get("json")
			name, opts, _ := strings.Cut(v, ",")
			if name == "" && len(f.Names) == 0 {
				return "", true
			}
			if strings.Contains(","+opts+",", ",inline,") && name == "" {
				return "", true
			}
			if name != "" {
				return name, false
			}
		}
	}
	if len(f.Names) == 0 {
		return "", true
	}
	return f.Names[0].Name, false
}

// shapeOfExpr and shapeOfRef say whether a field is a list, a map or a
// single value, through pointers.
func shapeOfExpr(e ast.Expr) string {
	for {
		if s, ok := e.(*ast.StarExpr); ok {
			e = s.X
			continue
		}
		break
	}
	switch e.(type) {
	case *ast.ArrayType:
		return "list"
	case *ast.MapType:
		return "map"
	}
	return "value"
}

func shapeOfRef(r *model.TypeRef) string {
	r = r.Deref()
	switch r.Kind {
	case model.RefSlice:
		return "list"
	case model.RefMap:
		return "map"
	case model.RefNamed:
		switch r.Named.Shape {
		case model.ShapeSlice:
			return "list"
		case model.ShapeMap:
			return "map"
		}
	}
	return "value"
}

// checkOutputDir refuses an output tree inside an input package (it would
// become part of the API package, or be read back as input by a ./...
// pattern) or inside the module cache (the folders of the modules the
// run loaded from it tell where that is: no `go env`).
func (l *loader) checkOutputDir() {
	out := l.cfg.OutputDir
	if out == "" {
		return
	}
	for _, in := range l.sortedInputs() {
		if in.gv.Dir != "" && within(out, in.gv.Dir) {
			l.errs.Add(noPos, "choose a folder outside the input packages", "--output-dir %s is inside input package %s (%s)", out, in.pkg.PkgPath, in.gv.Dir)
			return
		}
	}
	if cache := l.moduleCache(); cache != "" && within(out, cache) {
		l.errs.Add(noPos, "choose a folder of your own module", "--output-dir %s is inside the module cache %s", out, cache)
	}
}

// moduleCache is the module cache the run's modules were loaded from: a
// module's folder there is <cache>/<escaped path>@<escaped version>. It
// is "" when no module came from one (a vendor folder, replacements).
func (l *loader) moduleCache() string {
	for _, p := range sortedKeys(l.modules) {
		m := l.modules[p]
		if m.Dir == "" || m.Version == "" || m.Replace != nil {
			continue
		}
		ep, err1 := module.EscapePath(m.Path)
		ev, err2 := module.EscapeVersion(m.Version)
		if err1 != nil || err2 != nil {
			continue
		}
		suffix := string(filepath.Separator) + filepath.FromSlash(ep+"@"+ev)
		if strings.HasSuffix(m.Dir, suffix) {
			return strings.TrimSuffix(m.Dir, suffix)
		}
	}
	return ""
}
