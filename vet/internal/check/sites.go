package check

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"github.com/ssagen/ssagen/vet/internal/flow"
)

var Churning = map[string]bool{"Pod": true, "Deployment": true, "ReplicaSet": true, "StatefulSet": true, "DaemonSet": true, "Job": true}

// WrittenByOthers are kinds other controllers keep writing: the churning
// kinds, nodes (kubelet), Services (load-balancer status).
var WrittenByOthers = func() map[string]bool {
	m := map[string]bool{"Node": true, "Service": true}
	for k := range Churning {
		m[k] = true
	}
	return m
}()

// Definition is the expression a variable of the package was defined
// with (its := or var with a value), when it is assigned nowhere else —
// a local in its function, a package-level variable in any file of the
// package (`var childPredicate = predicate.Funcs{...}`); nil otherwise.
func (p *Pass) Definition(id *ast.Ident) ast.Expr {
	v, ok := p.TypesInfo.Uses[id].(*types.Var)
	if !ok || v.Pkg() != p.Pkg || v.IsField() {
		return nil
	}
	pkgLevel := v.Parent() == p.Pkg.Scope()
	var def ast.Expr
	assigned := 0
	for _, f := range p.Files {
		if !pkgLevel && (f.Pos() > v.Pos() || v.Pos() > f.End()) {
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

// IsBuilderPkg and Deref are flow's.
var IsBuilderPkg, Deref = flow.IsBuilderPkg, flow.Deref

// IsStatusWriter reports X.Status() (or X.SubResource("status")).
func (p *Pass) IsStatusWriter(e ast.Expr) bool { return flow.IsStatusWriter(e) }

// ReadInFunc reports whether v holds an object read from the cache
// earlier in body: a client Get into it, a result of a function that
// returns what it read with Get (flow's summaries), an item of a list
// a client List filled (v := &list.Items[i], for _, v := range
// list.Items), or what a field holds that the package stores objects
// read from the cache in (v := rc.statefulSets[i], readFields).
func (p *Pass) ReadInFunc(body *ast.BlockStmt, v *types.Var, before token.Pos) bool {
	if body == nil || v == nil {
		return false
	}
	if p.LastRead(body, v, before) != nil {
		return true
	}
	listed := p.ListedVars(body, before)
	isItem := func(e ast.Expr) bool {
		e = ast.Unparen(e)
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = ast.Unparen(u.X)
		}
		if ix, ok := e.(*ast.IndexExpr); ok {
			e = ix.X
		}
		return listed[p.ItemsOf(e)] || listed[p.heldItems(e)]
	}
	read := false
	ast.Inspect(body, func(n ast.Node) bool {
		if read || n == nil || n.Pos() >= before {
			return false
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if p.ObjectVar(l) != v {
					continue
				}
				if len(n.Rhs) == len(n.Lhs) && (isItem(n.Rhs[i]) || p.readFields()[p.FieldOf(n.Rhs[i])]) {
					read = true
				}
				if len(n.Rhs) == 1 {
					if c, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr); ok {
						if s := p.Flow.Of(p.Callee(c)); s != nil && slices.Contains(s.ReturnsRead, i) {
							read = true
						}
					}
				}
			}
		case *ast.RangeStmt:
			if n.Value != nil && p.ObjectVar(n.Value) == v && isItem(n.X) {
				read = true
			}
		}
		return !read
	})
	return read
}

// ItemsOf is the variable whose items e names (list.Items), or nil.
func (p *Pass) ItemsOf(e ast.Expr) *types.Var {
	if sel, ok := ast.Unparen(e).(*ast.SelectorExpr); ok && sel.Sel.Name == "Items" {
		return p.ObjectVar(sel.X)
	}
	return nil
}

// ListedVars are the variables of body a client List filled before pos,
// and those holding the items a function of the module returned from
// its List (items, err := r.listX(ctx): flow's returns listed).
func (p *Pass) ListedVars(body *ast.BlockStmt, before token.Pos) map[*types.Var]bool {
	out := map[*types.Var]bool{}
	for _, c := range Calls(body) {
		if c.Pos() < before && p.ClientMethod(c) == "List" && len(c.Args) > 1 {
			if v := p.ObjectVar(c.Args[1]); v != nil {
				out[v] = true
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || as.Pos() >= before || len(as.Rhs) != 1 {
			return true
		}
		c, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return true
		}
		if s := p.Flow.Of(p.Callee(c)); s != nil {
			for _, i := range s.ReturnsListed {
				if i < len(as.Lhs) {
					if v := p.ObjectVar(as.Lhs[i]); v != nil {
						out[v] = true
					}
				}
			}
		}
		return true
	})
	return out
}

