package check

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"

	"github.com/ssagen/ssagen/internal/contract"
)

func runRetryOnConflict(p *pass) {
	var writers []statusWriter
	listed := false
	statusWriters := func() []statusWriter {
		if !listed {
			writers, listed = p.statusWriters(), true
		}
		return writers
	}
	p.ins.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		call := n.(*ast.CallExpr)
		if !push || p.inTest(call) || !p.retryReported(call) {
			return true
		}
		kind := ""
		for _, c := range calls(call.Args[1]) {
			if p.clientMethod(c) == "Update" && len(c.Args) > 1 {
				kind = p.kindOf(c.Args[1])
			}
		}
		d := diag(call.Pos(), contract.CategoryRetryOnConflict,
			"RetryOnConflict around Get + Update: every conflict costs another read and write, and a stale cache makes them likely",
			helper(kind, "")+": server-side apply does not conflict on resourceVersion")
		var why string
		d.SuggestedFixes, why = p.retryFix(call, stack, statusWriters)
		p.Report(withWhy(d, why))
		return true
	})
}

const whyRetryWrites = "the retried function writes more than once, or through something other than the client's Update or Status().Update: rewrite it by hand with the helpers (docs/vet.md)"

// retryFix rewrites the one write of the retried function — read, change,
// write — as an apply, which has no resourceVersion to conflict on: a
// Status().Update becomes the kind's status helper of the converted
// status (as status-update's fix), an Update of the object it read
// Apply<Kind>Changes of what the function changed since the read (as
// update-cached-churning's). The retry stays; it no longer meets a
// conflict to retry.
func (p *pass) retryFix(call *ast.CallExpr, stack []ast.Node, statusWriters func() []statusWriter) ([]analysis.SuggestedFix, string) {
	fn, ok := ast.Unparen(call.Args[1]).(*ast.FuncLit)
	if !ok {
		return nil, "the retried function is not written inline: rewrite its write with the helpers by hand (docs/vet.md)"
	}
	var write *ast.CallExpr
	count := 0
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if _, lit := n.(*ast.FuncLit); lit {
			return false
		}
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		switch p.clientMethod(c) {
		case "Update", "Patch", "Create", "Delete":
			count++
			write = c
		}
		return true
	})
	if count != 1 || p.clientMethod(write) != "Update" || len(write.Args) < 2 {
		return nil, whyRetryWrites
	}
	inner := p.stackTo(stack, write)
	if inner == nil {
		return nil, whyRetryWrites
	}
	sel, ok := ast.Unparen(write.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil, whyRetryWrites
	}
	if p.isStatusWriter(sel.X) {
		return p.statusUpdateFix(write, sel, inner, statusWriters)
	}
	v := p.objectVar(write.Args[1])
	if v == nil {
		return nil, whyRetryWrites
	}
	return p.updateCachedFix(write, inner, fn.Body, v)
}

// stackTo is the path from the file of stack down to n (inside the last
// node of stack), root first, as the inspector's WithStack gives it.
func (p *pass) stackTo(stack []ast.Node, n ast.Node) []ast.Node {
	file := fileOf(stack)
	if file == nil {
		return nil
	}
	path, _ := astutil.PathEnclosingInterval(file, n.Pos(), n.End())
	if len(path) == 0 || path[0] != n {
		return nil
	}
	out := make([]ast.Node, len(path))
	for i, x := range path {
		out[len(path)-1-i] = x
	}
	return out
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
