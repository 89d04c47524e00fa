package vet

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/internal/contract"
)

// funcBody returns the body of the innermost function in stack.
func funcBody(stack []ast.Node) *ast.BlockStmt {
	for i := len(stack) - 1; i >= 0; i-- {
		switch f := stack[i].(type) {
		case *ast.FuncDecl:
			return f.Body
		case *ast.FuncLit:
			return f.Body
		}
	}
	return nil
}

// calls lists the calls in n (not descending into function literals when shallow).
func calls(n ast.Node) []*ast.CallExpr {
	var out []*ast.CallExpr
	if n == nil {
		return nil
	}
	ast.Inspect(n, func(m ast.Node) bool {
		if c, ok := m.(*ast.CallExpr); ok {
			out = append(out, c)
		}
		return true
	})
	return out
}

// isCreateCall reports a client Create or a function (field, wrapper)
// whose name says it creates.
func (p *pass) isCreateCall(call *ast.CallExpr) bool {
	if p.clientMethod(call) == "Create" {
		return true
	}
	name := ""
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		name = f.Name
	case *ast.SelectorExpr:
		name = f.Sel.Name
	}
	return strings.Contains(strings.ToLower(name), "create") && !strings.Contains(strings.ToLower(name), "createorupdate") && !strings.Contains(strings.ToLower(name), "createorpatch")
}

// isWriteCall reports Update or Patch through a client or a named wrapper.
func (p *pass) isWriteCall(call *ast.CallExpr) bool {
	switch p.clientMethod(call) {
	case "Update", "Patch":
		return true
	}
	name := ""
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		name = f.Name
	case *ast.SelectorExpr:
		name = f.Sel.Name
	}
	l := strings.ToLower(name)
	return strings.HasPrefix(l, "update") || strings.HasPrefix(l, "patch")
}

func runCreateUpdate(p *pass) {
	p.ins.WithStack([]ast.Node{(*ast.IfStmt)(nil), (*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push || p.inTest(n) {
			return true
		}
		body := funcBody(stack)
		if call, ok := n.(*ast.CallExpr); ok {
			// client.IgnoreAlreadyExists(c.Create(...))
			if p.isPkgFunc(call, clientPkg, "IgnoreAlreadyExists") && len(call.Args) == 1 && !setsGenerateName(body) && !p.afterNotFound(stack) {
				if inner, ok := ast.Unparen(call.Args[0]).(*ast.CallExpr); ok && p.isCreateCall(inner) {
					p.reportCreateIgnore(inner, stack)
				} else if _, ok := ast.Unparen(call.Args[0]).(*ast.Ident); ok {
					// if err := c.Create(...); client.IgnoreAlreadyExists(err) != nil
					for i := len(stack) - 2; i >= 0; i-- {
						if ifs, ok := stack[i].(*ast.IfStmt); ok && containsNode(ifs.Cond, call) {
							if create := p.createFor(ifs, call.Args[0], body); create != nil {
								p.reportCreateIgnore(create, stack)
							}
							break
						}
					}
				}
			}
			return true
		}
		ifs := n.(*ast.IfStmt)
		create, writes := p.createUpdateSite(ifs, stack, body)
		if create == nil {
			return true
		}
		for _, c := range writes {
			if p.isWriteCall(c) {
				kind := ""
				if len(create.Args) > 1 {
					kind = p.kindOf(create.Args[1])
				}
				d := diag(create.Pos(), "create-update",
					"Create → AlreadyExists → Update: every reconcile of an existing object costs a Create that fails with 409, a read and an Update, and the Update itself 409s when the cached copy is stale",
					helper(kind, "")+": one server-side apply with force, and no request at all when the object is already as desired")
				var why string
				d.SuggestedFixes, why = p.createUpdateFix(create, ifs, stack)
				p.Report(withWhy(d, why))
				return true
			}
		}
		if p.handlesAlreadyExists(ifs, stack) {
			return true // AlreadyExists is handled (a requeue, an adoption), not ignored
		}
		p.reportCreateIgnore(create, stack)
		return true
	})
}

// handlesAlreadyExists reports a Create whose AlreadyExists path returns
// an error or a non-zero result — a requeue ("the cache may be stale"),
// the result of adopting the object — rather than carrying on as if the
// Create had succeeded. A path shared with success (err != nil &&
// !IsAlreadyExists(err)) ignores it.
func (p *pass) handlesAlreadyExists(ifs *ast.IfStmt, stack []ast.Node) bool {
	handled := false
	for _, st := range p.alreadyExistsPath(ifs, stack) {
		ast.Inspect(st, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				for _, r := range n.Results {
					if !zeroExpr(r) {
						handled = true
					}
				}
			}
			return !handled
		})
	}
	return handled
}

