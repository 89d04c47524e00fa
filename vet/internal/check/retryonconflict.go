package check

import (
	"github.com/ssagen/ssagen/internal/contract"
	"go/ast"
	"go/token"
	"go/types"
)

func runRetryOnConflict(p *pass) {
	p.ins.Preorder([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node) {
		call := n.(*ast.CallExpr)
		if p.inTest(call) || !p.retryReported(call) {
			return
		}
		kind := ""
		for _, c := range calls(call.Args[1]) {
			if p.clientMethod(c) == "Update" && len(c.Args) > 1 {
				kind = p.kindOf(c.Args[1])
			}
		}
		p.Report(diag(call.Pos(), contract.CategoryRetryOnConflict,
			"RetryOnConflict around Get + Update: every conflict costs another read and write, and a stale cache makes them likely",
			helper(kind, "")+": server-side apply does not conflict on resourceVersion"))
	})
}

// retryReported: retry.RetryOnConflict whose function Gets and Updates.
func (p *pass) retryReported(call *ast.CallExpr) bool {
	if !p.isPkgFunc(call, retryPkg, "RetryOnConflict") || len(call.Args) < 2 {
		return false
	}
	hasGet, hasUpdate := false, false
	for _, c := range calls(call.Args[1]) {
		switch p.clientMethod(c) {
		case "Get":
			hasGet = true
		case "Update":
			hasUpdate = true
		}
	}
	return hasGet && hasUpdate
}

// isStatusWriter reports X.Status() (or X.SubResource("status")).
func (p *pass) isStatusWriter(e ast.Expr) bool {
	c, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if sel.Sel.Name == "Status" {
		return true
	}
	if sel.Sel.Name == "SubResource" && len(c.Args) == 1 {
		if lit, ok := c.Args[0].(*ast.BasicLit); ok && lit.Value == `"status"` {
			return true
		}
	}
	return false
}

// readInFunc reports a client Get into v earlier in body.
func (p *pass) readInFunc(body *ast.BlockStmt, v *types.Var, before token.Pos) bool {
	if body == nil || v == nil {
		return false
	}
	for _, c := range calls(body) {
		if c.Pos() < before && p.clientMethod(c) == "Get" && len(c.Args) > 2 && p.objectVar(c.Args[2]) == v {
			return true
		}
	}
	return false
}
