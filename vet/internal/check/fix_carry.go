package check

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// A mutate function that carries values forward from the live object
// copies them, once the object exists, into the desired object the
// function then assigns whole (network-services-operator's Gateway, whose
// listener hostnames another controller sets):
//
//	if !gateway.CreationTimestamp.IsZero() {
//		if l := gatewayutil.GetListenerByName(gateway.Spec.Listeners, "default-http"); l != nil {
//			gatewayutil.SetListener(desired.gateway, *l)
//		}
//	}
//	gateway.Spec = desired.gateway.Spec
//
// With an Update that is needed: the whole spec is written, and what
// another writer set in it would be overwritten. An apply sends only the
// desired object's fields and leaves those another writer set that it does
// not send alone, so the block goes: the values it carried stop being sent.
// -fix drops such a block when all of this holds, else it declines, saying
// which does not:
//
//   - it runs only once the object exists (its condition tests the
//     object's creationTimestamp, resourceVersion or uid), with no init
//     and no else;
//   - it only reads: the live object, its own locals, package-level
//     functions and constants; and it only writes its locals and the
//     desired value (a sink: desired.gateway above), by assignment or as
//     a call's argument — not a field of it set whole to the live
//     object's (desired.Spec.Rules = role.Spec.Rules: a field set only at
//     creation, which the apply would assert from then on);
//   - each sink is assigned to the object later in the mutate function
//     (gateway.Spec = desired.gateway.Spec), so what the block wrote
//     there only ever reached the write;
//   - nothing reads a sink's variable after the write, so no later code
//     sees it without the values.

// The reasons a block that runs once the object exists is kept.
const (
	whyCarryWhole = "the mutate function sets a field, once the object exists, to the live object's (a field set only at creation): " +
		"an apply would assert it from then on — send it in an apply of its own with ssaensure.CreateOnly(), by hand (docs/vet.md, \"CreateOrUpdate by hand\")"
	whyCarryRead = "the mutate function carries values forward from the live object into a value that is read after the write, which would then see it without them: " +
		"drop the block by hand once nothing needs them (docs/vet.md, \"CreateOrUpdate by hand\")"
)

// carryForward reports whether s, a statement of the mutate function of
// in's variable, is such a block, given the statements after it (rest),
// the CreateOrUpdate statement as and the stack of its call. A block that
// runs once the object exists and is not one gets its reason; any other
// statement gets "".
func (p *Pass) carryForward(s *ast.IfStmt, in *literalIntent, rest []ast.Stmt, as ast.Stmt, stack []ast.Node) (bool, string) {
	if in.variable == nil || s.Init != nil || s.Else != nil || !p.existence(s.Cond, in.variable) {
		return false, ""
	}
	c := &carry{p: p, v: in.variable, locals: map[types.Object]bool{}, sinks: map[string]*types.Var{}}
	if !c.stmts(s.Body.List) || len(c.sinks) == 0 {
		if c.whole {
			return false, whyCarryWhole
		}
		return false, whyCarryForward
	}
	for text, root := range c.sinks {
		if !p.assignedLater(text, in.variable, rest) {
			return false, whyCarryForward
		}
		body := declaringBody(stack, root)
		if body == nil {
			return false, whyCarryForward
		}
		if p.readAfter(body, as.End(), root, text) {
			return false, whyCarryRead
		}
	}
	return true, ""
}

// readAfter reports whether body reads, after pos, the sink text of
// root's variable: the variable itself, a field path that holds the sink
// or lies within it, or a method of a value that holds it. Other fields
// of the variable (desired.httpRoute for the sink desired.gateway) are
// apart from the sink.
func (p *Pass) readAfter(body *ast.BlockStmt, pos token.Pos, root *types.Var, text string) bool {
	sink := strings.Split(text, ".")
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found || n == nil || n.End() <= pos {
			return !found
		}
		switch n := n.(type) {
		case *ast.SelectorExpr:
			// The chain from the variable out, up to its first method.
			var chain []*ast.SelectorExpr
			var e ast.Expr = n
			for {
				sel, ok := e.(*ast.SelectorExpr)
				if !ok {
					break
				}
				chain = append([]*ast.SelectorExpr{sel}, chain...)
				e = ast.Unparen(sel.X)
			}
			id, ok := e.(*ast.Ident)
			if !ok || p.TypesInfo.Uses[id] != root || id.Pos() <= pos {
				return true
			}
			path := []string{id.Name}
			for _, sel := range chain {
				if s := p.TypesInfo.Selections[sel]; s == nil || s.Kind() != types.FieldVal {
					break
				}
				path = append(path, sel.Sel.Name)
			}
			k := min(len(path), len(sink))
			found = strings.Join(path[:k], ".") == strings.Join(sink[:k], ".")
			return false
		case *ast.Ident:
			found = p.TypesInfo.Uses[n] == root && n.Pos() > pos
		}
		return !found
	})
	return found
}