// alreadyExistsPath is what runs only when the Create failed with
// AlreadyExists: the body of `if IsAlreadyExists(err)`, or what follows
// `if !IsAlreadyExists(err) { return ... }` inside `if err != nil`; nil
// when that path is shared with success (err != nil && !IsAlreadyExists).
func (p *pass) alreadyExistsPath(ifs *ast.IfStmt, stack []ast.Node) []ast.Stmt {
	_, negated := p.alreadyExistsCheck(ifs.Cond)
	if !negated {
		return ifs.Body.List
	}
	block, i := enclosingBlock(stack, ifs)
	if block == nil {
		return nil
	}
	// The block must run on errors only: the body of `if err != nil`.
	for j := len(stack) - 1; j >= 0; j-- {
		if outer, ok := stack[j].(*ast.IfStmt); ok && outer != ifs && outer.Body == block {
			if b, ok := ast.Unparen(outer.Cond).(*ast.BinaryExpr); ok && b.Op == token.NEQ {
				if id, ok := ast.Unparen(b.Y).(*ast.Ident); ok && id.Name == "nil" {
					return block.List[i+1:]
				}
			}
			return nil
		}
	}
	return nil
}

// zeroExpr: nil, an empty composite literal (ctrl.Result{}), or a zero
// literal.
func zeroExpr(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return e.Name == "nil" || e.Name == "false"
	case *ast.CompositeLit:
		return len(e.Elts) == 0
	case *ast.UnaryExpr:
		return e.Op == token.AND && zeroExpr(e.X)
	case *ast.BasicLit:
		return e.Value == "0" || e.Value == `""`
	}
	return false
}

// writesSameObject reports a write call whose arguments include the
// object the create created.
func (p *pass) writesSameObject(c, create *ast.CallExpr) bool {
	if !p.isWriteCall(c) || len(create.Args) < 2 {
		return false
	}
	v := p.objectVar(create.Args[len(create.Args)-1])
	if v == nil {
		return false
	}
	for _, a := range c.Args {
		if p.objectVar(a) == v {
			return true
		}
	}
	return false
}

func (p *pass) reportCreateIgnore(create *ast.CallExpr, stack []ast.Node) {
	kind := ""
	if len(create.Args) > 1 {
		kind = p.kindOf(create.Args[1])
	}
	d := diag(create.Pos(), "create-ignore",
		"Create that ignores AlreadyExists: one 409 per object per reconcile, and drift is never corrected",
		helper(kind, "")+", or with ensure.CreateOnly() for objects that must never be overwritten: no request once the cache has the object")
	var why string
	d.SuggestedFixes, why = p.createIgnoreFix(create, stack)
	p.Report(withWhy(d, why))
}

// noFix opens the note a finding without a suggested fix ends with.
const noFix = " (no automatic fix: "

// withWhy adds to a finding without a suggested fix the reason none is
// offered.
func withWhy(d analysis.Diagnostic, why string) analysis.Diagnostic {
	if len(d.SuggestedFixes) == 0 && why != "" {
		d.Message += noFix + why + ")"
	}
	return d
}

// NoFixReason returns the reason a finding's message gives for having
// no automatic fix, or "".
func NoFixReason(msg string) string {
	i := strings.LastIndex(msg, noFix)
	if i < 0 || !strings.HasSuffix(msg, ")") {
		return ""
	}
	return msg[i+len(noFix) : len(msg)-1]
}

// afterNotFound reports whether the node the stack ends at runs only in
// the branch of `if apierrors.IsNotFound(err)` (a cached Get found
// nothing): its Create then costs a 409 only when it races another
// writer, not on every reconcile.
func (p *pass) afterNotFound(stack []ast.Node) bool {
	return p.guarded(stack, false) || p.calledOnlyWhenAbsent(stack)
}

// notFoundOnward reports that, in block, a statement before the one
// holding node returns unless a read's error is NotFound:
//
//	if !apierrors.IsNotFound(err) { return ... }
//	if client.IgnoreNotFound(err) != nil { return ... }   // in `if err != nil`
//
// so node runs only when the read found nothing.
func (p *pass) notFoundOnward(block *ast.BlockStmt, node ast.Node, outer []ast.Node) bool {
	inErrBody := false
	if n := len(outer); n > 0 {
		if ifs, ok := outer[n-1].(*ast.IfStmt); ok && ifs.Body == block {
			if b, ok := ast.Unparen(ifs.Cond).(*ast.BinaryExpr); ok && b.Op == token.NEQ {
				if id, ok := ast.Unparen(b.Y).(*ast.Ident); ok && id.Name == "nil" {
					inErrBody = true
				}
			}
		}
	}
	for _, st := range block.List {
		if containsNode(st, node) {
			return false
		}
		ifs, ok := st.(*ast.IfStmt)
		if !ok || ifs.Else != nil || len(ifs.Body.List) == 0 {
			continue
		}
		if _, ret := ifs.Body.List[len(ifs.Body.List)-1].(*ast.ReturnStmt); !ret {
			continue
		}
		switch c := ast.Unparen(ifs.Cond).(type) {
		case *ast.UnaryExpr:
			if call, ok := ast.Unparen(c.X).(*ast.CallExpr); ok && c.Op == token.NOT && p.isPkgFunc(call, apierrorsPkg, "IsNotFound") {
				return true
			}
		case *ast.BinaryExpr:
			if call, ok := ast.Unparen(c.X).(*ast.CallExpr); ok && c.Op == token.NEQ && inErrBody && p.isPkgFunc(call, clientPkg, "IgnoreNotFound") {
				return true
			}
		}
	}
	return false
}

