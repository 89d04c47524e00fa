// Package createupdate defines an analyzer of ssagen vet that reports a Create whose error path checks IsAlreadyExists and then
// Updates or Patches the object (category create-update), and a Create
// that tolerates AlreadyExists and moves on (category create-ignore).
//
// Every reconcile of an object that exists then costs a POST answered
// 409, and the Update another request that 409s whenever the cached copy
// is stale (Kargo's ~800 409s a minute, seed 000). The fix is the
// generated Ensure<Kind> helper: one server-side apply, and no request
// when the object already is as desired; CreateOnly() for objects that
// must be created and never overwritten. Where the rewrite is exact the
// diagnostic carries a suggested fix (ssagen vet -fix applies it after
// the package, with the edit, builds, passes go vet and its tests).
package createupdate

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/check"
	"github.com/ssagen/ssagen/vet/internal/flow"
)

// Doc is the analyzer's one-line description.
const Doc = "Create → AlreadyExists → Update/Patch, and Create that ignores AlreadyExists, on every reconcile"

// Analyzer is the analyzer (check.Analyzer).
var Analyzer = check.Analyzer("createupdate", Doc, run)

// pass is the analyzer's pass; its methods are the analyzer's matchers
// and fixes.
type pass struct {
	*check.Pass
	*seamState
}

// seamState is what the pass knows of seams: the function fields its
// writes go through; seamAt, the seam of the write a finding is at; held,
// the findings reported at seams, reported together by flushSeams.
type seamState struct {
	seams  map[*types.Var]*seam
	seamAt map[token.Pos]*seam
	held   []*seamSite
}

// report reports d, or holds it to report with its seam's other sites.
func (p pass) report(d check.Finding) {
	if s := p.seamAt[d.Pos]; s != nil {
		p.held = append(p.held, &seamSite{d, s})
		return
	}
	p.ReportFinding(d)
}

