package load

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/ssagen/ssagen/generator/model"
)

// ExternalMapping says where the apply configurations of an external type
// (or of every type of a package, when Type is empty) live.
type ExternalMapping struct {
	TypePkg, Type, ApplyPkg string
}

// ParseExternal parses --external-applyconfigurations: a comma-separated
// list of <type package>.<Type>:<apply configuration package>, as in
// applyconfiguration-gen, or <type package>:<apply configuration package>
// for every type of a package.
func ParseExternal(value string) ([]ExternalMapping, error) {
	var out []ExternalMapping
	for _, item := range strings.Split(value, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		from, to, ok := strings.Cut(item, ":")
		if !ok || from == "" || to == "" {
			return nil, fmt.Errorf("--external-applyconfigurations: %q is not <type package>.<Type>:<apply configuration package> or <type package>:<apply configuration package>", item)
		}
		m := ExternalMapping{TypePkg: from, ApplyPkg: to}
		// A type name follows the last dot after the last slash, and is capitalised.
		slash := strings.LastIndex(from, "/")
		if dot := strings.LastIndex(from, "."); dot > slash && dot+1 < len(from) && from[dot+1] >= 'A' && from[dot+1] <= 'Z' {
			m.TypePkg, m.Type = from[:dot], from[dot+1:]
		}
		if m.TypePkg == "" {
			return nil, fmt.Errorf("--external-applyconfigurations: %q names no package", item)
		}
		out = append(out, m)
	}
	return out, nil
}

// applyPkgFor says where the apply configuration of an external type should
// be: an explicit mapping first, then client-go's for k8s.io/api and meta/v1.
func (l *loader) applyPkgFor(n model.TypeName) string {
	for _, m := range l.cfg.External {
		if m.TypePkg == n.Pkg && m.Type == n.Name {
			return m.ApplyPkg
		}
	}
	for _, m := range l.cfg.External {
		if m.TypePkg == n.Pkg && m.Type == "" {
			return m.ApplyPkg
		}
	}
	if d, ok := l.discovered[n.Pkg]; ok && d.applyPkg != "" {
		return d.applyPkg
	}
	if l.cfg.CompatApplyconfigurationGen && !l.isEnsureKindPkg(n.Pkg) {
		// applyconfiguration-gen maps only its defaults; every other type
		// of another module stays the Go struct unless a flag maps it.
		if n.Pkg == metaV1Pkg && compatDefaults[n.Name] {
			return clientGoApplyPkg + "/meta/v1"
		}
		return ""
	}
	return clientGoApplyPkgOf(n.Pkg)
}

// clientGoApplyPkgOf is the package of client-go's apply configurations
// of the types of pkg (apimachinery's meta/v1, a package of k8s.io/api),
// or "".
func clientGoApplyPkgOf(pkg string) string {
	if pkg == metaV1Pkg {
		return clientGoApplyPkg + "/meta/v1"
	}
	if rest, ok := strings.CutPrefix(pkg, "k8s.io/api/"); ok {
		return clientGoApplyPkg + "/" + rest
	}
	return ""
}

// discoverExternal looks, for each package of external struct types that
// no flag maps and that is not k8s.io/api or meta/v1, for the apply
// configurations its own module ships (discover), and returns them (apply
// configuration package → type package) for resolveExternal to load. Not
// with --compat=applyconfiguration-gen, whose surface keeps them raw.
func (l *loader) discoverExternal() map[string]string {
	found := map[string]string{}
	if l.cfg.CompatApplyconfigurationGen {
		return found
	}
	byPkg := map[string][]*model.Type{}
	for _, t := range l.external {
		if len(t.Fields) == 0 || l.applyPkgFor(t.Name) != "" {
			continue
		}
		byPkg[t.Name.Pkg] = append(byPkg[t.Name.Pkg], t)
	}
	pkgs := make([]string, 0, len(byPkg))
	for p := range byPkg {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		ts := byPkg[p]
		sort.Slice(ts, func(i, j int) bool { return ts[i].Name.Name < ts[j].Name.Name })
		if d := l.discover(p, ts); d.applyPkg != "" {
			found[d.applyPkg] = p
		}
	}
	return found
}

// compatDefaults are the meta/v1 types applyconfiguration-gen maps to
// client-go's apply configurations without being told
// (k8s.io/code-generator/cmd/applyconfiguration-gen/args.New).
var compatDefaults = map[string]bool{
	"Condition": true, "DeleteOptions": true, "LabelSelector": true, "LabelSelectorRequirement": true,
	"ManagedFieldsEntry": true, "ObjectMeta": true, "OwnerReference": true, "TypeMeta": true,
}