// absenceCheck reports a condition that holds when a read found nothing:
// apierrors.IsNotFound(err) (not negated), x == nil for a non-error x (a
// cached Get that set it to nil, a lookup in a cached list), len(x) == 0.
func (p *pass) absenceCheck(cond ast.Expr) bool {
	switch c := ast.Unparen(cond).(type) {
	case *ast.CallExpr:
		return p.isPkgFunc(c, apierrorsPkg, "IsNotFound")
	case *ast.BinaryExpr:
		switch c.Op {
		case token.LAND:
			return p.absenceCheck(c.X) || p.absenceCheck(c.Y)
		case token.EQL:
			if id, ok := ast.Unparen(c.Y).(*ast.Ident); ok && id.Name == "nil" {
				// A variable or a lookup; a field of an object that was
				// read (sa.DeletionTimestamp == nil) says nothing of absence.
				switch ast.Unparen(c.X).(type) {
				case *ast.Ident, *ast.IndexExpr:
				default:
					return false
				}
				t := p.TypesInfo.TypeOf(c.X)
				return t != nil && !types.Identical(t, types.Universe.Lookup("error").Type())
			}
			if call, ok := ast.Unparen(c.X).(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "len" {
					if lit, ok := ast.Unparen(c.Y).(*ast.BasicLit); ok && lit.Value == "0" {
						return true
					}
				}
			}
		}
	}
	return false
}

// calledOnlyWhenAbsent reports a node in a function of this package whose
// every call in the package runs only when a read found nothing (the
// Create lives in createRole, called from the NotFound branch of the
// reconcile's cached Get).
func (p *pass) calledOnlyWhenAbsent(stack []ast.Node) bool {
	var fn *types.Func
	for i := len(stack) - 1; i >= 0; i-- {
		if fd, ok := stack[i].(*ast.FuncDecl); ok {
			fn, _ = p.TypesInfo.Defs[fd.Name].(*types.Func)
			break
		}
		if _, ok := stack[i].(*ast.FuncLit); ok {
			return false
		}
	}
	if fn == nil {
		return false
	}
	if p.guardedCalls == nil {
		p.guardedCalls = map[*types.Func][2]int{}
		p.ins.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, st []ast.Node) bool {
			if !push {
				return true
			}
			callee := p.callee(n.(*ast.CallExpr))
			if callee == nil || callee.Pkg() != p.Pkg {
				return true
			}
			c := p.guardedCalls[callee]
			c[0]++
			if p.guarded(st, true) {
				c[1]++
			}
			p.guardedCalls[callee] = c
			return true
		})
	}
	c := p.guardedCalls[fn]
	return c[0] > 0 && c[0] == c[1]
}

// guarded reports a node that runs only when a read found nothing: in an
// if or a switch case on an absence check, or after a statement that
// returns unless the read's error is NotFound. inFunc stops at the
// enclosing function; otherwise a closure's enclosing branches count too.
func (p *pass) guarded(stack []ast.Node, inFunc bool) bool {
	node := stack[len(stack)-1]
	for i := len(stack) - 2; i >= 0; i-- {
		switch s := stack[i].(type) {
		case *ast.BlockStmt:
			if p.notFoundOnward(s, node, stack[:i]) {
				return true
			}
		case *ast.IfStmt:
			if containsNode(s.Body, node) && p.absenceCheck(s.Cond) {
				return true
			}
		case *ast.CaseClause:
			// switch { case apierrors.IsNotFound(err): ...; case x == nil: ... }
			for _, c := range s.List {
				if p.absenceCheck(c) {
					return true
				}
			}
		case *ast.FuncDecl, *ast.FuncLit:
			if inFunc {
				return false
			}
		}
	}
	return false
}

