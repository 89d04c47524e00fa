// Package statusupdate defines an analyzer of ssagen vet that reports Status().Update() of an object read in the same function
// from the cache: a stale copy 409s, and the Update rewrites every status
// field another writer set (agent-sandbox's status 409s, seed 002). The
// fix is Ensure<Kind>Status with the conditions built by
// ensure.Condition.
package statusupdate

import (
	"go/ast"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/check"
	"github.com/ssagen/ssagen/vet/retryonconflict"
)

// Doc is the analyzer's one-line description.
const Doc = "Status().Update() of an object read from the (possibly stale) cache"

// Analyzer is the analyzer (check.Analyzer).
var Analyzer = check.Analyzer("statusupdate", Doc, run, retryonconflict.Analyzer)

// pass is the analyzer's pass; its methods are the analyzer's matchers.
type pass struct{ *check.Pass }

// run reports each Status().Update of an object that was not built in
// its function, except the writes a retry-on-conflict finding covers.
func run(cp *check.Pass) {
	p := pass{cp}
	retries := p.ResultOfAnalyzer(retryonconflict.Analyzer)
	statusWriters := p.LazyStatusWriters()
	p.SourceCalls(func(call *ast.CallExpr, stack []ast.Node) {
		if len(call.Args) < 2 {
			return
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Update" || !p.IsStatusWriter(sel.X) {
			return
		}
		// Inside a RetryOnConflict around Get + Update, the retry-on-conflict
		// finding covers this write: one finding per site.
		if retries.Covers(call) {
			return
		}
		// An object built here is not from the cache; one read here, handed
		// in, or copied from either (a reconciler's helper) almost always is.
		v := p.ObjectVar(call.Args[1])
		body := check.FuncBody(stack)
		// &Pod{} filled by a Get is read, not built.
		if v == nil || body == nil || (check.BuiltFromLiteral(p.Pass, body, v) && !p.ReadInFunc(body, v, call.Pos())) {
			return
		}
		t := check.Ensures(p.KindOf(call.Args[1]), true)
		d := check.NewFinding(call.Pos(), contract.CategoryStatusUpdate,
			"Status().Update() of an object read from the cache: when the cache lags, the write 409s and the reconcile is retried",
			check.HelperFix(t)+": a status apply carries no resourceVersion and is skipped when nothing changed", t)
		p.ReportFinding(d.Fixed(p.StatusUpdateFix(call, sel, stack, statusWriters)))
	})
}
