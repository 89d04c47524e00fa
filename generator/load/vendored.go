package load

import (
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/ssagen/ssagen/generator/diag"
	"github.com/ssagen/ssagen/generator/model"
)

// A package of --ensure-kinds whose module ships no apply configurations
// for the kinds asked gets its builders generated in the run's tree, as if
// the user had named it as an input — but only for what those kinds reach
// (not the package's other kinds), through every package of its module
// they use. These packages are "vendored": their markers and CRD design
// are their authors', not the user's, so what ssagen would refuse or warn
// about in the user's own API is not reported there (see validate and
// vendoredWarnings). Types of other modules they reach are resolved as any
// external type is; those — and those the user's own API reaches — whose
// modules ship no apply configurations this module can build are vendored
// too, a run later (vendorable, Load's rounds).

// vendoredPkgs returns the packages of --ensure-kinds to vendor: loaded,
// not an input already, not mapped by --external-applyconfigurations, not
// k8s.io/api (client-go ships those), and whose module has no candidate
// folder (candidateDirs) declaring <Kind>ApplyConfiguration for every kind
// asked, or that force names (Load found their module's unusable). In
// the controller-gen layout (no --output-dir) the run has no
// single tree to put them in, so none is vendored there and
// checkEnsureKinds reports them.
func (l *loader) vendoredPkgs(all []*packages.Package, byPkg map[string][]string, force map[string]string) map[string]bool {
	out := map[string]bool{}
	if l.cfg.Layout {
		return out
	}
	for p := range force {
		out[p] = true
	}
	mapped := map[string]bool{}
	for _, m := range l.cfg.External {
		mapped[m.TypePkg] = true
	}
	for _, p := range all {
		kinds, ok := byPkg[p.PkgPath]
		if !ok || len(p.Errors) > 0 || p.Module == nil || p.Module.Dir == "" || p.Module.Path == "k8s.io/api" ||
			mapped[p.PkgPath] || matchesAny(l.cfg.Patterns, p.PkgPath) {
			continue
		}
		if !l.shipsApplyConfigurations(p.Module.Dir, p.PkgPath, kinds) {
			out[p.PkgPath] = true
		}
	}
	return out
}

// shipsApplyConfigurations reports whether a folder of the module may hold
// the apply configurations of the kinds: one declaring each
// <Kind>ApplyConfiguration. discover checks the fit field by field later.
func (l *loader) shipsApplyConfigurations(modDir, pkg string, kinds []string) bool {
	for _, rel := range candidateDirs(modDir, model.OutSubdir(pkg)) {
		decls := l.structDecls(filepath.Join(modDir, filepath.FromSlash(rel)))
		if !slices.ContainsFunc(kinds, func(k string) bool { return decls[k+"ApplyConfiguration"] == nil }) {
			return true
		}
	}
	return false
}

// reachedInModule lists the other packages of a vendored package's module
// that the kinds asked reach through their fields: their types get
// builders too, so they are loaded as inputs.
func reachedInModule(all []*packages.Package, vendored map[string]bool, byPkg map[string][]string) []string {
	loaded := map[string]bool{}
	for _, p := range all {
		loaded[p.PkgPath] = true
	}
	found := map[string]bool{}
	w := moduleWalk{seen: map[types.Type]bool{}, visit: func(pkg string) {
		if !loaded[pkg] {
			found[pkg] = true
		}
	}}
	for _, p := range all {
		if !vendored[p.PkgPath] || p.Types == nil {
			continue
		}
		for _, k := range byPkg[p.PkgPath] {
			if tn, ok := p.Types.Scope().Lookup(k).(*types.TypeName); ok {
				w.walk(tn.Type(), p.Module.Path)
			}
		}
	}
	return sortedKeys(found)
}

// isVendored reports whether a position lies in a vendored package.
func (l *loader) isVendored(pos token.Position) bool {
	for _, in := range l.inputs {
		if in.vendored && in.gv.Dir != "" && filepath.Dir(pos.Filename) == in.gv.Dir {
			return true
		}
	}
	return false
}

// vendoredWarnings splits the warnings about vendored packages (their
// authors' markers, which the user cannot change) from the user's own.
func (l *loader) vendoredWarnings() (own, vendored []diag.Error) {
	for _, w := range l.warns.Sorted() {
		if l.isVendored(w.Pos) {
			vendored = append(vendored, w)
		} else {
			own = append(own, w)
		}
	}
	return own, vendored
}

// vendorWhy is why a package is vendored, and of a package whose other
// types keep the apply configurations their module ships (meta/v1's, in
// client-go), the types to vendor.
type vendorWhy struct {
	why   string
	types map[string]bool
}

// vendorable lists, once the apply configurations of other modules are
// resolved, the packages still to vendor: those of --ensure-kinds whose
// module's apply configurations were found but do not build here or do
// not fit, and those of the struct types generated types reach — the
// user's own or vendored — that have none: a dependency the user cannot
// change gets builders in the tree rather than an error. Not in the controller-gen layout, not a package a flag maps
// or k8s.io/api (client-go's: requiring client-go is the fix), nor one
// vendored already: those stay errors, reported as before.
func (l *loader) vendorable(external []*model.GroupVersion, force map[string]string) map[string]vendorWhy {
	if l.cfg.Layout {
		return nil
	}
	mapped := map[string]bool{}
	for _, m := range l.cfg.External {
		mapped[m.TypePkg] = true
	}
	more := map[string]vendorWhy{}
	consider := func(t *model.Type) {
		pkg := t.Name.Pkg
		if t.ApplyConfig != nil || len(t.Fields) == 0 || t.GV != nil || l.keepsRaw(t.Name) || mapped[pkg] || strings.HasPrefix(pkg, "k8s.io/api/") {
			return
		}
		if pkg == metaV1Pkg {
			// client-go ships meta/v1's apply configurations but for a
			// few types (GroupVersionKind, ListMeta): those alone are
			// vendored, the rest stays client-go's (one vendored already
			// has its GV).
			w := more[pkg]
			if w.types == nil {
				w = vendorWhy{why: "client-go ships no apply configuration for it", types: map[string]bool{}}
			}
			w.types[t.Name.Name] = true
			more[pkg] = w
			return
		}
		if _, ok := force[pkg]; ok {
			return
		}
		if mod := l.modules[pkg]; mod == nil || mod.Dir == "" {
			return
		}
		why := "its module ships none"
		if d := l.discovered[pkg]; len(d.rejected) > 0 {
			why = strings.Join(d.rejected, "; ")
		}
		more[pkg] = vendorWhy{why: why}
	}
	for _, gv := range external {
		for _, t := range gv.Types {
			consider(t)
		}
	}
	for _, in := range l.sortedInputs() {
		for _, t := range in.gv.Types {
			for _, f := range t.Fields {
				eachNamed(f.Type, map[*model.Type]bool{}, func(n *model.Type) {
					if n.Shape == model.ShapeStruct {
						consider(n)
					}
				})
			}
		}
	}
	return more
}

// eachNamed calls fn with every named type a reference holds, through
// pointers, slices, maps and named collections.
func eachNamed(r *model.TypeRef, seen map[*model.Type]bool, fn func(*model.Type)) {
	switch r.Kind {
	case model.RefPointer, model.RefSlice, model.RefMap:
		eachNamed(r.Elem, seen, fn)
	case model.RefNamed:
		t := r.Named
		if seen[t] {
			return
		}
		seen[t] = true
		fn(t)
		if (t.Shape == model.ShapeSlice || t.Shape == model.ShapeMap) && t.Elem != nil {
			eachNamed(t.Elem, seen, fn)
		}
	}
}