// existence reports whether cond is a test that v exists:
// !v.CreationTimestamp.IsZero(), v.ResourceVersion != "", v.UID != ""
// (or their getters).
func (p *Pass) existence(cond ast.Expr, v *types.Var) bool {
	cond = ast.Unparen(cond)
	field := func(e ast.Expr, names ...string) bool {
		e = ast.Unparen(e)
		if call, ok := e.(*ast.CallExpr); ok && len(call.Args) == 0 {
			e = call.Fun
		}
		sel, ok := e.(*ast.SelectorExpr)
		if !ok || p.ObjectVar(sel.X) != v {
			return false
		}
		for _, n := range names {
			if sel.Sel.Name == n {
				return true
			}
		}
		return false
	}
	switch c := cond.(type) {
	case *ast.UnaryExpr:
		call, ok := ast.Unparen(c.X).(*ast.CallExpr)
		if c.Op != token.NOT || !ok || len(call.Args) != 0 {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "IsZero" && field(sel.X, "CreationTimestamp", "GetCreationTimestamp")
	case *ast.BinaryExpr:
		lit, ok := ast.Unparen(c.Y).(*ast.BasicLit)
		return c.Op == token.NEQ && ok && lit.Value == `""` && field(c.X, "ResourceVersion", "GetResourceVersion", "UID", "GetUID")
	}
	return false
}

// assignedLater reports whether one of rest assigns v a field of the sink
// text (v.Spec = desired.gateway.Spec for desired.gateway).
func (p *Pass) assignedLater(text string, v *types.Var, rest []ast.Stmt) bool {
	for _, st := range rest {
		as, ok := st.(*ast.AssignStmt)
		if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			continue
		}
		lhs, ok := ast.Unparen(as.Lhs[0]).(*ast.SelectorExpr)
		if !ok || p.ObjectVar(lhs.X) != v {
			continue
		}
		rhs := types.ExprString(ast.Unparen(as.Rhs[0]))
		if rhs == text || strings.HasPrefix(rhs, text+".") {
			return true
		}
	}
	return false
}

// carry walks a carry-forward block.
type carry struct {
	p      *Pass
	v      *types.Var
	locals map[types.Object]bool
	sinks  map[string]*types.Var // sink text → its root variable
	whole  bool                  // a field set whole to the live object's was met
}

func (c *carry) stmts(list []ast.Stmt) bool {
	for _, st := range list {
		if !c.stmt(st) {
			return false
		}
	}
	return true
}