// BuiltFromLiteral reports v := &T{...} (or T{...}) in body.
func BuiltFromLiteral(p *Pass, body *ast.BlockStmt, v *types.Var) bool {
	return flow.Find(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return false
		}
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
				return true
			}
			if call, ok := ast.Unparen(rhs).(*ast.CallExpr); ok {
				// A constructor of the module that returns what it built
				// (flow's summary).
				if s := p.Flow.Of(p.Callee(call)); s != nil && slices.Contains(s.ReturnsBuilt, result) {
					return true
				}
			}
		}
		return false
	})
}

// heldItems is the variable e names when it holds items itself (a slice
// a function returned from its List), or nil.
func (p *Pass) heldItems(e ast.Expr) *types.Var {
	v := p.ObjectVar(e)
	if v == nil {
		return nil
	}
	if _, ok := v.Type().Underlying().(*types.Slice); !ok {
		return nil
	}
	return v
}

// readFields are the struct fields the package stores objects read from
// the cache in — `rc.statefulSets[idx] = statefulSet` after a Get, in one
// method, read back in another (cass-operator's reconciliation context).
// While they are being found, none are (ReadInFunc asks).
func (p *Pass) readFields() map[*types.Var]bool {
	if p.fieldsRead != nil {
		return p.fieldsRead
	}
	p.fieldsRead = map[*types.Var]bool{}
	found := map[*types.Var]bool{}
	for _, fd := range p.SourceFuncs() {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != len(as.Rhs) {
				return true
			}
			for i, l := range as.Lhs {
				if f := p.FieldOf(l); f != nil && !found[f] {
					if v := p.ObjectVar(as.Rhs[i]); v != nil && p.ReadInFunc(fd.Body, v, as.Pos()) {
						found[f] = true
					}
				}
			}
			return true
		})
	}
	p.fieldsRead = found
	return found
}

// BuiltField reports a struct field of the package that holds objects
// built from scratch (issue 55): every value the package puts in it — by
// assignment, or as a composite literal's field — is a literal or a
// constructor's result that it built (flow's summary), and no client
// read fills it (a Get into it, or a value that was read). A desired
// object made where the reconciler is made and written in Reconcile.
func (p *Pass) BuiltField(f *types.Var) bool {
	if p.fieldsBuilt == nil {
		p.fieldsBuilt = p.builtFields()
	}
	return p.fieldsBuilt[f]
}

func (p *Pass) builtFields() map[*types.Var]bool {
	built, spoiled := map[*types.Var]bool{}, map[*types.Var]bool{}
	judge := func(f *types.Var, value ast.Expr, result int) {
		switch {
		case flow.IsLiteral(value):
			built[f] = true
		default:
			if call, ok := ast.Unparen(value).(*ast.CallExpr); ok {
				if s := p.Flow.Of(p.Callee(call)); s != nil && slices.Contains(s.ReturnsBuilt, result) {
					built[f] = true
					return
				}
			}
			spoiled[f] = true
		}
	}
	for _, fd := range p.SourceFuncs() {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					f := p.FieldOf(l)
					if f == nil {
						continue
					}
					if len(n.Rhs) == len(n.Lhs) {
						judge(f, n.Rhs[i], 0)
					} else if len(n.Rhs) == 1 {
						judge(f, n.Rhs[0], i)
					}
				}
			case *ast.CompositeLit:
				for _, el := range n.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					if id, ok := kv.Key.(*ast.Ident); ok {
						if f, ok := p.TypesInfo.Uses[id].(*types.Var); ok && f.IsField() && f.Pkg() == p.Pkg {
							judge(f, kv.Value, 0)
						}
					}
				}
			case *ast.CallExpr:
				// A read into the field: Get(ctx, key, s.f), List(ctx, s.f).
				if m := p.ClientMethod(n); m == "Get" || m == "List" {
					for _, a := range n.Args {
						if f := p.FieldOf(a); f != nil {
							spoiled[f] = true
						}
					}
				}
			}
			return true
		})
	}
	for f := range spoiled {
		delete(built, f)
	}
	return built
}

// FieldOf is the struct field of the package that e selects (x.f), or
// an element of (x.f[i]); nil otherwise.
func (p *Pass) FieldOf(e ast.Expr) *types.Var {
	e = ast.Unparen(e)
	if ix, ok := e.(*ast.IndexExpr); ok {
		e = ast.Unparen(ix.X)
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	f, ok := p.TypesInfo.Uses[sel.Sel].(*types.Var)
	if !ok || !f.IsField() || f.Pkg() != p.Pkg {
		return nil
	}
	return f
}

// LastRead is the last Get into v before pos in body.
func (p *Pass) LastRead(body *ast.BlockStmt, v *types.Var, pos token.Pos) *ast.CallExpr {
	var last *ast.CallExpr
	for _, c := range Calls(body) {
		if c.Pos() < pos && p.ClientMethod(c) == "Get" && len(c.Args) > 2 && p.ObjectVar(c.Args[2]) == v {
			last = c
		}
	}
	return last
}
