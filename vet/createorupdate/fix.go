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
	why, status := p.mutateWhy(call, v, stack)
	if why != "" {
		return nil, why
	}
	kindName := name
	if !status {
		// CreateOrPatch of a function that sets no status is CreateOrUpdate.
		kindName = contract.CreateOrUpdateFunc
	}
	file := check.FileOf(stack)
	if file == nil {
		return nil, "the call is not in a file of the package"
	}
	f := p.NewFixer(file)
	var callee string
	if t := p.TypesInfo.TypeOf(call.Args[2]); kindName == contract.CreateOrUpdateFunc && t != nil {
		// The kind's own, with its merge schema, where ssagen generated it.
		if h, _ := p.KindHelper(t, contract.CreateOrUpdate); h != nil {
			callee = f.Qualify(h.Pkg(), "") + "." + h.Name()
		}
	}
	if callee == "" {
		callee = f.Qualify(types.NewPackage(contract.RuntimePkg, "ensure"), "") + "." + kindName
	}
	return f.Fix("Use ensure."+kindName+": the mutate function runs on a fresh object and what it sets is applied; no resourceVersion, no request when unchanged",
		[]analysis.TextEdit{{Pos: call.Fun.Pos(), End: call.Fun.End(), NewText: []byte(callee)}}, []ast.Node{call.Fun}, callee)
}

// mutateWhy says why the mutate function's effect on a fresh object is
// not the write the code meant, "" when it is, and whether it sets the
// status: a literal, a variable holding one, or the literals a function
// of the package returns for the object (r.mutate(obj, owner), with a
// type switch over the object).
func (p pass) mutateWhy(call *ast.CallExpr, v *types.Var, stack []ast.Node) (why string, status bool) {
	ctx, body := p.FlowContext(), check.FuncBody(stack)
	if lit := p.mutateBody(call.Args[3]); lit != nil {
		fc := flow.NewFresh(ctx, v, body, call.End())
		return fc.Why(lit.List), fc.Wrote("Status")
	}
	mk, ok := ast.Unparen(call.Args[3]).(*ast.CallExpr)
	if !ok {
		return fmt.Sprintf("the mutate function's code (%s) is not in this package", types.ExprString(call.Args[3])), false
	}
	fn := p.Callee(mk)
	var fd *ast.FuncDecl
	if fn != nil && fn.Pkg() == p.Pkg {
		fd = p.FuncDecl(fn)
	}
	if fd == nil {
		return fmt.Sprintf("the mutate function's code (%s) is not in this package", types.ExprString(call.Args[3])), false
	}
	// The parameter the object is handed in as.
	var param *types.Var
	for i, pv := range flow.ParamVars(p.TypesInfo, fd) {
		if i < len(mk.Args) && p.ObjectVar(mk.Args[i]) == v {
			param = pv
		}
	}
	lits := flow.Returned(p.TypesInfo, fd, flow.Held(p.TypesInfo, body, v))
	if param == nil || len(lits) == 0 {
		return fmt.Sprintf("the mutate function %s makes does not return a function literal of the object it is handed", types.ExprString(mk.Fun)), false
	}
	for _, lit := range lits {
		fc := flow.NewFresh(ctx, param, body, call.End())
		if why := fc.Why(typeSwitchRoots(fd, lit, fc)); why != "" {
			return why, false
		}
		status = status || fc.Wrote("Status")
	}
	return "", status
}

// typeSwitchRoots binds the variable of the type switch lit is in (switch
// o := obj.(type)) to the object, and returns lit's statements.
func typeSwitchRoots(fd *ast.FuncDecl, lit *ast.FuncLit, fc *flow.Fresh) []ast.Stmt {
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSwitchStmt)
		if ok && ts.Pos() < lit.Pos() && lit.End() < ts.End() {
			fc.BindSwitch(ts, lit)
		}
		return true
	})
	return lit.Body.List
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
