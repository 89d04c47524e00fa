package vet

import (
	"go/types"
	"sort"
	"strings"

	"github.com/ssagen/ssagen/internal/contract"
)

// helperFunc finds Ensure<Kind> for the object type obj among the
// package's imports, transitively: a function in a package ending in
// /ensure whose fourth parameter is *<Kind>ApplyConfiguration and whose
// first result is obj's type.
func (p *pass) helperFunc(obj types.Type) *types.Func {
	ptr, ok := obj.(*types.Pointer)
	if !ok {
		return nil
	}
	named, ok := types.Unalias(ptr.Elem()).(*types.Named)
	if !ok {
		return nil
	}
	kind := named.Obj().Name()
	seen := map[*types.Package]bool{}
	var found []*types.Func
	var walk func(pkg *types.Package)
	walk = func(pkg *types.Package) {
		if seen[pkg] {
			return
		}
		seen[pkg] = true
		if contract.IsHelperPkg(pkg.Path()) {
			if fn, ok := pkg.Scope().Lookup(contract.Ensure(kind)).(*types.Func); ok {
				sig := fn.Type().(*types.Signature)
				if sig.Params().Len() > contract.ParamDesired && sig.Results().Len() == 3 && types.Identical(sig.Results().At(0).Type(), obj) && acNamed(sig.Params().At(contract.ParamDesired).Type()) != nil {
					found = append(found, fn)
				}
			}
		}
		for _, imp := range pkg.Imports() {
			walk(imp)
		}
	}
	walk(p.Pkg)
	if len(found) == 0 {
		return nil
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Pkg().Path() < found[j].Pkg().Path() })
	return found[0]
}

// acNamed returns the named apply configuration type t points to.
func acNamed(t types.Type) *types.Named {
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
