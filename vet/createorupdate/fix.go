package createorupdate

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/check"
	"github.com/ssagen/ssagen/vet/internal/flow"
)

// The fix is one rule, from what the mutate function does rather than
// how it is spelled (flow.Fresh): ensure.CreateOrUpdate runs it on a
// fresh object and applies what it set, which is the write the code
// meant whenever the function reads nothing of the live object it would
// need to keep.

// fix rewrites a CreateOrUpdate or CreateOrPatch call as
// ensure.CreateOrUpdate or ensure.CreateOrPatch, or says why not.
func (p pass) fix(call *ast.CallExpr, name string, stack []ast.Node) ([]analysis.SuggestedFix, string) {
	if len(call.Args) != 4 {
		return nil, "the call does not pass CreateOrUpdate's four arguments"
	}
	v := p.ObjectVar(call.Args[2])
	if v == nil {
		return nil, fmt.Sprintf("the object (%s) is not a variable the mutate function can be followed on", types.ExprString(call.Args[2]))
	}
	body := p.mutateBody(call.Args[3])
	if body == nil {
		return nil, fmt.Sprintf("the mutate function's code (%s) is not in this package", types.ExprString(call.Args[3]))
	}
	if why := flow.NewFresh(p.freshContext(), v, check.FuncBody(stack), call.End()).Why(body.List); why != "" {
		return nil, why
	}
	var file *ast.File
	for _, n := range stack {
		if f, ok := n.(*ast.File); ok {
			file = f
		}
	}
	if file == nil {
		return nil, "the call is not in a file of the package"
	}
	f := p.NewFixer(file)
	var callee string
	if t := p.TypesInfo.TypeOf(call.Args[2]); name == contract.CreateOrUpdateFunc && t != nil {
		// The kind's own, with its merge schema, where ssagen generated it.
		if h := p.KindHelper(t, contract.CreateOrUpdate); h != nil {
			callee = f.Qualify(h.Pkg(), "") + "." + h.Name()
		}
	}
	if callee == "" {
		callee = f.Qualify(types.NewPackage(contract.RuntimePkg, "ensure"), "") + "." + name
	}
	edits := []analysis.TextEdit{{Pos: call.Fun.Pos(), End: call.Fun.End(), NewText: []byte(callee)}}
	edits = append(edits, f.ImportEdits([]ast.Node{call.Fun}, callee)...)
	return []analysis.SuggestedFix{{
		Message:   "Use ensure." + name + ": the mutate function runs on a fresh object and what it sets is applied; no resourceVersion, no request when unchanged",
		TextEdits: edits,
	}}, ""
}

// mutateBody is the body of the mutate function e: a literal, or a local
// variable one is assigned to.
func (p pass) mutateBody(e ast.Expr) *ast.BlockStmt {
	e = ast.Unparen(e)
	if id, ok := e.(*ast.Ident); ok {
		if def := p.Definition(id); def != nil {
			e = ast.Unparen(def)
		}
	}
	if lit, ok := e.(*ast.FuncLit); ok {
		return lit.Body
	}
	return nil
}

// freshContext is what flow.Fresh needs of the pass.
func (p pass) freshContext() *flow.Context {
	return &flow.Context{Info: p.TypesInfo, Fset: p.Fset, Pkg: p.Pkg, Decl: p.FuncDecl, Facts: p.Flow.Of}
}