// run reports each Create → AlreadyExists → Update site, covering its
// writes, where updatefromscratch stays quiet, and each Create that
// ignores AlreadyExists.
func run(cp *check.Pass) {
	p := pass{cp, &seamState{}}
	defer p.flushSeams()
	p.Ins.WithStack([]ast.Node{(*ast.IfStmt)(nil), (*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push || p.InTest(n) {
			return true
		}
		body := check.FuncBody(stack)
		if call, ok := n.(*ast.CallExpr); ok {
			// client.IgnoreAlreadyExists(c.Create(...))
			if p.IsPkgFunc(call, check.ClientPkg, "IgnoreAlreadyExists") && len(call.Args) == 1 && !flow.SetsField(body, "GenerateName") && !p.afterNotFound(stack) {
				if inner, ok := ast.Unparen(call.Args[0]).(*ast.CallExpr); ok && p.IsCreateCall(inner) {
					p.reportCreateIgnore(inner, stack)
				} else if _, ok := ast.Unparen(call.Args[0]).(*ast.Ident); ok {
					// if err := c.Create(...); client.IgnoreAlreadyExists(err) != nil
					for i := len(stack) - 2; i >= 0; i-- {
						if ifs, ok := stack[i].(*ast.IfStmt); ok && check.ContainsNode(ifs.Cond, call) {
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
			if p.IsWriteCall(c) {
				t := check.Ensures(p.createdKind(create), false)
				d := check.NewFinding(create.Pos(), contract.CategoryCreateUpdate,
					"Create → AlreadyExists → Update: every reconcile of an existing object costs a Create that fails with 409, a read and an Update, and the Update itself 409s when the cached copy is stale",
					check.HelperFix(t)+": one server-side apply with force, and no request at all when the object is already as desired", t)
				p.report(d.Fixed(p.createUpdateFix(create, ifs, stack)))
				// The finding covers the writes on the AlreadyExists path in
				// the function of the check (not those of a closure there,
				// which the fix does not rewrite): updatefromscratch, which
				// requires this analyzer, leaves them.
				for _, w := range writes {
					if p.IsWriteCall(w) && !inClosure(body, w) {
						p.Cover(w)
					}
				}
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
func (p pass) handlesAlreadyExists(ifs *ast.IfStmt, stack []ast.Node) bool {
	handled := false
	for _, st := range p.alreadyExistsPath(ifs, stack) {
		ast.Inspect(st, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				for _, r := range n.Results {
					if !flow.ZeroExpr(r) {
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
func (p pass) alreadyExistsPath(ifs *ast.IfStmt, stack []ast.Node) []ast.Stmt {
	_, negated := p.alreadyExistsCheck(ifs.Cond)
	if !negated {
		return ifs.Body.List
	}
	block, i := check.EnclosingBlock(stack, ifs)
	if block == nil {
		return nil
	}
	// The block runs on errors only past an `if err == nil { return }`.
	if check, _ := p.alreadyExistsCheck(ifs.Cond); check != nil {
		for _, guard := range leavingIfs(block, ifs) {
			if x := flow.ComparedToNil(guard.Cond, token.EQL); x != nil && sameVar(p, x, check.Args[0]) {
				return block.List[i+1:]
			}
		}
	}
	// Or it is the body of `if err != nil`.
	for j := len(stack) - 1; j >= 0; j-- {
		if outer, ok := stack[j].(*ast.IfStmt); ok && outer != ifs && outer.Body == block {
			if flow.ComparedToNil(outer.Cond, token.NEQ) != nil {
				return block.List[i+1:]
			}
			return nil
		}
	}
	return nil
}

// createdKind is the kind of the object a Create call writes ("" when
// it cannot be told).
func (p pass) createdKind(create *ast.CallExpr) string {
	// The object: the first argument of a struct type (a wrapper's
	// createX(ctx, clientset, obj) passes a client first, whose type
	// names no kind).
	for _, a := range create.Args {
		if k := p.KindOf(a); k != "" {
			return k
		}
	}
	return ""
}

func (p pass) reportCreateIgnore(create *ast.CallExpr, stack []ast.Node) {
	t := check.Ensures(p.createdKind(create), false)
	d := check.NewFinding(create.Pos(), contract.CategoryCreateIgnore,
		"Create that ignores AlreadyExists: one 409 per object per reconcile, and drift is never corrected",
		check.HelperFix(t)+", or with ensure.CreateOnly() for objects that must never be overwritten: no request once the cache has the object", t)
	p.report(d.Fixed(p.createIgnoreFix(create, stack)))
}

// afterNotFound reports whether the node the stack ends at runs only in
// the branch of `if apierrors.IsNotFound(err)` (a cached Get found
// nothing): its Create then costs a 409 only when it races another
// writer, not on every reconcile.
func (p pass) afterNotFound(stack []ast.Node) bool {
	return p.guarded(stack, false) || p.calledOnlyWhenAbsent(stack)
}

// notFoundOnward reports that, in block, a statement before the one
// holding node returns unless a read's error is NotFound:
//
//	if !apierrors.IsNotFound(err) { return ... }
//	if client.IgnoreNotFound(err) != nil { return ... }   // in `if err != nil`
//
// so node runs only when the read found nothing.
func (p pass) notFoundOnward(block *ast.BlockStmt, node ast.Node, outer []ast.Node) bool {
	inErrBody := false
	if n := len(outer); n > 0 {
		if ifs, ok := outer[n-1].(*ast.IfStmt); ok && ifs.Body == block {
			inErrBody = flow.ComparedToNil(ifs.Cond, token.NEQ) != nil
		}
	}
	for _, ifs := range leavingIfs(block, node) {
		switch c := ast.Unparen(ifs.Cond).(type) {
		case *ast.UnaryExpr:
			if call, ok := ast.Unparen(c.X).(*ast.CallExpr); ok && c.Op == token.NOT && p.isErrPredicate(call, "IsNotFound") {
				return true
			}
		case *ast.BinaryExpr:
			if call, ok := ast.Unparen(c.X).(*ast.CallExpr); ok && c.Op == token.NEQ && inErrBody && p.IsPkgFunc(call, check.ClientPkg, "IgnoreNotFound") {
				return true
			}
			// if err == nil { continue }: past it, the read failed.
			if x := flow.ComparedToNil(c, token.EQL); x != nil && p.readError(ifs, x, block) {
				return true
			}
		}
	}
	return false
}

// readError reports x, compared in ifs, as the error of a client read
// (Get or List): assigned in the if's init, or last before it in block.
func (p pass) readError(ifs *ast.IfStmt, x ast.Expr, block *ast.BlockStmt) bool {
	v := p.ObjectVar(x)
	if v == nil {
		return false
	}
	var last *ast.CallExpr
	assigns := func(st ast.Stmt) {
		as, ok := st.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 {
			return
		}
		for _, l := range as.Lhs {
			if p.ObjectVar(l) == v {
				last, _ = ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
			}
		}
	}
	for _, st := range block.List {
		if st == ifs {
			break
		}
		assigns(st)
	}
	if ifs.Init != nil {
		assigns(ifs.Init)
	}
	if last == nil {
		return false
	}
	m := p.ClientMethod(last)
	return m == "Get" || m == "List"
}

// absenceCheck reports a condition that holds when a read found nothing:
// apierrors.IsNotFound(err) (not negated), x == nil for a non-error x (a
// cached Get that set it to nil, a lookup in a cached list), len(x) == 0.
func (p pass) absenceCheck(cond ast.Expr) bool {
	switch c := ast.Unparen(cond).(type) {
	case *ast.CallExpr:
		return p.isErrPredicate(c, "IsNotFound") || p.notFoundPredicate(c)
	case *ast.BinaryExpr:
		switch c.Op {
		case token.LAND:
			return p.absenceCheck(c.X) || p.absenceCheck(c.Y)
		case token.EQL:
			if id, ok := ast.Unparen(c.Y).(*ast.Ident); ok && id.Name == "nil" {
				// A variable or a lookup; a field of an object that was
				// read (sa.DeletionTimestamp == nil, role.Rules == nil)
				// says nothing of absence, but a field holding an object
				// that was read (resources.Deployment == nil, CloudNativePG's
				// pooler) does.
				switch ast.Unparen(c.X).(type) {
				case *ast.Ident, *ast.IndexExpr:
				case *ast.SelectorExpr:
					if !isObjectPointer(p.TypesInfo.TypeOf(c.X)) {
						return false
					}
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

// listedSkipped reports a statement before node in block that skips the
// rest when a key is in a map of what a cached List found — `if _, ok :=
// existing[name]; ok { continue }` (LeaderWorkerSet's scalers): node runs
// only for names the List did not find.
func (p pass) listedSkipped(block *ast.BlockStmt, node ast.Node, outer []ast.Node) bool {
	for _, ifs := range leavingIfs(block, node) {
		if p.listedLookup(ifs, append(outer, block), false) {
			return true
		}
	}
	return false
}

// leavingIfs are the if statements of block before the one that holds
// node that end in a return (or, with orContinue, a continue), with the
// else ifs of a chain all of whose branches do but a last else: node runs
// only where each one's condition was false.
func leavingIfs(block *ast.BlockStmt, node ast.Node) []*ast.IfStmt {
	var out []*ast.IfStmt
	for _, st := range block.List {
		if check.ContainsNode(st, node) {
			break
		}
		ifs, ok := st.(*ast.IfStmt)
		if !ok {
			continue
		}
		// An if, or a chain of else ifs, every branch of which leaves but
		// a last else: past it, every condition was false
		// (`if err == nil { return } else if !IsNotFound(err) { return }`).
		var chain []*ast.IfStmt
		for cur := ifs; cur != nil; {
			if !leaves(cur.Body) {
				chain = nil
				break
			}
			chain = append(chain, cur)
			cur, _ = cur.Else.(*ast.IfStmt)
		}
		out = append(out, chain...)
	}
	return out
}

// leaves reports a block whose last statement leaves what follows it:
// return, continue or break (in a loop, the iteration's rest is skipped
// as a return skips the function's), goto.
func leaves(body *ast.BlockStmt) bool {
	if len(body.List) == 0 {
		return false
	}
	switch body.List[len(body.List)-1].(type) {
	case *ast.ReturnStmt, *ast.BranchStmt:
		return true
	}
	return false
}

// listedLookup reports `if _, ok := m[k]; ok` (absent: `!ok`) where m is
// a map the enclosing function fills in a loop over the items of a list a
// client List filled.
func (p pass) listedLookup(ifs *ast.IfStmt, outer []ast.Node, absent bool) bool {
	as, ok := ifs.Init.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 2 || len(as.Rhs) != 1 {
		return false
	}
	ix, ok := ast.Unparen(as.Rhs[0]).(*ast.IndexExpr)
	if !ok {
		return false
	}
	okVar := p.ObjectVar(as.Lhs[1])
	cond := ast.Unparen(ifs.Cond)
	if absent {
		u, isNot := cond.(*ast.UnaryExpr)
		if !isNot || u.Op != token.NOT {
			return false
		}
		cond = ast.Unparen(u.X)
	}
	if okVar == nil || p.ObjectVar(cond) != okVar {
		return false
	}
	m := p.ObjectVar(ix.X)
	body := check.FuncBody(outer)
	if m == nil || body == nil {
		return false
	}
	if _, isMap := m.Type().Underlying().(*types.Map); !isMap {
		return false
	}
	listed := p.ListedVars(body, ifs.Pos())
	return flow.Find(body, func(n ast.Node) bool {
		r, ok := n.(*ast.RangeStmt)
		return ok && r.Pos() < ifs.Pos() && listed[p.ItemsOf(r.X)] && flow.Find(r.Body, func(n ast.Node) bool {
			a, ok := n.(*ast.AssignStmt)
			return ok && slices.ContainsFunc(a.Lhs, func(l ast.Expr) bool {
				lix, ok := ast.Unparen(l).(*ast.IndexExpr)
				return ok && p.ObjectVar(lix.X) == m
			})
		})
	})
}

// calledOnlyWhenAbsent reports a node in a function of this package whose
// every call in the package runs only when a read found nothing (the
// Create lives in createRole, called from the NotFound branch of the
// reconcile's cached Get).
func (p pass) calledOnlyWhenAbsent(stack []ast.Node) bool {
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
	if p.GuardedCalls == nil {
		p.GuardedCalls = map[*types.Func][2]int{}
		p.Ins.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, st []ast.Node) bool {
			if !push {
				return true
			}
			callee := p.Callee(n.(*ast.CallExpr))
			if callee == nil || callee.Pkg() != p.Pkg {
				return true
			}
			c := p.GuardedCalls[callee]
			c[0]++
			if p.guarded(st, true) {
				c[1]++
			}
			p.GuardedCalls[callee] = c
			return true
		})
	}
	c := p.GuardedCalls[fn]
	return c[0] > 0 && c[0] == c[1]
}

// guarded reports a node that runs only when a read found nothing: in an
// if or a switch case on an absence check, or after a statement that
// returns unless the read's error is NotFound. inFunc stops at the
// enclosing function; otherwise a closure's enclosing branches count too.
func (p pass) guarded(stack []ast.Node, inFunc bool) bool {
	node := stack[len(stack)-1]
	for i := len(stack) - 2; i >= 0; i-- {
		switch s := stack[i].(type) {
		case *ast.BlockStmt:
			if p.notFoundOnward(s, node, stack[:i]) || p.listedSkipped(s, node, stack[:i]) {
				return true
			}
		case *ast.IfStmt:
			if check.ContainsNode(s.Body, node) && (p.absenceCheck(s.Cond) || p.listedLookup(s, stack[:i], true)) {
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

// createFor finds the Create call whose error x is: in the if's init, or
// the last assignment to x before the if in the function, on the way to
// it (a block that does not hold the if is another branch: zalando's
// `if NotFound(err) { err = Create(...) } else if AlreadyExists(err)`
// tests the read's error).
func (p pass) createFor(ifs *ast.IfStmt, x ast.Expr, body *ast.BlockStmt) *ast.CallExpr {
	if c, ok := ast.Unparen(x).(*ast.CallExpr); ok && p.IsCreateCall(c) {
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
		if b, ok := n.(*ast.BlockStmt); ok && !check.ContainsNode(b, ifs) {
			return false
		}
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 {
			return true
		}
		for _, l := range as.Lhs {
			if lid, ok := l.(*ast.Ident); ok && p.TypesInfo.ObjectOf(lid) == obj {
				if c, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr); ok && p.IsCreateCall(c) {
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

// sameVar reports two expressions naming the same variable.
func sameVar(p pass, a, b ast.Expr) bool {
	va, vb := p.ObjectVar(a), p.ObjectVar(b)
	return va != nil && va == vb
}

// notFoundPredicate reports a call of a predicate named for absence: a
// function returning one bool whose name says NotFound
// (isBackupRepositoryNotFoundError, velero's answer to an empty cached
// List; k8s.io/apimachinery's IsNotFound under another package).
func (p pass) notFoundPredicate(call *ast.CallExpr) bool {
	fn := p.Callee(call)
	if fn == nil {
		return false
	}
	sig := fn.Type().(*types.Signature)
	if sig.Results().Len() != 1 || !types.Identical(sig.Results().At(0).Type(), types.Typ[types.Bool]) {
		return false
	}
	return strings.Contains(strings.ToLower(fn.Name()), "notfound")
}

// createUpdateSite recognises a Create whose AlreadyExists check is ifs
// (stack ends at ifs): the Create, and the calls that follow the check on
// its AlreadyExists path — inside `if IsAlreadyExists(err)`, or after
// `if !IsAlreadyExists(err) { return }` in the same block, writing the
// same object. create is nil where create-update stays silent (no such
// Create, generateName, or a Create only after a NotFound).
func (p pass) createUpdateSite(ifs *ast.IfStmt, stack []ast.Node, body *ast.BlockStmt) (create *ast.CallExpr, writes []*ast.CallExpr) {
	isExists, negated := p.alreadyExistsCheck(ifs.Cond)
	if isExists == nil || flow.SetsField(body, "GenerateName") || p.afterNotFound(stack) {
		return nil, nil
	}
	if create = p.createFor(ifs, isExists.Args[0], body); create == nil {
		return nil, nil
	}
	if !negated {
		return create, check.Calls(ifs.Body)
	}
	// if !IsAlreadyExists(err) { return err } — then an Update after it
	// is create-update; nothing after it, AlreadyExists is ignored. On a
	// path run only for AlreadyExists, any write counts (a Get of the
	// existing object, then its Update).
	onlyExists := p.alreadyExistsPath(ifs, stack)
	if block, i := check.EnclosingBlock(stack, ifs); block != nil {
		for _, s := range block.List[i+1:] {
			for _, c := range check.Calls(s) {
				if p.writesSameObject(c, create) || (onlyExists != nil && p.IsWriteCall(c) && (p.ClientMethod(c) != "" || flow.ClientsetMethod(p.TypesInfo, c) != "")) {
					writes = append(writes, c)
				}
			}
		}
	}
	return create, writes
}

// inClosure reports whether n lies in a function literal of body.
func inClosure(body *ast.BlockStmt, n ast.Node) bool {
	return flow.Find(body, func(m ast.Node) bool { lit, ok := m.(*ast.FuncLit); return ok && check.ContainsNode(lit, n) })
}
