// Package retryonconflict defines an analyzer of ssagen vet that reports retry.RetryOnConflict around a Get and an Update: the
// conflicts are retried, each retry another read and write, instead of
// avoided. The fix is a server-side apply of the fields the controller
// owns (Ensure<Kind>, Ensure<Kind>Status), which carries no
// resourceVersion and cannot 409 on a stale read.
package retryonconflict

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/check"
	"github.com/ssagen/ssagen/vet/internal/flow"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
)

// Doc is the analyzer's one-line description.
const Doc = "retry.RetryOnConflict around Get + Update: conflicts retried instead of avoided"

// Analyzer is the analyzer (check.Analyzer).
var Analyzer = check.Analyzer("retryonconflict", Doc, run)

// pass is the analyzer's pass; its methods are the analyzer's matchers.
type pass struct{ *check.Pass }

// run reports each retry of conflicts around a Get and an Update, and
// covers the retried function, where statusupdate stays quiet.
func run(cp *check.Pass) {
	p := pass{cp}
	statusWriters := p.LazyStatusWriters()
	p.SourceCalls(func(call *ast.CallExpr, stack []ast.Node) {
		retriedFn := p.retriedFunc(call)
		if retriedFn == nil {
			return
		}
		gets, updates, through := p.retried(retriedFn)
		if !gets || !updates {
			return
		}
		kind := ""
		for _, c := range check.Calls(retriedFn) {
			if (p.ClientMethod(c) == "Update" || flow.ClientsetMethod(p.TypesInfo, c) == "Update") && len(c.Args) > 1 {
				kind = p.KindOf(c.Args[1])
			}
		}
		around := "Get + Update"
		if through != "" {
			around += " (in " + through + ", which it calls)"
		}
		retry := "RetryOnConflict"
		if p.isPollCall(call) {
			retry = "A poll that retries conflicts (wait." + p.Callee(call).Name() + ")"
		}
		t := check.Ensures(kind, false)
		d := check.NewFinding(call.Pos(), contract.CategoryRetryOnConflict,
			retry+" around "+around+": every conflict costs another read and write, and a stale cache makes them likely",
			check.HelperFix(t)+": server-side apply does not conflict on resourceVersion", t)
		var why string
		if p.isPollCall(call) {
			why = "the retry is a poll written by hand: rewrite its write with the helpers by hand (docs/vet.md, \"Retries\")"
		} else {
			d.SuggestedFixes, why = p.retryFix(call, stack, statusWriters)
		}
		if through != "" && d.SuggestedFixes == nil {
			why = "the retried function reads or writes in " + through + ", which it calls: rewrite that write with the helpers by hand (docs/vet.md, \"Retries\")"
		}
		p.ReportFinding(check.WithWhy(d, why))
		// The finding covers the retried function's writes: statusupdate,
		// which requires this analyzer, leaves them.
		p.Cover(retriedFn)
	})
}

const whyRetryWrites = "the retried function writes more than once, or through something other than the client's Update or Status().Update: rewrite it by hand with the helpers (docs/vet.md)"

// retryFix rewrites the one write of the retried function as an apply,
// which has no resourceVersion to conflict on, where that loses nothing
// the retry keeps: a Status().Update of a status the function sets whole
// from values it did not read (capsule's tenant status) becomes the
// kind's status helper of the converted status, as status-update's fix.
// The retry stays; it no longer meets a conflict to retry. A function
// that builds on what it read (a condition updated in place, a counter,
// a list appended to) re-reads to keep another writer's changes, which a
// forced apply would overwrite: no fix.
func (p pass) retryFix(call *ast.CallExpr, stack []ast.Node, statusWriters func() []check.StatusWriter) ([]analysis.SuggestedFix, string) {
	fn, ok := ast.Unparen(p.retriedFunc(call)).(*ast.FuncLit)
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
		switch p.ClientMethod(c) {
		case "Update", "Patch", "Create", "Delete":
			count++
			write = c
		}
		return true
	})
	if count != 1 || p.ClientMethod(write) != "Update" || len(write.Args) < 2 {
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
	v := p.ObjectVar(write.Args[1])
	if !p.IsStatusWriter(sel.X) || v == nil {
		return nil, whyRetryMerge
	}
	if !p.replacesStatus(fn.Body, v) {
		return nil, whyRetryMerge
	}
	return p.StatusUpdateFix(write, sel, inner, statusWriters)
}

const whyRetryMerge = "the retry re-reads the object so that what another writer set in between is kept and built on; an apply (with force) would overwrite it: " +
	"apply only the fields this code owns, by hand, with the helper and its apply configuration (docs/vet.md, \"Retries\")"