// alreadyExistsCheck finds apierrors.IsAlreadyExists(x) in a condition.
func (p *pass) alreadyExistsCheck(cond ast.Expr) (*ast.CallExpr, bool) {
	var found *ast.CallExpr
	negated := false
	var walk func(e ast.Expr, neg bool)
	walk = func(e ast.Expr, neg bool) {
		switch e := ast.Unparen(e).(type) {
		case *ast.UnaryExpr:
			if e.Op == token.NOT {
				walk(e.X, !neg)
			}
		case *ast.BinaryExpr:
			walk(e.X, neg)
			walk(e.Y, neg)
		case *ast.CallExpr:
			if found == nil && p.isPkgFunc(e, apierrorsPkg, "IsAlreadyExists") && len(e.Args) == 1 {
				found, negated = e, neg
			}
		}
	}
	walk(cond, false)
	return found, negated
}

// createFor finds the Create call whose error x is: in the if's init, or
// the last assignment to x before the if in the function.
func (p *pass) createFor(ifs *ast.IfStmt, x ast.Expr, body *ast.BlockStmt) *ast.CallExpr {
	if c, ok := ast.Unparen(x).(*ast.CallExpr); ok && p.isCreateCall(c) {
		return c
	}
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok || body == nil {
		return nil
	}
	obj := p.TypesInfo.ObjectOf(id)
	var last *ast.CallExpr
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil || n.Pos() >= ifs.Cond.Pos() {
			return n == nil || n.Pos() < ifs.Cond.Pos()
		}
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 {
			return true
		}
		for _, l := range as.Lhs {
			if lid, ok := l.(*ast.Ident); ok && p.TypesInfo.ObjectOf(lid) == obj {
				if c, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr); ok && p.isCreateCall(c) {
					last = c
				} else {
					last = nil
				}
			}
		}
		return true
	})
	return last
}

// setsGenerateName: objects created with generateName never exist already.
func setsGenerateName(body *ast.BlockStmt) bool {
	found := false
	if body == nil {
		return false
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok && id.Name == "GenerateName" {
				found = true
			}
		case *ast.SelectorExpr:
			if n.Sel.Name == "GenerateName" || n.Sel.Name == "SetGenerateName" {
				found = true
			}
		}
		return !found
	})
	return found
}

func runCreateOrUpdate(p *pass) {
	p.ins.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		call := n.(*ast.CallExpr)
		name := p.createOrUpdateName(call)
		if !push || p.inTest(call) || name == "" {
			return true
		}
		kind := ""
		if len(call.Args) > 2 {
			kind = p.kindOf(call.Args[2])
		}
		d := diag(call.Pos(), "create-or-update",
			name+" reads the cached object, mutates it and writes it back with its resourceVersion: concurrent reconciles race into 409s and backoffs, and fields set earlier are never pruned",
			helper(kind, "")+": apply only the fields you own; no resourceVersion, no race, no request when nothing changed")
		var why string
		d.SuggestedFixes, why = p.createOrUpdateFix(call, stack)
		p.Report(withWhy(d, why))
		return true
	})
}

// createOrUpdateName is "CreateOrUpdate" or "CreateOrPatch" for a call of
// controllerutil's, or of the variable controller-runtime's root package
// re-exports it as (ctrl.CreateOrUpdate); "" otherwise.
func (p *pass) createOrUpdateName(call *ast.CallExpr) string {
	if p.isPkgFunc(call, controllerutilPkg, "CreateOrUpdate", "CreateOrPatch") {
		return p.callee(call).Name()
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if v, ok := p.TypesInfo.Uses[sel.Sel].(*types.Var); ok && v.Pkg() != nil && v.Pkg().Path() == controllerRuntimePkg &&
		(v.Name() == "CreateOrUpdate" || v.Name() == "CreateOrPatch") {
		return v.Name()
	}
	return ""
}

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
		p.Report(diag(call.Pos(), "retry-on-conflict",
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
		p.Report(diag(call.Pos(), "status-update",
			"Status().Update() of an object read from the cache: when the cache lags, the write 409s and the reconcile is retried",
			helper(p.kindOf(call.Args[1]), "Status")+": a status apply carries no resourceVersion and is skipped when nothing changed"))
		return true
	})
}

func runUpdateFromScratch(p *pass) {
	p.ins.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		call := n.(*ast.CallExpr)
		if !push || p.inTest(call) || p.clientMethod(call) != "Update" || len(call.Args) < 2 {
			return true
		}
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && p.isStatusWriter(sel.X) {
			return true
		}
		body := funcBody(stack)
		v := p.objectVar(call.Args[1])
		if v != nil && body != nil && p.readInFunc(body, v, call.Pos()) {
			// Optimistic locking on purpose — unless another controller
			// keeps writing the object: then the cached copy is often stale.
			if kind := p.kindOf(call.Args[1]); writtenByOthers[kind] {
				p.Report(diag(call.Pos(), "update-cached-churning",
					"Update of a "+kind+" read from the cache: another controller keeps writing it (status, scale, endpoints), so the copy is often stale and the write 409s",
					helper(kind, "")+": apply only the fields you own, without a resourceVersion"))
			}
			return true
		}
		if v == nil || body == nil || !builtFromLiteral(p, body, v) || setsResourceVersion(p, body, v) {
			return true
		}
		if p.partOfCreateUpdate(call, stack, body) {
			return true // one finding per write site: create-update reports it
		}
		p.Report(diag(call.Pos(), "update-from-scratch",
			"Update of an object built from scratch: without a resourceVersion it overwrites every field other controllers set, and with a stale one it 409s",
			helper(p.kindOf(call.Args[1]), "")+": apply only the fields you own"))
		return true
	})
}

