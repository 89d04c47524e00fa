package check

import (
	"fmt"
	"go/types"
	"sort"
	"strings"

	"github.com/ssagen/ssagen/internal/contract"
)

// HelperFunc finds Ensure<Kind> for the object type obj among the
// package's imports, transitively: a function in a package ending in
// /ensure whose fourth parameter is *<Kind>ApplyConfiguration and whose
// first result is obj's type.
func (p *Pass) HelperFunc(obj types.Type) *types.Func {
	ptr, ok := obj.(*types.Pointer)
	if !ok {
		return nil
	}
	named, ok := types.Unalias(ptr.Elem()).(*types.Named)
	if !ok {
		return nil
	}
	var found []*types.Func
	p.Imported("") // every package the package imports, transitively, in byPath
	for path, pkg := range p.byPath {
		if fn, ok := pkg.Scope().Lookup(contract.Ensure(named.Obj().Name())).(*types.Func); ok && contract.IsHelperPkg(path) {
			sig := fn.Type().(*types.Signature)
			if sig.Params().Len() > contract.ParamDesired && sig.Results().Len() == 3 && types.Identical(sig.Results().At(0).Type(), obj) && ACNamed(sig.Params().At(contract.ParamDesired).Type()) != nil {
				found = append(found, fn)
			}
		}
	}
	if len(found) == 0 {
		return p.moduleHelper(named)
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Pkg().Path() < found[j].Pkg().Path() })
	return found[0]
}

// KindHelper is the function name(kind) of the helper package that
// holds Ensure<Kind> for the object type obj (HelperFunc), or nil and
// why there is none.
func (p *Pass) KindHelper(obj types.Type, name func(kind string) string) (*types.Func, string) {
	ensure := p.HelperFunc(obj)
	if ensure == nil {
		return nil, p.NoHelperFor(obj)
	}
	kind := types.Unalias(obj.(*types.Pointer).Elem()).(*types.Named).Obj().Name()
	if fn, ok := ensure.Pkg().Scope().Lookup(name(kind)).(*types.Func); ok {
		return fn, ""
	}
	return nil, fmt.Sprintf("the helper package has no %s: the kind has none (a status without its subresource), or the helpers predate this ssagen: regenerate them (ssagen generate)", name(kind))
}

// ACNamed returns the named apply configuration type t points to.
func ACNamed(t types.Type) *types.Named {
	ptr, ok := t.(*types.Pointer)
	if !ok {
		return nil
	}
	n, ok := types.Unalias(ptr.Elem()).(*types.Named)
	if !ok || !strings.HasSuffix(n.Obj().Name(), "ApplyConfiguration") {
		return nil
	}
	return n
}

// local returns t as the package being analysed sees it. A helper found
// in the module (moduleHelper) was type-checked on its own, so its named
// types are other objects than the package's; they are looked up by path
// and name among the package's imports. nil when the package cannot see
// one of them.
func (p *Pass) local(t types.Type) types.Type {
	switch t := t.(type) {
	case *types.Basic:
		return t
	case *types.Pointer:
		if e := p.local(t.Elem()); e != nil {
			return types.NewPointer(e)
		}
	case *types.Slice:
		if e := p.local(t.Elem()); e != nil {
			return types.NewSlice(e)
		}
	case *types.Map:
		k, v := p.local(t.Key()), p.local(t.Elem())
		if k != nil && v != nil {
			return types.NewMap(k, v)
		}
	case *types.Alias:
		return p.local(types.Unalias(t))
	case *types.Named:
		obj := t.Obj()
		if t.TypeArgs().Len() > 0 {
			return nil
		}
		if obj.Pkg() == nil {
			if tn, ok := types.Universe.Lookup(obj.Name()).(*types.TypeName); ok {
				return tn.Type()
			}
			return nil
		}
		if pkg := p.Imported(obj.Pkg().Path()); pkg != nil {
			if tn, ok := pkg.Scope().Lookup(obj.Name()).(*types.TypeName); ok {
				return tn.Type()
			}
		}
	}
	return nil
}

// localOr is local(t), or t itself when the package cannot see it (then
// no comparison with the package's types succeeds: no fix).
func (p *Pass) localOr(t types.Type) types.Type {
	if l := p.local(t); l != nil {
		return l
	}
	return t
}

// Imported finds the package with import path among the package's
// imports, transitively (or the package itself).
func (p *Pass) Imported(path string) *types.Package {
	if p.byPath == nil {
		p.byPath = map[string]*types.Package{}
		var walk func(pkg *types.Package)
		walk = func(pkg *types.Package) {
			if _, ok := p.byPath[pkg.Path()]; ok {
				return
			}
			p.byPath[pkg.Path()] = pkg
			for _, imp := range pkg.Imports() {
				walk(imp)
			}
		}
		walk(p.Pkg)
	}
	return p.byPath[path]
}

// RuntimePkg is ssagen's runtime package: among the package's imports,
// or those of the helpers the driver found.
func (p *Pass) RuntimePkg() *types.Package {
	if rt := p.Imported(contract.RuntimePkg); rt != nil {
		return rt
	}
	if p.helpers == nil {
		return nil
	}
	for _, m := range p.helpers.modules {
		for _, h := range m.pkgs {
			if h.pkg == nil {
				continue
			}
			for _, imp := range h.pkg.Imports() {
				if imp.Path() == contract.RuntimePkg {
					return imp
				}
			}
		}
	}
	return nil
}
