// Package createorupdate defines an analyzer of ssagen vet that reports controllerutil.CreateOrUpdate and CreateOrPatch (and
// controller-runtime's root package's re-export).
//
// Both read the object from the cache, mutate it and write it back with
// its resourceVersion: concurrent reconciles of one owner race on it and
// 409 (network-services-operator's 3–4 minute stall, seed 001), and a
// field the API server defaults makes every call a write. The fix is
// Ensure<Kind> with the fields the controller owns; an inline mutate
// function that only sets fields has a suggested fix.
package createorupdate

import (
	"go/ast"
	"go/types"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/check"
)

// Doc is the analyzer's one-line description.
const Doc = "controllerutil.CreateOrUpdate / CreateOrPatch: optimistic locking on cached objects"

// Analyzer is the analyzer (check.Analyzer).
var Analyzer = check.Analyzer("createorupdate", Doc, run)

// pass is the analyzer's pass; its methods are the analyzer's matchers.
type pass struct{ *check.Pass }

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