// replacesStatus reports whether the retried function sets v's whole
// status from a value that does not read v (latest.Status =
// instance.Status), so that what it writes does not depend on what it
// read: the read serves the resourceVersion and a comparison only, and
// an apply of that status writes what a retried Update would. After the
// assignment, values taken from v before it are read only by an if that
// returns (a comparison that skips the write).
func (p pass) replacesStatus(body *ast.BlockStmt, v *types.Var) bool {
	readsV := func(n ast.Node) bool {
		return flow.Find(n, func(m ast.Node) bool { id, ok := m.(*ast.Ident); return ok && p.TypesInfo.Uses[id] == v })
	}
	taken := map[types.Object]bool{} // locals defined from v before the assignment
	replaced := false
	for _, s := range body.List {
		if !replaced {
			if as, ok := s.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
				if sel, ok := as.Lhs[0].(*ast.SelectorExpr); ok && sel.Sel.Name == "Status" && p.ObjectVar(sel.X) == v && as.Tok == token.ASSIGN {
					if readsV(as.Rhs[0]) {
						return false
					}
					replaced = true
					continue
				}
				if as.Tok == token.DEFINE && readsV(as.Rhs[0]) {
					for _, l := range as.Lhs {
						if id, ok := l.(*ast.Ident); ok {
							taken[p.TypesInfo.Defs[id]] = true
						}
					}
				}
			}
			continue
		}
		if !flow.Find(s, func(m ast.Node) bool { id, ok := m.(*ast.Ident); return ok && taken[p.TypesInfo.Uses[id]] }) {
			continue
		}
		ifs, ok := s.(*ast.IfStmt)
		if !ok || ifs.Init != nil || ifs.Else != nil || len(ifs.Body.List) != 1 {
			return false
		}
		if _, ret := ifs.Body.List[0].(*ast.ReturnStmt); !ret {
			return false
		}
	}
	return replaced
}

// stackTo is the path from the file of stack down to n (inside the last
// node of stack), root first, as the inspector's WithStack gives it.
func (p pass) stackTo(stack []ast.Node, n ast.Node) []ast.Node {
	file := check.FileOf(stack)
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

// retriedFunc is the function a retry of conflicts runs: the second
// argument of retry.RetryOnConflict, the third of retry.OnError when its
// predicate retries conflicts; nil for any other call.
func (p pass) retriedFunc(call *ast.CallExpr) ast.Expr {
	switch {
	case p.IsPkgFunc(call, check.RetryPkg, "RetryOnConflict") && len(call.Args) == 2:
		return call.Args[1]
	case p.IsPkgFunc(call, check.RetryPkg, "OnError") && len(call.Args) == 3 && p.retriesConflicts(call.Args[1]):
		return call.Args[2]
	case p.isPollCall(call) && p.retriesConflicts(call.Args[len(call.Args)-1]):
		// A poll whose condition answers a conflict with "not yet"
		// (velero's UpdateDataUploadWithRetry): a retry by hand.
		return call.Args[len(call.Args)-1]
	}
	return nil
}

// isPollCall reports a call of apimachinery's wait that runs its last
// argument, a condition, until it says done: Poll*, ExponentialBackoff*.
func (p pass) isPollCall(call *ast.CallExpr) bool {
	fn := p.Callee(call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != check.WaitPkg || len(call.Args) == 0 {
		return false
	}
	return strings.HasPrefix(fn.Name(), "Poll") || strings.HasPrefix(fn.Name(), "ExponentialBackoff")
}

// retriesConflicts reports a retry predicate that says yes to a
// conflict: apierrors.IsConflict itself, or a function literal or a
// function of the package whose body calls it (rabbitmq's
// errorIsConflictOrNotFound).
func (p pass) retriesConflicts(pred ast.Expr) bool {
	var body ast.Node
	switch e := ast.Unparen(pred).(type) {
	case *ast.FuncLit:
		body = e.Body
	case *ast.Ident, *ast.SelectorExpr:
		fn := flow.FuncOf(p.TypesInfo, e)
		if fn == nil {
			return false
		}
		if fn.Pkg() != nil && fn.Pkg().Path() == check.APIErrorsPkg {
			return fn.Name() == "IsConflict"
		}
		if fd := p.FuncDecl(fn); fd != nil && fd.Body != nil {
			body = fd.Body
		}
	}
	if body == nil {
		return false
	}
	return flow.Find(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		return ok && p.IsPkgFunc(c, check.APIErrorsPkg, "IsConflict")
	})
}

// retried reports whether the retried function fn reads with a client's
// Get and writes with its Update — in its own body (a literal, or a
// closure the enclosing function defined), or in the functions it calls,
// as flow summarises them; through names the first function called that
// does either, "" when the body does both itself.
func (p pass) retried(fn ast.Expr) (gets, updates bool, through string) {
	var body ast.Node
	switch f := ast.Unparen(fn).(type) {
	case *ast.FuncLit:
		body = f.Body
	case *ast.Ident:
		if lit, ok := ast.Unparen(p.Definition(f)).(*ast.FuncLit); ok {
			body = lit.Body
		}
	}
	if body == nil {
		// A function or method value: its summary.
		if obj := flow.FuncOf(p.TypesInfo, fn); obj != nil {
			if s := p.Flow.Of(obj); s != nil {
				return s.Gets, s.Updates, obj.Name()
			}
		}
		return false, false, ""
	}
	direct := [2]bool{}
	for _, c := range check.Calls(body) {
		method := p.ClientMethod(c)
		if method == "" {
			// A client-go typed client's: Get, Update, UpdateStatus.
			if method = flow.ClientsetMethod(p.TypesInfo, c); method == "UpdateStatus" {
				method = "Update"
			}
		}
		switch method {
		case "Get":
			gets, direct[0] = true, true
		case "Update":
			updates, direct[1] = true, true
		default:
			if s := p.Flow.Of(p.Callee(c)); s != nil && (s.Gets || s.Updates) {
				gets, updates = gets || s.Gets, updates || s.Updates
				if through == "" {
					through = p.Callee(c).Name()
				}
			}
		}
	}
	if direct[0] && direct[1] {
		through = ""
	}
	return gets, updates, through
}