// isEnsureKindPkg reports whether pkg holds a kind named by --ensure-kinds:
// its helpers need the module's own apply configurations in every mode.
func (l *loader) isEnsureKindPkg(pkg string) bool {
	for _, k := range l.cfg.EnsureKinds {
		if i := strings.LastIndex(k, "."); i > 0 && k[:i] == pkg {
			return true
		}
	}
	return false
}

// keepsRaw reports whether a struct of another module without an apply
// configuration stays the Go struct in builders: applyconfiguration-gen's
// surface (--compat=applyconfiguration-gen) when nothing maps the type.
// Otherwise a missing apply configuration is an error.
func (l *loader) keepsRaw(n model.TypeName) bool {
	return l.cfg.CompatApplyconfigurationGen && l.applyPkgFor(n) == ""
}

// resolveExternal sets ApplyConfig on external struct types whose apply
// configuration really exists: the mapped package (a flag's, client-go's,
// or one discover found) must declare <Type>ApplyConfiguration, read from
// its syntax — the file applyconfiguration-gen names after the type
// first. The packages are loaded once per run (packageSet.applyConfigs),
// with their types only when discover found packages, which must build in
// this module.
func (l *loader) resolveExternal() {
	found := l.discoverExternal()
	want := map[string][]*model.Type{}
	for _, t := range l.external {
		if p := l.applyPkgFor(t.Name); p != "" {
			want[p] = append(want[p], t)
		}
	}
	if len(want) == 0 {
		return
	}
	paths := make([]string, 0, len(want))
	for p := range want {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	// A module's apply configurations may not build against this
	// module's k8s.io versions (an older release on structured-merge-diff
	// v4): with packages discover found, their types are loaded to say so
	// here, not in a broken build.
	loaded, err := l.set.applyConfigs(paths, len(found) > 0)
	if err != nil {
		for _, p := range paths {
			l.externalErr[p] = err.Error() // reported per field and per kind with this cause
		}
		return
	}
	pkgs := make([]*packages.Package, 0, len(loaded))
	for _, p := range paths {
		if pkg, ok := loaded[p]; ok {
			pkgs = append(pkgs, pkg)
		}
	}
	for _, p := range pkgs {
		if typePkg, ok := found[p.PkgPath]; ok && !l.accept(typePkg, p) {
			continue
		}
		if len(p.Errors) > 0 {
			l.externalErr[p.PkgPath] = p.Errors[0].Msg
			continue
		}
		for _, t := range want[p.PkgPath] {
			if l.declaresStruct(p.GoFiles, t.Name.Name+"ApplyConfiguration") {
				t.ApplyConfig = &model.TypeName{Pkg: p.PkgPath, Name: t.Name.Name + "ApplyConfiguration"}
			}
		}
	}
}

// accept takes or refuses the apply configurations discover found for
// typePkg, now that they are loaded: they must build in this module.
func (l *loader) accept(typePkg string, p *packages.Package) bool {
	d := l.discovered[typePkg]
	mod := l.modules[typePkg]
	if len(p.Errors) > 0 || p.IllTyped {
		// IllTyped without errors: a package it imports does not build
		// (gateway-api releases on structured-merge-diff v4 under k8s.io
		// v0.34), which go/packages reports on that package only.
		why := "a package it imports does not build (go build " + p.PkgPath + " says which)"
		if len(p.Errors) > 0 {
			why = strings.ReplaceAll(p.Errors[0].Error(), "\n", " ")
		}
		d.applyPkg = ""
		d.rejected = append(d.rejected, fmt.Sprintf("%s (module %s@%s) fits but does not build in this module: %s; use a release of %s built for your k8s.io version",
			p.PkgPath, mod.Path, mod.Version, why, mod.Path))
		l.discovered[typePkg] = d
		return false
	}
	if l.cfg.Log != nil {
		fmt.Fprintf(l.cfg.Log, "mapped %s to %s, found in module %s@%s\n", typePkg, p.PkgPath, mod.Path, mod.Version)
	}
	return true
}

// declaresStruct reports whether the files declare a struct type of that
// name, parsing the file applyconfiguration-gen names after it first.
func (l *loader) declaresStruct(files []string, typeName string) bool {
	guess := strings.ToLower(strings.TrimSuffix(typeName, "ApplyConfiguration")) + ".go"
	ordered := make([]string, 0, len(files))
	for _, f := range files {
		if filepath.Base(f) == guess {
			ordered = append([]string{f}, ordered...)
		} else {
			ordered = append(ordered, f)
		}
	}
	for _, f := range ordered {
		if _, ok := l.structDeclsOf(f)[typeName]; ok {
			return true
		}
	}
	return false
}
