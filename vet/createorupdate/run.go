package createorupdate

import (
	"go/ast"
	"go/types"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/check"
)

// run reports each controllerutil.CreateOrUpdate or CreateOrPatch, with
// the fix where the mutate function can be rewritten exactly.
func run(cp *check.Pass) {
	p := pass{cp}
	p.SourceCalls(func(call *ast.CallExpr, stack []ast.Node) {
		name := p.createOrUpdateName(call)
		if name == "" {
			return
		}
		kind := ""
		if len(call.Args) > 2 {
			kind = p.KindOf(call.Args[2])
		}
		t := check.Ensures(kind, false)
		d := check.NewFinding(call.Pos(), contract.CategoryCreateOrUpdate,
			name+" reads the cached object, mutates it and writes it back with its resourceVersion: concurrent reconciles race into 409s and backoffs, and fields set earlier are never pruned",
			check.HelperFix(t)+": apply only the fields you own; no resourceVersion, no race, no request when nothing changed", t)
		p.ReportFinding(d.Fixed(p.fix(call, name, stack)))
	})
}

// createOrUpdateName is "CreateOrUpdate" or "CreateOrPatch" for a call of
// controllerutil's, or of the variable controller-runtime's root package
// re-exports it as (ctrl.CreateOrUpdate); "" otherwise.
func (p pass) createOrUpdateName(call *ast.CallExpr) string {
	if p.IsPkgFunc(call, check.ControllerutilPkg, "CreateOrUpdate", "CreateOrPatch") {
		return p.Callee(call).Name()
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if v, ok := p.TypesInfo.Uses[sel.Sel].(*types.Var); ok && v.Pkg() != nil && v.Pkg().Path() == check.ControllerRuntimePkg &&
		(v.Name() == "CreateOrUpdate" || v.Name() == "CreateOrPatch") {
		return v.Name()
	}
	return ""
}
