package check

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/flow"
)

func runUpdateFromScratch(p *pass) {
	p.ins.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		call := n.(*ast.CallExpr)
		if !push || p.inTest(call) {
			return true
		}
		if p.clientMethod(call) != "Update" {
			p.updateCachedThrough(call, stack)
			return true
		}
		if len(call.Args) < 2 {
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
				d := diag(call.Pos(), contract.CategoryUpdateCachedChurning,
					"Update of a "+kind+" read from the cache: another controller keeps writing it (status, scale, endpoints), so the copy is often stale and the write 409s",
					contract.ApplyChanges(kind)+": apply what the code changed, under a field manager of its own, without a resourceVersion",
					ensures(kind, false))
				var why string
				d.SuggestedFixes, why = p.updateCachedFix(call, stack, body, v)
				p.report(withWhy(d, why))
			}
			return true
		}
		if v == nil || body == nil || !builtFromLiteral(p, body, v) || flow.SetsResourceVersion(body) {
			return true
		}
		if p.partOfCreateUpdate(call, stack, body) {
			return true // one finding per write site: create-update reports it
		}
		t := ensures(p.kindOf(call.Args[1]), false)
		p.report(diag(call.Pos(), contract.CategoryUpdateFromScratch,
			"Update of an object built from scratch: without a resourceVersion it overwrites every field other controllers set, and with a stale one it 409s",
			helper(t)+": apply only the fields you own", t))
		return true
	})
}

// updateCachedThrough reports a call that hands an object read from the
// cache, of a kind other controllers keep writing, to a function that
// Updates it (flow's summary of the callee): the Update 409s as one in
// this function would. No fix: the write is in the callee, which other
// callers may share.
func (p *pass) updateCachedThrough(call *ast.CallExpr, stack []ast.Node) {
	callee := p.callee(call)
	s := p.flow.Of(callee)
	body := funcBody(stack)
	if s == nil || body == nil {
		return
	}
	type handed struct {
		kind string
		read bool
	}
	var args []handed
	for _, i := range s.UpdatesParams {
		if i < len(call.Args) {
			v := p.objectVar(call.Args[i])
			args = append(args, handed{p.kindOf(call.Args[i]), v != nil && p.readInFunc(body, v, call.Pos())})
		}
	}
	for _, i := range s.UpdatesItems {
		if i < len(call.Args) {
			kind, read := p.listedItems(body, call.Args[i], call.Pos())
			args = append(args, handed{kind, read})
		}
	}
	for _, a := range args {
		kind := a.kind
		if !a.read || !writtenByOthers[kind] {
			continue
		}
		d := diag(call.Pos(), contract.CategoryUpdateCachedChurning,
			"Update of a "+kind+" read from the cache, in "+callee.Name()+", which this call hands it to: another controller keeps writing it (status, scale, endpoints), so the copy is often stale and the write 409s",
			contract.ApplyChanges(kind)+": apply what the code changed, under a field manager of its own, without a resourceVersion",
			ensures(kind, false))
		p.report(withWhy(d, "the Update is in "+callee.Name()+", which other callers may share: rewrite it by hand with "+contract.ApplyChanges(kind)))
		return // one finding per call
	}
}

// listedItems reports whether e holds the items of a list a client List
// filled in body before pos (list.Items, or the list itself), and the
// kind of the items.
func (p *pass) listedItems(body *ast.BlockStmt, e ast.Expr, pos token.Pos) (kind string, read bool) {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok {
		e = ast.Unparen(u.X)
	}
	v := p.itemsOf(e)
	if v == nil {
		v = p.objectVar(e)
	}
	if v == nil || !p.listedVars(body, pos)[v] {
		return "", false
	}
	if sl, ok := v.Type().Underlying().(*types.Slice); ok {
		// The items themselves, returned by a function's List.
		if n, ok := types.Unalias(deref(sl.Elem())).(*types.Named); ok {
			return n.Obj().Name(), true
		}
		return "", false
	}
	t := v.Type()
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return "", false
	}
	for i := 0; i < st.NumFields(); i++ {
		if f := st.Field(i); f.Name() == "Items" {
			if sl, ok := f.Type().Underlying().(*types.Slice); ok {
				if n, ok := types.Unalias(sl.Elem()).(*types.Named); ok {
					return n.Obj().Name(), true
				}
			}
		}
	}
	return "", false
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
				id, ok := l.(*ast.Ident)
				if !ok || p.TypesInfo.ObjectOf(id) != v {
					continue
				}
				rhs, result := as.Rhs[0], i // x, err := newX(...)
				if len(as.Rhs) == len(as.Lhs) {
					rhs, result = as.Rhs[i], 0
				}
				if flow.IsLiteral(rhs) {
					found = true
				} else if call, ok := ast.Unparen(rhs).(*ast.CallExpr); ok {
					// A constructor of the module that returns what it
					// built (flow's summary).
					if s := p.flow.Of(p.callee(call)); s != nil && slices.Contains(s.ReturnsBuilt, result) {
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}
