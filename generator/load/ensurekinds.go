package load

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"sort"
	"strings"

	"github.com/ssagen/ssagen/generator/model"
)

// noPos is the position of errors about flags, not source.
var noPos token.Position

// parseEnsureKinds reads --ensure-kinds (<package>.<Kind>): the kinds per
// package, and the packages for the load.
func (l *loader) parseEnsureKinds() (map[string][]string, []string) {
	byPkg := map[string][]string{}
	for _, k := range l.cfg.EnsureKinds {
		dot := strings.LastIndex(k, ".")
		if dot <= strings.LastIndex(k, "/") || dot < 0 {
			l.errs.Add(noPos, "name kinds as <package>.<Kind>, for example k8s.io/api/rbac/v1.Role", "--ensure-kinds: %q is not <package>.<Kind>", k)
			continue
		}
		byPkg[k[:dot]] = append(byPkg[k[:dot]], k[dot+1:])
	}
	paths := make([]string, 0, len(byPkg))
	for p := range byPkg {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return byPkg, paths
}

// loadEnsureKinds walks the kinds of other modules named by EnsureKinds
// (their schema joins the output tree's) and returns one external group
// version per package. Their apply configurations are resolved with the
// other external types; checkEnsureKinds reports those that have none.
func (l *loader) loadEnsureKinds() []*model.GroupVersion {
	if len(l.cfg.EnsureKinds) == 0 {
		return nil
	}
	root, rootDir := l.cfg.OutputPkg, ""
	if l.cfg.Layout {
		// Beside the one tree of the run; with several, which is unclear.
		trees := map[string]string{}
		for _, in := range l.inputs {
			trees[in.gv.OutRoot] = in.gv.OutRootDir
		}
		if len(trees) != 1 {
			l.errs.Add(noPos, "pass --output-dir for the helpers of kinds of other modules", "--ensure-kinds: the input packages generate into %d trees, so the helpers of other modules' kinds have no single place", len(trees))
			return nil
		}
		for r, d := range trees {
			root, rootDir = r, d
		}
	}
	paths := make([]string, 0, len(l.ensurePkgs))
	for p := range l.ensurePkgs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out []*model.GroupVersion
	for _, pkgPath := range paths {
		p := l.ensurePkgs[pkgPath]
		if len(p.Errors) > 0 {
			l.errs.Add(noPos, "check that the package is a dependency of your module (go get)", "--ensure-kinds: %s: %s", p.PkgPath, p.Errors[0].Msg)
			continue
		}
		gv := &model.GroupVersion{
			PkgPath: p.PkgPath, PkgName: p.Name, External: true,
			OutSubdir:  model.OutSubdir(p.PkgPath),
			OutRoot:    root,
			OutRootDir: rootDir,
			OutPkgPath: path.Join(root, model.OutSubdir(p.PkgPath)),
			Version:    path.Base(p.PkgPath),
		}
		files := append([]*ast.File(nil), p.Syntax...)
		sort.Slice(files, func(i, j int) bool { return l.pos(files[i].Pos()).Filename < l.pos(files[j].Pos()).Filename })
		if in := l.inputs[p.PkgPath]; in != nil {
			// Its builders are generated in this run (named as an input too,
			// or vendored): the helpers go beside them.
			gv.OutSubdir, gv.OutPkgPath = in.gv.OutSubdir, in.gv.OutPkgPath
		}
		if !l.packageMarkers(files, gv).groupSet {
			gv.Group = path.Base(path.Dir(p.PkgPath)) // code-generator's fallback
		}
		names := append([]string(nil), l.ensureKinds[p.PkgPath]...)
		sort.Strings(names)
		for _, name := range names {
			obj, _ := p.Types.Scope().Lookup(name).(*types.TypeName)
			st, ok := (*types.Struct)(nil), false
			if obj != nil {
				st, ok = obj.Type().Underlying().(*types.Struct)
			}
			if !ok || !embedsObjectMeta(st) {
				l.errs.Add(noPos, "name a kind: a struct that embeds metav1.ObjectMeta", "--ensure-kinds: %s.%s is not a kind", p.PkgPath, name)
				continue
			}
			t := l.named(obj)
			var root *model.Root
			if file, decl, spec := l.declOf(obj); spec != nil {
				lines, vals := l.typeMarkers(file, decl, spec)
				root = l.rootOf(t, lines, vals)
			} else {
				root = l.rootOf(t, nil, markerValues{})
			}
			t.Root = root
			gv.Types = append(gv.Types, t)
		}
		if len(gv.Types) > 0 {
			out = append(out, gv)
		}
	}
	return out
}

// checkEnsureKinds reports external kinds without apply configurations.
func (l *loader) checkEnsureKinds(gvs []*model.GroupVersion) {
	for _, gv := range gvs {
		for _, t := range gv.Types {
			if t.ApplyConfig == nil {
				why := ""
				if msg, ok := l.externalErr[l.applyPkgFor(t.Name)]; ok {
					why = " (go list says: " + strings.ReplaceAll(msg, "\n", " ") + ")"
				} else if d, ok := l.discovered[t.Name.Pkg]; ok && len(d.rejected) > 0 {
					why = " (" + strings.Join(d.rejected, "; ") + ")"
				}
				generate := "pass --output-dir, and ssagen generates the builders of what the kind reaches in this tree"
				if !l.cfg.Layout {
					generate = fmt.Sprintf("name %[1]s as an input package as well (ssagen generate --ensure-kinds %[1]s.%[2]s %[1]s) to generate its builders in this tree", t.Name.Pkg, t.Name.Name)
				}
				l.errs.Add(noPos, fmt.Sprintf("any of: %[2]s; "+
					"pass --external-applyconfigurations=%[1]s:<import path> if its module ships apply configurations where ssagen did not look; "+
					"or require a version of its module that ships them", t.Name.Pkg, generate),
					"--ensure-kinds: %s has no apply configuration: its module ships none that ssagen found and could use%s", t.Name, why)
			}
		}
	}
}
