package check

import (
	"github.com/ssagen/ssagen/internal/contract"
	"go/ast"
)

func runStatusUpdate(p *pass) {
	p.ins.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		call := n.(*ast.CallExpr)
		if !push || p.inTest(call) || len(call.Args) < 2 {
			return true
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Update" || !p.isStatusWriter(sel.X) {
			return true
		}
		// Inside a RetryOnConflict around Get + Update, the retry-on-conflict
		// finding covers this write: one finding per site.
		for _, n := range stack {
			if rc, ok := n.(*ast.CallExpr); ok && p.retryReported(rc) && containsNode(rc.Args[1], call) {
				return true
			}
		}
		// An object built here is not from the cache; one read here, handed
		// in, or copied from either (a reconciler's helper) almost always is.
		v := p.objectVar(call.Args[1])
		body := funcBody(stack)
		// &Pod{} filled by a Get is read, not built.
		if v == nil || body == nil || (builtFromLiteral(p, body, v) && !p.readInFunc(body, v, call.Pos())) {
			return true
		}
		p.Report(diag(call.Pos(), contract.CategoryStatusUpdate,
			"Status().Update() of an object read from the cache: when the cache lags, the write 409s and the reconcile is retried",
			helper(p.kindOf(call.Args[1]), "Status")+": a status apply carries no resourceVersion and is skipped when nothing changed"))
		return true
	})
}