func (c *carry) stmt(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok == token.DEFINE {
			for _, r := range st.Rhs {
				if !c.reads(r) {
					return false
				}
			}
			for _, l := range st.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					if o := c.p.TypesInfo.Defs[id]; o != nil {
						c.locals[o] = true
					}
				}
			}
			return true
		}
		if st.Tok != token.ASSIGN {
			return false
		}
		for _, r := range st.Rhs {
			if !c.reads(r) {
				return false
			}
		}
		for i, l := range st.Lhs {
			if id, ok := ast.Unparen(l).(*ast.Ident); ok && c.locals[c.p.TypesInfo.Uses[id]] {
				continue
			}
			if i < len(st.Rhs) && c.wholeField(l, st.Rhs[i]) {
				// desired.Spec.X = v.Spec.X: a field kept as the live
				// object has it, set only at creation, which the apply
				// would now assert; not a carry this rule drops.
				c.whole = true
				return false
			}
			if !c.sink(l) {
				return false
			}
		}
		return true
	case *ast.IfStmt:
		if st.Init != nil && !c.stmt(st.Init) {
			return false
		}
		if !c.reads(st.Cond) || !c.stmts(st.Body.List) {
			return false
		}
		switch e := st.Else.(type) {
		case nil:
			return true
		case *ast.BlockStmt:
			return c.stmts(e.List)
		case *ast.IfStmt:
			return c.stmt(e)
		}
		return false
	case *ast.RangeStmt:
		if st.Tok != token.DEFINE || !c.reads(st.X) {
			return false
		}
		for _, e := range []ast.Expr{st.Key, st.Value} {
			if id, ok := e.(*ast.Ident); ok {
				if o := c.p.TypesInfo.Defs[id]; o != nil {
					c.locals[o] = true
				}
			}
		}
		return c.stmts(st.Body.List)
	case *ast.ExprStmt:
		// F(sink, values...): a call that writes the sink.
		call, ok := ast.Unparen(st.X).(*ast.CallExpr)
		if !ok || !c.reads(call.Fun) {
			return false
		}
		wrote := false
		for _, a := range call.Args {
			if c.reads(a) {
				continue
			}
			if !c.sink(a) {
				return false
			}
			wrote = true
		}
		return wrote
	}
	return false
}

// wholeField reports whether lhs = rhs assigns a sink's field the live
// object's same field (desired.role.Rules = role.Rules).
func (c *carry) wholeField(lhs, rhs ast.Expr) bool {
	l, ok := ast.Unparen(lhs).(*ast.SelectorExpr)
	r, ok2 := ast.Unparen(rhs).(*ast.SelectorExpr)
	if !ok || !ok2 {
		return false
	}
	base := r.X // the live object, under the field path
	for {
		sel, ok := ast.Unparen(base).(*ast.SelectorExpr)
		if !ok {
			break
		}
		base = sel.X
	}
	if c.p.ObjectVar(base) != c.v {
		return false
	}
	path := strings.TrimPrefix(types.ExprString(r), types.ExprString(base)) // .Spec.Rules
	return strings.HasSuffix(types.ExprString(l), path)
}

// sink records e, a value the block writes outside its locals: a
// selector or an address of one, rooted at a local variable of the
// enclosing function that is not the object (desired.gateway,
// &desired.Spec).
func (c *carry) sink(e ast.Expr) bool {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	root := e
	for {
		sel, ok := root.(*ast.SelectorExpr)
		if !ok {
			break
		}
		root = sel.X
	}
	id, ok := root.(*ast.Ident)
	if !ok {
		return false
	}
	o, ok := c.p.TypesInfo.Uses[id].(*types.Var)
	if !ok || o == c.v || c.locals[o] || o.IsField() || o.Parent() == nil || o.Parent() == o.Pkg().Scope() {
		return false
	}
	c.sinks[types.ExprString(e)] = o
	return true
}

// reads reports whether e reads only the object, the block's locals,
// constants, package-level functions and types, and calls of those.
func (c *carry) reads(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			ok = false
		case *ast.SelectorExpr:
			if _, isPkg := c.p.TypesInfo.Uses[identOf(n.X)].(*types.PkgName); isPkg {
				return false // pkg.Name: a package's function, type or constant
			}
			ast.Inspect(n.X, func(m ast.Node) bool {
				if ok {
					if id, isID := m.(*ast.Ident); isID {
						ok = c.readable(id)
					}
				}
				return ok
			})
			return false
		case *ast.Ident:
			ok = c.readable(n)
		}
		return ok
	})
	return ok
}

// readable reports whether the block may read id.
func (c *carry) readable(id *ast.Ident) bool {
	switch o := c.p.TypesInfo.Uses[id].(type) {
	case nil:
		return true // a field name of a key-value element
	case *types.Var:
		return o == c.v || c.locals[o] || o.IsField() // a field: a key of a literal
	case *types.Const, *types.TypeName, *types.Nil, *types.Builtin:
		return true
	case *types.Func:
		return o.Parent() == o.Pkg().Scope()
	}
	return false
}

func identOf(e ast.Expr) *ast.Ident {
	id, _ := ast.Unparen(e).(*ast.Ident)
	return id
}