// createUpdateSite recognises a Create whose AlreadyExists check is ifs
// (stack ends at ifs): the Create, and the calls that follow the check on
// its AlreadyExists path — inside `if IsAlreadyExists(err)`, or after
// `if !IsAlreadyExists(err) { return }` in the same block, writing the
// same object. create is nil where create-update stays silent (no such
// Create, generateName, or a Create only after a NotFound).
func (p *pass) createUpdateSite(ifs *ast.IfStmt, stack []ast.Node, body *ast.BlockStmt) (create *ast.CallExpr, writes []*ast.CallExpr) {
	check, negated := p.alreadyExistsCheck(ifs.Cond)
	if check == nil || setsGenerateName(body) || p.afterNotFound(stack) {
		return nil, nil
	}
	if create = p.createFor(ifs, check.Args[0], body); create == nil {
		return nil, nil
	}
	if !negated {
		return create, calls(ifs.Body)
	}
	// if !IsAlreadyExists(err) { return err } — then an Update after it
	// is create-update; nothing after it, AlreadyExists is ignored. On a
	// path run only for AlreadyExists, any write counts (a Get of the
	// existing object, then its Update).
	onlyExists := p.alreadyExistsPath(ifs, stack)
	if block, i := enclosingBlock(stack, ifs); block != nil {
		for _, s := range block.List[i+1:] {
			for _, c := range calls(s) {
				if p.writesSameObject(c, create) || (onlyExists != nil && p.isWriteCall(c) && p.clientMethod(c) != "") {
					writes = append(writes, c)
				}
			}
		}
	}
	return create, writes
}

// partOfCreateUpdate reports whether the write call is one a
// create-update finding reports at its Create: the call is on the
// AlreadyExists path of a site whose check encloses it or precedes it in
// an enclosing block.
func (p *pass) partOfCreateUpdate(call *ast.CallExpr, stack []ast.Node, body *ast.BlockStmt) bool {
	inSite := func(ifs *ast.IfStmt, ifStack []ast.Node) bool {
		if _, writes := p.createUpdateSite(ifs, ifStack, body); slices.Contains(writes, call) {
			return p.isWriteCall(call)
		}
		return false
	}
	for i := len(stack) - 1; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.IfStmt:
			if inSite(n, stack[:i+1]) {
				return true
			}
		case *ast.BlockStmt:
			for _, st := range n.List {
				if st.Pos() >= call.Pos() {
					break
				}
				if ifs, ok := st.(*ast.IfStmt); ok && inSite(ifs, append(stack[:i+1:i+1], ifs)) {
					return true
				}
			}
		}
	}
	return false
}

// builtFromLiteral reports v := &T{...} (or T{...}) in body.
func builtFromLiteral(p *pass, body *ast.BlockStmt, v *types.Var) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if ok {
			for i, l := range as.Lhs {
				if id, ok := l.(*ast.Ident); ok && p.TypesInfo.ObjectOf(id) == v && i < len(as.Rhs) {
					e := ast.Unparen(as.Rhs[i])
					if u, ok := e.(*ast.UnaryExpr); ok {
						e = u.X
					}
					if _, ok := e.(*ast.CompositeLit); ok {
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}

func setsResourceVersion(p *pass, body *ast.BlockStmt, v *types.Var) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if n.Sel.Name == "ResourceVersion" || n.Sel.Name == "SetResourceVersion" {
				found = true
			}
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok && id.Name == "ResourceVersion" {
				found = true
			}
		}
		return !found
	})
	return found
}

