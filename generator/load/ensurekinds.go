package load

import (
	"go/token"
	"go/types"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/gobuffalo/flect"
	"golang.org/x/tools/go/packages"

	"github.com/ssagen/ssagen/generator/model"
)

// noPos is the position of errors about flags, not source.
var noPos token.Position

// loadEnsureKinds walks the kinds of other modules named by EnsureKinds
// (their schema joins the output tree's) and returns one external group
// version per package. Their apply configurations are resolved with the
// other external types; checkEnsureKinds reports those that have none.
func (l *loader) loadEnsureKinds() []*model.GroupVersion {
	if len(l.cfg.EnsureKinds) == 0 {
		return nil
	}
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
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedFiles,
		Dir: l.cfg.Dir, BuildFlags: l.cfg.BuildFlags, Fset: l.fset}, paths...)
	if err != nil {
		l.errs.Add(noPos, "check that the packages are dependencies of your module (go get)", "--ensure-kinds: %v", err)
		return nil
	}
	var out []*model.GroupVersion
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			l.errs.Add(noPos, "check that the package is a dependency of your module (go get)", "--ensure-kinds: %s: %s", p.PkgPath, p.Errors[0].Msg)
			continue
		}
		gv := &model.GroupVersion{
			PkgPath: p.PkgPath, PkgName: p.Name, External: true,
			OutSubdir:  model.OutSubdir(p.PkgPath),
			OutPkgPath: path.Join(l.cfg.OutputPkg, model.OutSubdir(p.PkgPath)),
			Version:    path.Base(p.PkgPath),
			Group:      groupOfFiles(p.GoFiles, path.Base(path.Dir(p.PkgPath))),
		}
		names := byPkg[p.PkgPath]
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
			root := &model.Root{Kind: name, Namespaced: true, Plural: flect.Pluralize(strings.ToLower(name))}
			file, decl, spec := l.declOf(obj)
			if spec != nil {
				lines := l.typeMarkerLines(file, decl, spec)
				root.Namespaced = !hasGenclient(lines, "nonNamespaced")
				hasStatus := false
				for _, f := range t.Fields {
					hasStatus = hasStatus || f.GoName == "Status"
				}
				if hasStatus && hasGenclient(lines, "") && !hasGenclient(lines, "noStatus") {
					root.Subresources = []string{"status"}
				}
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
				l.errs.Add(noPos, "pass --external-applyconfigurations for its package", "--ensure-kinds: %s has no apply configuration", t.Name)
			}
		}
	}
}

// groupOfFiles reads +groupName from the package comments of a package's
// files (doc.go in k8s.io/api), falling back to the folder name.
func groupOfFiles(files []string, fallback string) string {
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		head := string(b)
		if i := strings.Index(head, "\npackage "); i >= 0 {
			head = head[:i]
		}
		for _, line := range strings.Split(head, "\n") {
			if g, ok := strings.CutPrefix(strings.TrimSpace(line), "// +groupName="); ok {
				return strings.TrimSpace(g)
			}
		}
	}
	return fallback
}
