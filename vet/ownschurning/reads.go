package ownschurning

import (
	"go/ast"
	"go/types"
	"slices"
	"sort"

	"github.com/ssagen/ssagen/vet/internal/check"
	"github.com/ssagen/ssagen/vet/internal/flow"
)

// What a reconciler reads of the objects of a kind: the fields the
// owns-churning fix lists in its predicate (fix.go).

// readsOf lists the fields of kind that the reconciler reads, as Go
// selector paths (Status.Phase, Labels), sorted, the owner references
// always among them, a slice only ranged over by the fields read of its
// items; or why they cannot be listed. The reconciler is the
// functions of the package that recv's Reconcile reaches (all of the
// package's when recv has none); a read is a field selected from an
// object of the kind, a getter of its metadata (GetLabels), or a
// function known to read some of it (metav1.GetControllerOf). An object
// of the kind, or a list of them, handed to a function whose reads vet
// cannot see, or read whole, declines.
func (p pass) readsOf(kind *types.Named, recv types.Type) ([]flow.FieldRead, string) {
	r := flow.NewReads(p.FlowContext(), kind)
	for _, fd := range p.reconcilerFuncs(recv) {
		r.Inspect(fd.Body)
	}
	reads, why := r.Fields()
	if why != "" {
		return nil, why
	}
	// The owner references, which the Owns() handler maps by.
	if i := sort.Search(len(reads), func(i int) bool { return reads[i].Path >= "OwnerReferences" }); i == len(reads) || reads[i].Path != "OwnerReferences" {
		reads = slices.Insert(reads, i, flow.FieldRead{Path: "OwnerReferences"})
	}
	return reads, ""
}

// reconcilerFuncs are the declarations of the package (outside tests)
// that recv's Reconcile method reaches through calls and function values
// in the package; all of them when recv has no Reconcile.
func (p pass) reconcilerFuncs(recv types.Type) []*ast.FuncDecl {
	decls := map[*types.Func]*ast.FuncDecl{}
	byName := map[string][]*types.Func{} // methods by name: calls through interfaces
	var roots []*types.Func
	all := p.SourceFuncs()
	for _, fd := range all {
		fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func)
		if !ok {
			continue
		}
		decls[fn] = fd
		if fd.Recv != nil {
			byName[fn.Name()] = append(byName[fn.Name()], fn)
		}
		if sig := fn.Type().(*types.Signature); recv != nil && fn.Name() == "Reconcile" && sig.Recv() != nil && types.Identical(check.Deref(sig.Recv().Type()), recv) {
			roots = append(roots, fn)
		}
	}
	if len(roots) == 0 {
		return all
	}
	seen := map[*types.Func]bool{}
	var out []*ast.FuncDecl
	for len(roots) > 0 {
		fn := roots[len(roots)-1]
		roots = roots[:len(roots)-1]
		if seen[fn] || decls[fn] == nil {
			continue
		}
		seen[fn] = true
		out = append(out, decls[fn])
		ast.Inspect(decls[fn].Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if used, ok := p.TypesInfo.Uses[id].(*types.Func); ok {
					used = used.Origin()
					if decls[used] != nil {
						roots = append(roots, used)
					} else if recv := used.Type().(*types.Signature).Recv(); recv != nil && types.IsInterface(recv.Type()) {
						roots = append(roots, byName[used.Name()]...) // any of the package's methods may implement it
					}
				}
			}
			return true
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pos() < out[j].Pos() })
	return out
}