func runApplyTypedStruct(p *pass) {
	p.ins.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		call := n.(*ast.CallExpr)
		if !push || p.inTest(call) || p.clientMethod(call) != "Patch" || len(call.Args) < 3 {
			return true
		}
		sel, ok := ast.Unparen(call.Args[2]).(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Apply" {
			return true
		}
		if v, ok := p.TypesInfo.Uses[sel.Sel].(*types.Var); !ok || v.Pkg() == nil || v.Pkg().Path() != clientPkg {
			return true
		}
		t := p.TypesInfo.TypeOf(call.Args[1])
		if ptr, ok := t.(*types.Pointer); ok {
			t = ptr.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == unstructuredPkg {
			return true
		}
		status := false
		if fsel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			status = p.isStatusWriter(fsel.X)
		}
		if lit := p.fixedLiteral(call.Args[1], funcBody(stack)); lit != nil && !p.zeroSent(t, lit, true, status, 0) {
			return true // every field it sends was written on purpose
		}
		kind := p.kindOf(call.Args[1])
		p.Report(diag(call.Pos(), "apply-typed-struct",
			"server-side apply of a typed Go struct: every zero-valued field without omitempty is sent, so this manager claims fields it never meant to set (controller-runtime #2702)",
			helper(kind, "")+" with a typed apply configuration: only the fields you set are sent"))
		return true
	})
}

// fixedLiteral is the composite literal the object arg is, inline or as a
// variable defined from one in body and never assigned to afterwards;
// nil otherwise.
func (p *pass) fixedLiteral(arg ast.Expr, body *ast.BlockStmt) *ast.CompositeLit {
	if u, ok := ast.Unparen(arg).(*ast.UnaryExpr); ok && u.Op == token.AND {
		lit, _ := ast.Unparen(u.X).(*ast.CompositeLit)
		return lit
	}
	if c, ok := ast.Unparen(arg).(*ast.CallExpr); ok {
		return p.returnedLiteral(c)
	}
	v := p.objectVar(arg)
	if v == nil || body == nil {
		return nil
	}
	var lit *ast.CompositeLit
	changed := false
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return !changed
		}
		for i, lhs := range as.Lhs {
			root := lhs
			for {
				if s, ok := root.(*ast.SelectorExpr); ok {
					root = s.X
					continue
				}
				if ix, ok := root.(*ast.IndexExpr); ok {
					root = ix.X
					continue
				}
				break
			}
			id, ok := root.(*ast.Ident)
			if !ok || p.TypesInfo.ObjectOf(id) != v {
				continue
			}
			if as.Tok == token.DEFINE && lhs == root && len(as.Rhs) == len(as.Lhs) && lit == nil {
				if u, ok := ast.Unparen(as.Rhs[i]).(*ast.UnaryExpr); ok && u.Op == token.AND {
					lit, _ = ast.Unparen(u.X).(*ast.CompositeLit)
				}
				if c, ok := ast.Unparen(as.Rhs[i]).(*ast.CallExpr); ok {
					lit = p.returnedLiteral(c) // w := desiredWidget(...)
				}
				if lit != nil {
					continue
				}
			}
			changed = true
		}
		return !changed
	})
	if changed {
		return nil
	}
	return lit
}

// returnedLiteral is the literal a call of a function of this package
// returns, when its one return statement is `return &T{...}`; nil
// otherwise (a function of another package, a method, several returns).
func (p *pass) returnedLiteral(call *ast.CallExpr) *ast.CompositeLit {
	fn := p.callee(call)
	if fn == nil || fn.Pkg() != p.Pkg || fn.Type().(*types.Signature).Recv() != nil {
		return nil
	}
	for _, f := range p.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || p.TypesInfo.Defs[fd.Name] != fn {
				continue
			}
			var ret *ast.ReturnStmt
			n := 0
			ast.Inspect(fd.Body, func(m ast.Node) bool {
				if _, lit := m.(*ast.FuncLit); lit {
					return false
				}
				if r, ok := m.(*ast.ReturnStmt); ok {
					ret, n = r, n+1
				}
				return true
			})
			if n != 1 || len(ret.Results) != 1 {
				return nil
			}
			if u, ok := ast.Unparen(ret.Results[0]).(*ast.UnaryExpr); ok && u.Op == token.AND {
				lit, _ := ast.Unparen(u.X).(*ast.CompositeLit)
				return lit
			}
			return nil
		}
	}
	return nil
}

