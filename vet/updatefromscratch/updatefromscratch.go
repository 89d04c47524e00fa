// Package updatefromscratch defines an analyzer of ssagen vet that reports Update of an object built in the function with no read
// and no resourceVersion: it overwrites every field other writers set, or
// 409s. The fix is Ensure<Kind> with the fields the controller owns.
// An Update that is the second half of a Create → AlreadyExists → Update
// is createupdate's finding, not this one.
package updatefromscratch

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/createupdate"
	"github.com/ssagen/ssagen/vet/internal/check"
	"github.com/ssagen/ssagen/vet/internal/flow"
)

// Doc is the analyzer's one-line description.
const Doc = "Update of an object built from scratch: overwrites every field, or 409s"

// Analyzer is the analyzer (check.Analyzer).
var Analyzer = check.Analyzer("updatefromscratch", Doc, run, createupdate.Analyzer)

// pass is the analyzer's pass; its methods are the analyzer's matchers.
type pass struct{ *check.Pass }

// run reports each Update of an object built from scratch, except the
// writes a create-update finding covers, and each Update of a cached
// object of a kind other controllers keep writing.
func run(cp *check.Pass) {
	p := pass{cp}
	createUpdates := p.ResultOfAnalyzer(createupdate.Analyzer)
	p.SourceCalls(func(call *ast.CallExpr, stack []ast.Node) {
		// A typed client's Update: its Get reads the API server, so an
		// Update after it is optimistic locking; one of what was built
		// from scratch is as here, with no automatic fix.
		typed := flow.ClientsetMethod(p.TypesInfo, call) == "Update"
		if !typed && p.ClientMethod(call) != "Update" {
			p.updateCachedThrough(call, stack)
			return
		}
		if len(call.Args) < 2 {
			return
		}
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && p.IsStatusWriter(sel.X) {
			return
		}
		body := check.FuncBody(stack)
		v := p.ObjectVar(call.Args[1])
		if v != nil && body != nil && !typed && p.ReadInFunc(body, v, call.Pos()) {
			// Optimistic locking on purpose — unless another controller
			// keeps writing the object: then the cached copy is often stale.
			if kind := p.KindOf(call.Args[1]); check.WrittenByOthers[kind] {
				d := check.NewFinding(call.Pos(), contract.CategoryUpdateCachedChurning,
					"Update of a "+kind+" read from the cache: another controller keeps writing it (status, scale, endpoints), so the copy is often stale and the write 409s",
					contract.ApplyChanges(kind)+": apply what the code changed, under a field manager of its own, without a resourceVersion",
					check.Ensures(kind, false))
				p.ReportFinding(d.Fixed(p.updateCachedFix(call, stack, body, v)))
			}
			return
		}
		if f := p.FieldOf(call.Args[1]); v == nil && f != nil && p.BuiltField(f) && !flow.SetsField(body, "ResourceVersion") {
			// Built elsewhere (a constructor, where the reconciler is
			// made) and kept in a field: no fix rewrites both places.
			t := check.Ensures(p.KindOf(call.Args[1]), false)
			d := check.NewFinding(call.Pos(), contract.CategoryUpdateFromScratch,
				"Update of an object built from scratch (kept in the field "+f.Name()+"): without a resourceVersion it overwrites every field other controllers set, and with a stale one it 409s",
				check.HelperFix(t)+": apply only the fields you own", t)
			p.ReportFinding(check.WithWhy(d, "the object is built where the field "+f.Name()+" is set, apart from this write: build its apply configuration there and ensure it here by hand"))
			return
		}
		if v == nil || body == nil || !check.BuiltFromLiteral(p.Pass, body, v) || flow.SetsField(body, "ResourceVersion") {
			return
		}
		if createUpdates.Covers(call) {
			return // one finding per write site: create-update reports it
		}
		t := check.Ensures(p.KindOf(call.Args[1]), false)
		d := check.NewFinding(call.Pos(), contract.CategoryUpdateFromScratch,
			"Update of an object built from scratch: without a resourceVersion it overwrites every field other controllers set, and with a stale one it 409s",
			check.HelperFix(t)+": apply only the fields you own", t)
		if typed {
			d = check.WithWhy(d, "the Update is a client-go typed client's, and the helpers write through controller-runtime's client: give them one and call the helper by hand (docs/vet.md, \"Through client-go's typed clients\")")
		}
		p.ReportFinding(d)
	})
}

// updateCachedThrough reports a call that hands an object read from the
// cache, of a kind other controllers keep writing, to a function that
// Updates it (flow's summary of the callee): the Update 409s as one in
// this function would. No fix: the write is in the callee, which other
// callers may share.
func (p pass) updateCachedThrough(call *ast.CallExpr, stack []ast.Node) {
	callee := p.Callee(call)
	s := p.Flow.Of(callee)
	body := check.FuncBody(stack)
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
			v := p.ObjectVar(call.Args[i])
			args = append(args, handed{p.KindOf(call.Args[i]), v != nil && p.ReadInFunc(body, v, call.Pos())})
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
		if !a.read || !check.WrittenByOthers[kind] {
			continue
		}
		d := check.NewFinding(call.Pos(), contract.CategoryUpdateCachedChurning,
			"Update of a "+kind+" read from the cache, in "+callee.Name()+", which this call hands it to: another controller keeps writing it (status, scale, endpoints), so the copy is often stale and the write 409s",
			contract.ApplyChanges(kind)+": apply what the code changed, under a field manager of its own, without a resourceVersion",
			check.Ensures(kind, false))
		p.ReportFinding(check.WithWhy(d, "the Update is in "+callee.Name()+", which other callers may share: rewrite it by hand with "+contract.ApplyChanges(kind)))
		return // one finding per call
	}
}

// listedItems reports whether e holds the items of a list a client List
// filled in body before pos (list.Items, or the list itself), and the
// kind of the items.
func (p pass) listedItems(body *ast.BlockStmt, e ast.Expr, pos token.Pos) (kind string, read bool) {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok {
		e = ast.Unparen(u.X)
	}
	v := p.ItemsOf(e)
	if v == nil {
		v = p.ObjectVar(e)
	}
	if v == nil || !p.ListedVars(body, pos)[v] {
		return "", false
	}
	if sl, ok := v.Type().Underlying().(*types.Slice); ok {
		// The items themselves, returned by a function's List.
		if n, ok := types.Unalias(check.Deref(sl.Elem())).(*types.Named); ok {
			return n.Obj().Name(), true
		}
		return "", false
	}
	st, ok := check.Deref(v.Type()).Underlying().(*types.Struct)
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