// zeroSent reports whether encoding/json writes a zero value the literal
// did not set somewhere in t: a field without omitempty left unset, or a
// struct (which omitempty never omits) whose own fields are. At the top,
// the stanza the endpoint drops is not looked at: status for the object,
// spec for its status.
func (p *pass) zeroSent(t types.Type, lit *ast.CompositeLit, top, status bool, depth int) bool {
	st, ok := t.Underlying().(*types.Struct)
	if !ok || depth > 8 {
		return true
	}
	set := map[string]ast.Expr{}
	if lit != nil {
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				return true // positional: every field is set, zero or not; judge no further
			}
			if id, ok := kv.Key.(*ast.Ident); ok {
				set[id.Name] = kv.Value
			}
		}
	}
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !f.Exported() {
			continue
		}
		name, opts, _ := strings.Cut(reflect.StructTag(st.Tag(i)).Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" && !f.Embedded() {
			name = f.Name()
		}
		if top && ((name == "status" && !status) || (name == "spec" && status)) {
			continue
		}
		omitempty := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		ft := f.Type()
		v, isSet := set[f.Name()]
		if isSet {
			inner := ast.Unparen(v)
			if u, ok := inner.(*ast.UnaryExpr); ok && u.Op == token.AND {
				inner = ast.Unparen(u.X)
				if ptr, ok := ft.Underlying().(*types.Pointer); ok {
					ft = ptr.Elem()
				}
			}
			if c, ok := inner.(*ast.CompositeLit); ok {
				if _, isStruct := ft.Underlying().(*types.Struct); isStruct && !p.marshals(ft) {
					if p.zeroSent(ft, c, false, status, depth+1) {
						return true
					}
				}
			}
			continue
		}
		if _, isStruct := ft.Underlying().(*types.Struct); isStruct {
			if p.marshals(ft) {
				if !strings.Contains(","+opts+",", ",omitzero,") {
					return true // a zero time or quantity is still written
				}
				continue
			}
			if p.zeroSent(ft, nil, f.Embedded() && name == "" && top, status, depth+1) {
				return true
			}
			continue
		}
		if !omitempty {
			return true
		}
	}
	return false
}

// marshals reports whether t (or *t) writes its own JSON.
func (p *pass) marshals(t types.Type) bool {
	for _, tt := range []types.Type{t, types.NewPointer(t)} {
		if m, _, _ := types.LookupFieldOrMethod(tt, true, nil, "MarshalJSON"); m != nil {
			return true
		}
	}
	return false
}

var churning = map[string]bool{"Pod": true, "Deployment": true, "ReplicaSet": true, "StatefulSet": true, "DaemonSet": true, "Job": true}

func runOwnsChurning(p *pass) {
	p.ins.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		p.ownsChurning(n.(*ast.CallExpr), stack)
		return true
	})
}

// eventFilterDrops reports a builder.WithEventFilter in body whose
// predicate drops status churn: it filters the owned kinds' events too.
func (p *pass) eventFilterDrops(body *ast.BlockStmt) bool {
	if body == nil {
		return false
	}
	drops := false
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || drops {
			return !drops
		}
		if fn := p.callee(c); fn != nil && fn.Name() == "WithEventFilter" && fn.Pkg() != nil && isBuilderPkg(fn.Pkg().Path()) && len(c.Args) == 1 {
			drops = p.predicateVerdict(c.Args[0]) == dropsChurn
		}
		return !drops
	})
	return drops
}

func (p *pass) ownsChurning(call *ast.CallExpr, stack []ast.Node) {
	fn := p.callee(call)
	if p.inTest(call) || fn == nil || fn.Name() != "Owns" || fn.Pkg() == nil || !isBuilderPkg(fn.Pkg().Path()) || len(call.Args) == 0 {
		return
	}
	if p.eventFilterDrops(funcBody(stack)) {
		return
	}
	kind := p.kindOf(call.Args[0])
	if !churning[kind] {
		return
	}
	what := "without a predicate"
	if len(call.Args) > 1 {
		// Predicates passed with the options are ANDed: the status
		// churn gets through only when every one lets it through.
		verdict := letsChurn
		for _, opt := range call.Args[1:] {
			oc, ok := ast.Unparen(opt).(*ast.CallExpr)
			if !ok || p.callee(oc) == nil || p.callee(oc).Name() != "WithPredicates" {
				verdict = unknownChurn
				continue
			}
			if v := p.allOf(oc.Args); v != letsChurn && verdict == letsChurn {
				verdict = v
			}
		}
		if verdict != letsChurn {
			return
		}
		what = "with predicates that pass every status write (they look at the new object only)"
	}
	pos := call.Pos()
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		pos = sel.Sel.Pos()
	}
	p.Report(diag(pos, "owns-churning",
		"Owns(&"+kind+"{}) "+what+": every status write of the child (a kubelet walking a pod through its phases) reconciles the owner again",
		"add builder.WithPredicates("+contract.OwnedChanges(kind)+"(c)), c the ensure.NewClient your reconciler writes through, from the helpers ssagen generates (--ensure-kinds), plus a check of the status fields you mirror"))
}

// writtenByOthers are kinds other controllers keep writing: the churning
// kinds, nodes (kubelet), Services (load-balancer status).
var writtenByOthers = func() map[string]bool {
	m := map[string]bool{"Node": true, "Service": true}
	for k := range churning {
		m[k] = true
	}
	return m
}()

// definition is the expression a local variable was defined with (its
// := or var with a value), when it is assigned nowhere else; nil otherwise.
func (p *pass) definition(id *ast.Ident) ast.Expr {
	v, ok := p.TypesInfo.Uses[id].(*types.Var)
	if !ok || v.Pkg() != p.Pkg || v.Parent() == p.Pkg.Scope() {
		return nil
	}
	var def ast.Expr
	assigned := 0
	for _, f := range p.Files {
		if f.Pos() > v.Pos() || v.Pos() > f.End() {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					if lid, ok := l.(*ast.Ident); ok && (p.TypesInfo.Defs[lid] == v || p.TypesInfo.Uses[lid] == v) {
						assigned++
						if len(n.Rhs) == len(n.Lhs) {
							def = n.Rhs[i]
						} else {
							def = nil // x, err := f(): the first result
							if len(n.Rhs) == 1 && i == 0 {
								def = n.Rhs[0]
							}
						}
					}
				}
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if p.TypesInfo.Defs[name] == v && i < len(n.Values) {
						assigned++
						def = n.Values[i]
					}
				}
			}
			return true
		})
	}
	if assigned != 1 {
		return nil
	}
	return def
}

// isBuilderPkg: controller-runtime's builder, or multicluster-runtime's,
// which wraps it with the same Owns.
func isBuilderPkg(path string) bool {
	return path == builderPkg || path == "sigs.k8s.io/multicluster-runtime/pkg/builder"
}

// What a predicate does with an update that changes only the status.
type churnVerdict int

const (
	unknownChurn churnVerdict = iota // cannot tell: stay silent
	dropsChurn                       // drops it
	letsChurn                        // passes it
)

// allOf is the verdict of predicates that must all pass (WithPredicates,
// predicate.And): one that drops the churn drops it.
func (p *pass) allOf(preds []ast.Expr) churnVerdict {
	if len(preds) == 0 {
		return letsChurn
	}
	v := letsChurn
	for _, e := range preds {
		switch p.predicateVerdict(e) {
		case dropsChurn:
			return dropsChurn
		case unknownChurn:
			v = unknownChurn
		}
	}
	return v
}

// predicateVerdict judges one predicate expression by what it is:
// controller-runtime's Generation/Label/AnnotationChangedPredicate and
// ssagen's Owned<Kind>Changes compare old and new and drop status-only
// writes; ResourceVersionChangedPredicate, NewPredicateFuncs (a filter on
// the new object alone) and Funcs without an UpdateFunc pass them. An
// UpdateFunc of our own, or anything else, cannot be judged.
func (p *pass) predicateVerdict(e ast.Expr) churnVerdict {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok {
		e = u.X
	}
	switch e := e.(type) {
	case *ast.Ident:
		// A variable: judge what it was defined as, in this package.
		if def := p.definition(e); def != nil {
			return p.predicateVerdict(def)
		}
	case *ast.CompositeLit:
		switch p.predicateType(e) {
		case "GenerationChangedPredicate", "LabelChangedPredicate", "AnnotationChangedPredicate",
			"TypedGenerationChangedPredicate", "TypedLabelChangedPredicate", "TypedAnnotationChangedPredicate":
			return dropsChurn
		case "ResourceVersionChangedPredicate", "TypedResourceVersionChangedPredicate":
			return letsChurn
		case "Funcs", "TypedFuncs":
			for _, el := range e.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "UpdateFunc" {
						return unknownChurn
					}
				}
			}
			return letsChurn
		}
	case *ast.CallExpr:
		fn := p.callee(e)
		if fn == nil {
			return unknownChurn
		}
		name := fn.Name()
		switch {
		case fn.Pkg() != nil && fn.Pkg().Path() == predicatePkg && (name == "NewPredicateFuncs" || name == "NewTypedPredicateFuncs" ||
			name == "LabelSelectorPredicate" || name == "TypedLabelSelectorPredicate"):
			return letsChurn // a filter on the new object alone
		case fn.Pkg() != nil && fn.Pkg().Path() == predicatePkg && name == "And":
			return p.allOf(e.Args)
		case fn.Pkg() != nil && fn.Pkg().Path() == predicatePkg && name == "Or":
			v := dropsChurn
			for _, a := range e.Args {
				switch p.predicateVerdict(a) {
				case letsChurn:
					return letsChurn
				case unknownChurn:
					v = unknownChurn
				}
			}
			return v
		case fn.Pkg() != nil && contract.IsHelperPkg(fn.Pkg().Path()):
			if _, ok := contract.OwnedChangesKind(name); ok {
				return dropsChurn
			}
		case fn.Pkg() != nil && fn.Pkg().Path() == contract.RuntimePkg && name == contract.OwnedFieldsChanged:
			return dropsChurn
		}
	}
	return unknownChurn
}

// predicateType names the controller-runtime predicate type of a literal, or "".
func (p *pass) predicateType(lit *ast.CompositeLit) string {
	t := p.TypesInfo.TypeOf(lit)
	if t == nil {
		return ""
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == predicatePkg {
		return n.Obj().Name()
	}
	return ""
}
