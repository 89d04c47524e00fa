package flow

// This file is the intent-from-meaning rule of ssagen vet -fix for code
// that sets an object in place (a CreateOrUpdate mutate function): what
// the code reads of the object it would need to keep. The runtime runs
// such code on a fresh object and applies what it set, which is the
// write the code meant exactly when it reads nothing of the live object
// but what a fresh object has too. Initialising a nil map or list,
// merging into a map of its own, appending to a list of its own, setting
// the controller reference, computing values that can fail: all mean
// the same on a fresh object. A value read from the live object (a
// default set only when absent, a value carried forward, a loop over
// live items, a decision on whether the object exists that changes what
// is set) is not there on a fresh object: Why names the field and the
// line.

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// Context is what Fresh needs of a package: its types, positions, the
// declarations of its functions, and the summaries of others'.
type Context struct {
	Info *types.Info
	Fset *token.FileSet
	Pkg  *types.Package
	// Decl is the declaration of a function of Pkg (nil: none followed).
	Decl func(*types.Func) *ast.FuncDecl
	// Facts is the summary of a function of another package of the
	// module (nil: none known).
	Facts func(*types.Func) *Summary
}

// NewFresh follows v, the object, through a function's body. body and
// after are the function the call that hands it over is in and that
// call's end, for reads after it (nil: none).
func NewFresh(ctx *Context, v *types.Var, body *ast.BlockStmt, after token.Pos) *Fresh {
	return &Fresh{Context: ctx, roots: map[*types.Var]string{v: ""}, written: map[string]bool{}, body: body, after: after, owners: map[string]bool{}}
}

// Wrote reports whether the statements followed set a field under path
// (a top-level field: "Status").
func (fc *Fresh) Wrote(path string) bool {
	for p := range fc.written {
		if p == path || strings.HasPrefix(p, path+".") {
			return true
		}
	}
	return false
}

// Why is the reason the statements' effect on a fresh object is not
// their effect on the live one, "" when it is.
func (fc *Fresh) Why(list []ast.Stmt) string {
	if why := fc.stmts(list); why != "" {
		return why
	}
	if len(fc.owners) > 1 {
		return fmt.Sprintf("the mutate function checks for another controller than the one it sets (%s): the runtime refuses only an object another controller than the one set holds", strings.Join(slices.Sorted(maps.Keys(fc.owners)), ", "))
	}
	return ""
}

// maxDepth bounds how deep the object is followed into the package's
// own functions it is handed to.
const maxDepth = 3

const controllerRuntimePkg = "sigs.k8s.io/controller-runtime"

const controllerutilPkg = "sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

// IsNil reports the identifier nil.
func IsNil(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && id.Name == "nil"
}

// ZeroExpr reports a literal zero value: nil, false, 0, "", an empty
// composite literal or its address.
func ZeroExpr(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return e.Name == "nil" || e.Name == "false"
	case *ast.CompositeLit:
		return len(e.Elts) == 0
	case *ast.UnaryExpr:
		return e.Op == token.AND && ZeroExpr(e.X)
	case *ast.BasicLit:
		return e.Value == "0" || e.Value == `""`
	}
	return false
}

// Fresh follows an object through a function that sets it, to tell
// whether its effect on a fresh object (one with only a name and a
// namespace) is its effect on the live one: whether it reads nothing of
// the object it would need to keep (Why). Roots are the variables that
// hold the object or a part of it (the path below the object), written
// the paths the function has set so far.
type Fresh struct {
	*Context
	roots   map[*types.Var]string
	written map[string]bool
	depth   int
	// body is the function the call is in, after the call's end.
	body  *ast.BlockStmt
	after token.Pos
	// guard: a condition that checks for another controller is being
	// read, where the object's owner references and creation time are
	// what the live object has (the runtime hands an object another
	// controller holds to the mutate function, as CreateOrUpdate did).
	guard bool
	// owners are the owners the function checks against or sets, as
	// written.
	owners map[string]bool
	// args are the arguments a followed function's parameters took.
	args map[*types.Var]string
	// checked: the guard read the object's owner references.
	checked *bool
	// kept are the locals that hold a value read from the live object.
	kept map[*types.Var]keptRead
}

// keptRead is a live value a local holds: its source, where it was read.
type keptRead struct {
	text string
	at   ast.Expr
}

// liveRead is the source of e when e reads a scalar or a pointer of the
// object (a field, or a key of its map) the function has not set.
func (fc *Fresh) liveRead(e ast.Expr) (string, bool) {
	x := ast.Unparen(e)
	if ix, ok := x.(*ast.IndexExpr); ok {
		x = ix.X
	}
	path, ok := fc.pathOf(x)
	if !ok || fc.readable(path) {
		return "", false
	}
	return types.ExprString(e), true
}

// keptSet is the kept local v of `v != zero` (or `len(v) > 0`), nil else.
func (fc *Fresh) keptSet(cond ast.Expr) *types.Var {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.NEQ || !ZeroExpr(b.Y) {
		return nil
	}
	id, ok := ast.Unparen(b.X).(*ast.Ident)
	if !ok {
		return nil
	}
	v, _ := fc.Info.Uses[id].(*types.Var)
	if _, kept := fc.kept[v]; !kept {
		return nil
	}
	return v
}

// restores reports a block that only writes v back where it was read,
// with the map it goes into made when missing.
func (fc *Fresh) restores(body *ast.BlockStmt, v *types.Var) bool {
	k := fc.kept[v]
	wrote := false
	for _, st := range body.List {
		switch st := st.(type) {
		case *ast.IfStmt: // if obj.X == nil { obj.X = make(...) }
			path, ok := fc.nilCheck(st.Cond)
			if !ok || st.Else != nil || !fc.initialises(st.Body, path) {
				return false
			}
		case *ast.AssignStmt:
			if len(st.Lhs) != 1 || len(st.Rhs) != 1 || st.Tok != token.ASSIGN {
				return false
			}
			id, ok := ast.Unparen(st.Rhs[0]).(*ast.Ident)
			if !ok || fc.Info.Uses[id] != v || types.ExprString(st.Lhs[0]) != k.text {
				return false
			}
			wrote = true
		default:
			return false
		}
	}
	return wrote
}

func (fc *Fresh) stmts(list []ast.Stmt) string {
	for _, s := range list {
		if why := fc.stmt(s); why != "" {
			return why
		}
	}
	return ""
}

func (fc *Fresh) stmt(s ast.Stmt) string {
	var parts []ast.Node // read in order: expressions, then statements
	switch s := s.(type) {
	case *ast.AssignStmt:
		return fc.assign(s)
	case *ast.IfStmt:
		return fc.ifStmt(s)
	case *ast.TypeSwitchStmt:
		return fc.typeSwitch(s)
	case *ast.ExprStmt:
		return fc.expr(s.X, "")
	case *ast.BlockStmt:
		return fc.stmts(s.List)
	case *ast.ReturnStmt:
		for _, r := range s.Results {
			parts = append(parts, r)
		}
	case *ast.RangeStmt:
		parts = []ast.Node{s.X, s.Body}
	case *ast.ForStmt:
		parts = []ast.Node{s.Init, s.Cond, s.Post, s.Body}
	case *ast.SwitchStmt:
		parts = []ast.Node{s.Init, s.Tag}
		for _, c := range s.Body.List {
			cc := c.(*ast.CaseClause)
			for _, e := range cc.List {
				parts = append(parts, e)
			}
			parts = append(parts, &ast.BlockStmt{List: cc.Body})
		}
	default:
		return fc.node(s)
	}
	for _, part := range parts {
		if b, ok := part.(*ast.BlockStmt); ok && b != nil {
			if why := fc.stmts(b.List); why != "" {
				return why
			}
		} else if why := fc.node(part); why != "" {
			return why
		}
	}
	return ""
}

// typeSwitch: switch o := obj.(type) binds each clause's o to the object.
func (fc *Fresh) typeSwitch(s *ast.TypeSwitchStmt) string {
	if s.Init != nil {
		if why := fc.stmt(s.Init); why != "" {
			return why
		}
	}
	for _, c := range s.Body.List {
		fc.BindSwitch(s, c)
		if why := fc.stmts(c.(*ast.CaseClause).Body); why != "" {
			return why
		}
	}
	return ""
}

// BindSwitch binds the variable of the clause of ts that holds n (switch
// o := obj.(type)) to the object, when ts switches on it.
func (fc *Fresh) BindSwitch(ts *ast.TypeSwitchStmt, n ast.Node) {
	as, ok := ts.Assign.(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 {
		return
	}
	ta, ok := ast.Unparen(as.Rhs[0]).(*ast.TypeAssertExpr)
	if !ok {
		return
	}
	path, ok := fc.pathOf(ta.X)
	if !ok {
		return
	}
	for _, c := range ts.Body.List {
		if c.Pos() <= n.Pos() && n.End() <= c.End() {
			if v, ok := fc.Info.Implicits[c].(*types.Var); ok {
				fc.roots[v] = path
			}
		}
	}
}

// Returned are the function literals fd returns, for a function that
// makes a mutate function (r.mutate(obj, owner)), in the type-switch
// clauses that may run for the object: those whose case names one of
// objs, the types the object may have (all clauses when objs is empty).
// nil when fd returns anything else.
func Returned(info *types.Info, fd *ast.FuncDecl, objs []types.Type) []*ast.FuncLit {
	var out []*ast.FuncLit
	ok := true
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // its own returns are its own
		case *ast.CaseClause:
			if !clauseMatches(info, n, objs) {
				return false
			}
		case *ast.ReturnStmt:
			if len(n.Results) != 1 {
				ok = false
				return false
			}
			if lit, isLit := ast.Unparen(n.Results[0]).(*ast.FuncLit); isLit {
				out = append(out, lit)
			} else if !IsNil(n.Results[0]) {
				ok = false
			}
			return false
		}
		return true
	}
	ast.Inspect(fd.Body, visit)
	if !ok {
		return nil
	}
	return out
}

// clauseMatches reports a case clause that may run for an object of one
// of objs: the default, one naming one of them, any when objs is empty.
func clauseMatches(info *types.Info, cc *ast.CaseClause, objs []types.Type) bool {
	if len(objs) == 0 || len(cc.List) == 0 {
		return true
	}
	for _, e := range cc.List {
		for _, obj := range objs {
			if t := info.TypeOf(e); t != nil && types.Identical(t, obj) {
				return true
			}
		}
	}
	return false
}

// Held are the concrete types the variable v may hold, from every value
// assigned to it in body (a result of a call taken at its index); nil
// when one is not concrete, or v's own type is.
func Held(info *types.Info, body *ast.BlockStmt, v *types.Var) []types.Type {
	if t := v.Type(); !types.IsInterface(t) {
		if _, ptr := t.Underlying().(*types.Pointer); !ptr {
			t = types.NewPointer(t) // handed as &v
		}
		return []types.Type{t}
	}
	if body == nil {
		return nil
	}
	var out []types.Type
	ok := true
	add := func(t types.Type) {
		if t == nil || types.IsInterface(t) {
			ok = false
			return
		}
		for _, o := range out {
			if types.Identical(o, t) {
				return
			}
		}
		out = append(out, t)
	}
	ast.Inspect(body, func(n ast.Node) bool {
		as, isAssign := n.(*ast.AssignStmt)
		if !isAssign || !ok {
			return ok
		}
		for i, lhs := range as.Lhs {
			id, isID := ast.Unparen(lhs).(*ast.Ident)
			if !isID || info.Uses[id] != v && info.Defs[id] != v {
				continue
			}
			switch {
			case len(as.Rhs) == len(as.Lhs):
				add(info.TypeOf(as.Rhs[i]))
			case len(as.Rhs) == 1:
				tuple, isTuple := info.TypeOf(as.Rhs[0]).(*types.Tuple)
				if !isTuple || i >= tuple.Len() {
					ok = false
					return false
				}
				add(tuple.At(i).Type())
			}
		}
		return ok
	})
	if !ok {
		return nil
	}
	return out
}

// node checks every expression of n as a read.
func (fc *Fresh) node(n ast.Node) string {
	if n == nil || n == ast.Node((*ast.BlockStmt)(nil)) {
		return ""
	}
	if s, ok := n.(ast.Stmt); ok {
		switch s.(type) {
		case *ast.AssignStmt, *ast.ExprStmt:
			return fc.stmt(s)
		}
	}
	why := ""
	ast.Inspect(n, func(x ast.Node) bool {
		if e, ok := x.(ast.Expr); ok && why == "" {
			why = fc.expr(e, "")
			return false
		}
		return why == ""
	})
	return why
}

// assign: the right-hand sides are reads (a map or list of the object
// may flow back into the field it came from), then the left-hand sides
// of the object are written.
func (fc *Fresh) assign(s *ast.AssignStmt) string {
	for i, rhs := range s.Rhs {
		target := ""
		if len(s.Lhs) == len(s.Rhs) {
			if path, ok := fc.pathOf(s.Lhs[i]); ok {
				target = path
			} else if id, ok := s.Lhs[i].(*ast.Ident); ok && s.Tok == token.DEFINE {
				// labels := obj.GetLabels(), spec := &obj.Spec: the local
				// holds the field.
				if path, ok := fc.heldPath(rhs); ok {
					if v, ok := fc.Info.Defs[id].(*types.Var); ok {
						fc.roots[v] = path
						continue
					}
				}
				// restartedAt := obj.Spec.Template.Annotations[k]: a live
				// value that may only be written back where it was read
				// (restores).
				if text, ok := fc.liveRead(rhs); ok {
					if v, ok := fc.Info.Defs[id].(*types.Var); ok {
						if fc.kept == nil {
							fc.kept = map[*types.Var]keptRead{}
						}
						fc.kept[v] = keptRead{text: text, at: rhs}
						continue
					}
				}
			}
		}
		if why := fc.expr(rhs, target); why != "" {
			return why
		}
	}
	for _, lhs := range s.Lhs {
		if path, ok := fc.pathOf(lhs); ok {
			fc.written[path] = true
			continue
		}
		// obj.Labels[k] = v: a write into the object's own map.
		if ix, ok := lhs.(*ast.IndexExpr); ok {
			if why := fc.expr(ix.Index, ""); why != "" {
				return why
			}
			if _, ok := fc.pathOf(ix.X); ok {
				continue
			}
		}
		if why := fc.expr(lhs, ""); why != "" {
			return why
		}
	}
	return ""
}

// ifStmt: a condition on the live object is a decision a fresh object
// always takes one way. Two are what an apply means anyway: a nil map or
// list initialised to an empty one, and a branch for objects that exist
// already that only keeps live values (an apply leaves what it does not
// send to its owner).
func (fc *Fresh) ifStmt(s *ast.IfStmt) string {
	if s.Init != nil {
		if why := fc.stmt(s.Init); why != "" {
			return why
		}
	}
	if v := fc.keptSet(s.Cond); v != nil && s.Else == nil && fc.restores(s.Body, v) {
		// if restartedAt != "" { obj...[k] = restartedAt }: on a fresh
		// object the value is not there and the block never runs; the apply
		// leaves the live value, which it does not send, to its owner.
		return ""
	}
	if path, ok := fc.nilCheck(s.Cond); ok && s.Else == nil && fc.initialises(s.Body, path) {
		return ""
	}
	if s.Else == nil && refuses(s.Body) {
		// if another controller holds it { return an error }: on a fresh
		// object it never holds; an object another controller holds is
		// handed to the mutate function as it is live, and its error is
		// the call's.
		g, checked := *fc, false
		g.guard, g.checked = true, &checked
		if why := g.expr(s.Cond, ""); why == "" && checked {
			return fc.stmts(s.Body.List)
		}
	}
	if exists, path, ok := fc.existence(s.Cond); ok {
		kept, ran := s.Body, ast.Stmt(nil)
		if s.Else != nil {
			ran = s.Else
		}
		if !exists {
			if s.Else != nil {
				return fc.at(s.Cond, "the mutate function sets fields apart for an existing object (%s) in an else", path)
			}
			return fc.stmts(s.Body.List)
		}
		if why := fc.keepsOnly(kept); why != "" {
			return why
		}
		if ran != nil {
			return fc.stmt(ran)
		}
		return ""
	}
	if why := fc.expr(s.Cond, ""); why != "" {
		return why
	}
	if why := fc.stmts(s.Body.List); why != "" {
		return why
	}
	if s.Else != nil {
		return fc.stmt(s.Else)
	}
	return ""
}

// nilCheck is the object's path p in `p == nil` or `len(p) == 0`.
func (fc *Fresh) nilCheck(cond ast.Expr) (string, bool) {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.EQL {
		return "", false
	}
	x := ast.Unparen(b.X)
	if call, ok := x.(*ast.CallExpr); ok && len(call.Args) == 1 {
		if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "len" && ZeroExpr(b.Y) {
			x = call.Args[0]
		}
	} else if !IsNil(b.Y) {
		return "", false
	}
	path, ok := fc.pathOf(x)
	return path, ok && fc.container(x)
}

// initialises reports a body that only assigns path an empty map or list.
func (fc *Fresh) initialises(body *ast.BlockStmt, path string) bool {
	if len(body.List) != 1 {
		return false
	}
	as, ok := body.List[0].(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return false
	}
	if p, ok := fc.pathOf(as.Lhs[0]); !ok || p != path {
		return false
	}
	switch r := ast.Unparen(as.Rhs[0]).(type) {
	case *ast.CompositeLit:
		return len(r.Elts) == 0
	case *ast.CallExpr:
		id, ok := r.Fun.(*ast.Ident)
		return ok && id.Name == "make"
	}
	return false
}

// existence reads a check of whether the object exists already: its
// creation time, resourceVersion or UID against zero. exists is true
// when the condition holds for an existing object.
func (fc *Fresh) existence(cond ast.Expr) (exists bool, path string, ok bool) {
	cond = ast.Unparen(cond)
	neg := false
	if u, isU := cond.(*ast.UnaryExpr); isU && u.Op == token.NOT {
		neg, cond = true, ast.Unparen(u.X)
	}
	var x ast.Expr
	switch c := cond.(type) {
	case *ast.CallExpr: // obj.CreationTimestamp.IsZero()
		sel, isSel := c.Fun.(*ast.SelectorExpr)
		if !isSel || sel.Sel.Name != "IsZero" {
			return false, "", false
		}
		x, exists = sel.X, neg
	case *ast.BinaryExpr: // obj.ResourceVersion != "", obj.GetUID() == ""
		if !ZeroExpr(c.Y) || c.Op != token.NEQ && c.Op != token.EQL || neg {
			return false, "", false
		}
		x, exists = c.X, c.Op == token.NEQ
	default:
		return false, "", false
	}
	path, ok = fc.pathOf(x)
	switch strings.TrimPrefix(path, "ObjectMeta.") {
	case "CreationTimestamp", "ResourceVersion", "UID":
		return exists, path, ok
	}
	return false, "", false
}

// keepsOnly checks a branch that runs only on an existing object: it may
// carry live values into another value (through the package's own
// functions, which merge them) that is not read after the call, and set
// the object's fields to its own values; an apply leaves what it does
// not send to its owner. A field of another value replaced whole by the
// live one would be sent from then on; anything else is a change only
// existing objects get.
func (fc *Fresh) keepsOnly(s ast.Stmt) string {
	why := ""
	ast.Inspect(s, func(n ast.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				_, own := fc.pathOf(lhs)
				live := false
				if len(n.Rhs) == len(n.Lhs) {
					_, live = fc.pathOf(n.Rhs[i])
				}
				switch {
				case own && live:
				case !own && live && n.Tok != token.DEFINE:
					why = fc.at(lhs, "the mutate function sets %s, once the object exists, to the live object's, and sends it from then on", types.ExprString(lhs))
				case own:
					why = fc.at(lhs, "the mutate function changes %s only on an existing object", types.ExprString(lhs))
				default:
					if fc.carriedTo(lhs) {
						why = fc.at(lhs, "the mutate function carries values forward from the live object into %s, which is read after the write", types.ExprString(lhs))
					}
				}
			}
		case *ast.ExprStmt:
			call, ok := n.X.(*ast.CallExpr)
			var fn *types.Func
			if ok {
				fn = Callee(fc.Info, call)
			}
			// A function of the module (this package's, or one with a
			// summary) that takes the value to carry into.
			if !ok || fc.decl(fn) == nil && fc.summary(fn) == nil || len(call.Args) == 0 {
				why = fc.at(n, "the mutate function does more than carry values forward from the live object in a block run only once it exists")
				return false
			}
			if _, own := fc.pathOf(unaddr(call.Args[0])); !own && fc.carriedTo(call.Args[0]) {
				why = fc.at(n, "the mutate function carries values forward from the live object into %s, which is read after the write", types.ExprString(call.Args[0]))
			}
			return false
		}
		return true
	})
	return why
}

// carriedTo reports a value read after the call (a carry into it is
// then seen there, and would not be on a fresh object): the value, a
// field of it, or what holds it.
func (fc *Fresh) carriedTo(e ast.Expr) bool {
	if fc.body == nil {
		return true
	}
	target := types.ExprString(unaddr(e))
	related := func(txt string) bool {
		return txt == target || strings.HasPrefix(txt, target+".") || strings.HasPrefix(target, txt+".")
	}
	read := false
	ast.Inspect(fc.body, func(n ast.Node) bool {
		switch {
		case read || n == nil || n.End() <= fc.after:
			return false // found, or wholly before the call's end
		case n.Pos() < fc.after:
			return true // holds the call: look inside
		}
		switch x := n.(type) {
		case *ast.SelectorExpr:
			read = related(types.ExprString(x))
			return false
		case *ast.Ident:
			read = related(x.Name)
		}
		return !read
	})
	return read
}

// expr checks e's reads of the object. target is the path e is assigned
// to: a map or list of that path may flow into it (a merge, an append).
func (fc *Fresh) expr(e ast.Expr, target string) string {
	why := ""
	ast.Inspect(e, func(n ast.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			why = fc.stmts(n.Body.List)
			return false
		case *ast.CallExpr:
			if path, ok := fc.heldPath(n); ok && target != "" && path == target {
				// obj.SetLabels(merge(obj.GetLabels(), x)): the map of the
				// field it flows back into.
				return false
			}
			if handled, w := fc.call(n); handled {
				why = w
				return false
			}
		case *ast.Ident:
			if v, ok := fc.Info.Uses[n].(*types.Var); ok {
				if k, ok := fc.kept[v]; ok {
					why = fc.at(k.at, "the mutate function reads %s of the live object, which a fresh object does not have", k.text)
					return false
				}
			}
			if path, ok := fc.pathOf(n); ok && !fc.readable(path) && !(path == target && fc.container(n)) {
				why = fc.at(n, "the mutate function reads %s of the live object, which a fresh object does not have", types.ExprString(n))
			}
			return false
		case *ast.SelectorExpr, *ast.StarExpr, *ast.IndexExpr:
			x := n.(ast.Expr)
			path, ok := fc.pathOf(x)
			if !ok {
				return true
			}
			if fc.readable(path) || path == target && fc.container(x) {
				return false
			}
			why = fc.at(x, "the mutate function reads %s of the live object, which a fresh object does not have", types.ExprString(x))
			return false
		}
		return true
	})
	return why
}

// readable: the path is the object's name or namespace, or the function
// has set it (or a field above it) already.
func (fc *Fresh) readable(path string) bool {
	switch strings.TrimPrefix(path, "ObjectMeta.") {
	case "Name", "Namespace", "GetName()", "GetNamespace()":
		return true
	case "OwnerReferences", "GetOwnerReferences()", "CreationTimestamp", "GetCreationTimestamp()", "UID", "GetUID()":
		if fc.guard {
			return true
		}
	}
	for p := path; ; {
		if fc.written[p] {
			return true
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// safe are the functions that set what they are given on an object and
// read nothing of it that a fresh object lacks: the owner references,
// finalizers, a label or an annotation merged in.
var safe = map[string]bool{
	controllerutilPkg + ".SetControllerReference":                true,
	controllerutilPkg + ".SetOwnerReference":                     true,
	controllerutilPkg + ".AddFinalizer":                          true,
	controllerutilPkg + ".RemoveFinalizer":                       true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.SetMetaDataLabel":      true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.SetMetaDataAnnotation": true,
	"maps.Copy": true,
}

// ownerChecks read the controller of an object.
var ownerChecks = map[string]bool{
	controllerutilPkg + ".HasControllerReference":                true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.GetControllerOf":       true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.GetControllerOfNoCopy": true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.IsControlledBy":        true,
}

// call handles a call that is handed the object: a setter or getter of
// it, a function known to only set what it is given, or a function of
// this package followed with its parameter as the object. handled is
// false for calls the object does not reach.
func (fc *Fresh) call(call *ast.CallExpr) (handled bool, why string) {
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if root, ok := fc.pathOf(sel.X); ok {
			return true, fc.method(call, sel, root)
		}
	}
	if b, builtin := fc.Info.Uses[calleeIdent(call.Fun)].(*types.Builtin); builtin {
		if len(call.Args) == 0 {
			return false, "" // recover()
		}
		if _, own := fc.pathOf(call.Args[0]); own && b.Name() == "delete" {
			return true, fc.expr(call.Args[1], "") // a key of its own map left out
		}
		return false, "" // append(obj.Rules, r), len(obj.Labels): reads of the arguments
	}
	var handed []int // the arguments through which the callee reaches the object
	for i, a := range call.Args {
		if _, ok := fc.pathOf(unaddr(a)); ok && fc.reaches(a) {
			handed = append(handed, i)
		}
	}
	if len(handed) == 0 {
		return false, ""
	}
	fn := fc.callee(call)
	name := ""
	if fn != nil && fn.Pkg() != nil {
		name = fn.Pkg().Path() + "." + fn.Name()
	}
	if fn != nil && fn.Name() == "SetControllerReference" && len(call.Args) > 0 {
		fc.owner(call.Args[0])
	}
	switch {
	case safe[name]:
		return true, fc.others(call, handed, nil)
	case ownerChecks[name] && fc.guard:
		*fc.checked = true
		return true, fc.others(call, handed, fc.owner)
	case ownerChecks[name]:
		return true, fc.at(call, "the mutate function checks the live object's controller with %s, which a fresh object does not have; ensure.CreateOrUpdate refuses another controller's object with ensure.ErrAlreadyControlled instead", types.ExprString(call.Fun))
	}
	if decl := fc.decl(fn); decl != nil && fc.depth < maxDepth {
		return true, fc.follow(call, decl, handed)
	}
	if s := fc.summary(fn); s != nil {
		// A function of another package of the module: its summary.
		for _, i := range handed {
			why, ok := s.FreshOf(i)
			if !ok {
				return true, fc.at(call, "the mutate function hands the object to %s, whose code is not followed here", types.ExprString(call.Fun))
			}
			if why != "" {
				return true, fmt.Sprintf("in %s, %s", types.ExprString(call.Fun), why)
			}
		}
		return true, fc.others(call, handed, nil)
	}
	return true, fc.at(call, "the mutate function hands the object to %s, whose code is not followed here", types.ExprString(call.Fun))
}

// method is a call of a method of the object, or of a part of it at
// root: a setter writes its field, a getter reads it; other methods read
// the object.
func (fc *Fresh) method(call *ast.CallExpr, sel *ast.SelectorExpr, root string) string {
	name := sel.Sel.Name
	field := strings.TrimPrefix(strings.TrimPrefix(name, "Set"), "Get")
	prefix := root
	if prefix != "" {
		prefix += "."
	}
	switch {
	case strings.HasPrefix(name, "Set") && field != "":
		for _, a := range call.Args {
			if w := fc.expr(a, prefix+field); w != "" {
				return w
			}
		}
		fc.written[prefix+field] = true
		return ""
	case strings.HasPrefix(name, "Get") && len(call.Args) == 0:
		if fc.readable(prefix+name+"()") || fc.readable(prefix+field) {
			return ""
		}
		return fc.at(call, "the mutate function reads %s of the live object, which a fresh object does not have", types.ExprString(call))
	}
	if fc.readable(root) {
		return ""
	}
	return fc.at(call, "the mutate function calls %s on the live object", types.ExprString(call.Fun))
}

// callee is the function call calls; controller-runtime's root package
// re-exports controllerutil's functions as variables
// (ctrl.SetControllerReference), which stand for those.
func (fc *Fresh) callee(call *ast.CallExpr) *types.Func {
	if fn := Callee(fc.Info, call); fn != nil {
		return fn
	}
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if v, ok := fc.Info.Uses[sel.Sel].(*types.Var); ok && v.Pkg() != nil && v.Pkg().Path() == controllerRuntimePkg {
			return types.NewFunc(v.Pos(), types.NewPackage(controllerutilPkg, "controllerutil"), v.Name(), nil)
		}
	}
	return nil
}

// summary is fn's summary when it has Fresh facts, nil else.
func (fc *Fresh) summary(fn *types.Func) *Summary {
	if fn == nil || fc.Facts == nil {
		return nil
	}
	if s := fc.Facts(fn); s != nil && s.Fresh != nil {
		return s
	}
	return nil
}

// others checks the arguments of call not handed the object as reads, and
// hands each to also (nil: nothing more).
func (fc *Fresh) others(call *ast.CallExpr, handed []int, also func(ast.Expr)) string {
	for i, a := range call.Args {
		if slices.Contains(handed, i) {
			continue
		}
		if also != nil {
			also(a)
			continue
		}
		if w := fc.expr(a, ""); w != "" {
			return w
		}
	}
	return ""
}

// follow goes into decl, a function of the package the object is handed
// to, its parameters standing for what they are handed.
func (fc *Fresh) follow(call *ast.CallExpr, decl *ast.FuncDecl, handed []int) string {
	inner := &Fresh{Context: fc.Context, roots: map[*types.Var]string{}, written: fc.written, depth: fc.depth + 1, body: fc.body, after: fc.after, guard: fc.guard, owners: fc.owners, checked: fc.checked}
	params := ParamVars(fc.Info, decl)
	for i, a := range call.Args {
		if fc.guard && !slices.Contains(handed, i) && i < len(params) && params[i] != nil {
			inner.aliases(params[i], a)
		}
		if slices.Contains(handed, i) && i < len(params) && params[i] != nil {
			path, _ := fc.pathOf(unaddr(a))
			inner.roots[params[i]] = path
			continue
		}
		if w := fc.expr(a, ""); w != "" {
			return w
		}
	}
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if w := fc.expr(sel.X, ""); w != "" {
			return w
		}
	}
	return inner.stmts(decl.Body.List)
}

// owner records the owner a check or a controller reference names: the
// source of e, or of the argument a followed function's parameter took.
func (fc *Fresh) owner(e ast.Expr) {
	text := types.ExprString(e)
	if id, ok := ast.Unparen(e).(*ast.Ident); ok {
		if v, ok := fc.Info.Uses[id].(*types.Var); ok && fc.args != nil {
			if a, ok := fc.args[v]; ok {
				text = a
			}
		}
	}
	fc.owners[text] = true
}

// aliases records that the followed function's parameter v took arg.
func (fc *Fresh) aliases(v *types.Var, arg ast.Expr) {
	if fc.args == nil {
		fc.args = map[*types.Var]string{}
	}
	fc.args[v] = types.ExprString(arg)
}

// refuses reports a body that ends in returning an error value.
func refuses(body *ast.BlockStmt) bool {
	if len(body.List) == 0 {
		return false
	}
	ret, ok := body.List[len(body.List)-1].(*ast.ReturnStmt)
	return ok && len(ret.Results) == 1 && !IsNil(ret.Results[0])
}

// decl is the declaration of fn in this package, nil elsewhere.
func (fc *Fresh) decl(fn *types.Func) *ast.FuncDecl {
	if fn == nil || fn.Pkg() != fc.Pkg || fc.Decl == nil {
		return nil
	}
	return fc.Decl(fn)
}

// ParamVars are fd's parameters in order (nil for one without a name).
func ParamVars(info *types.Info, fd *ast.FuncDecl) []*types.Var {
	var out []*types.Var
	for _, f := range fd.Type.Params.List {
		if len(f.Names) == 0 {
			out = append(out, nil)
		}
		for _, n := range f.Names {
			v, _ := info.Defs[n].(*types.Var)
			out = append(out, v)
		}
	}
	return out
}

// pathOf is the path below the object e names (obj → "", obj.Spec.Replicas
// → "Spec.Replicas", *obj.Spec.Replicas → the same, labels[k] of a local
// holding obj.Labels → "Labels"), and whether e is the object's at all.
func (fc *Fresh) pathOf(e ast.Expr) (string, bool) {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		v, ok := fc.Info.Uses[x].(*types.Var)
		if !ok {
			return "", false
		}
		path, ok := fc.roots[v]
		return path, ok
	case *ast.SelectorExpr:
		if _, isVar := fc.Info.Uses[x.Sel].(*types.Var); !isVar {
			return "", false // a method value
		}
		base, ok := fc.pathOf(x.X)
		if !ok {
			return "", false
		}
		if base == "" {
			return x.Sel.Name, true
		}
		return base + "." + x.Sel.Name, true
	case *ast.StarExpr:
		return fc.pathOf(x.X)
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			return fc.pathOf(x.X)
		}
	}
	return "", false
}

// heldPath is the path of a part of the object a local can hold and
// write through: a map or list of it, its address, or what a getter of
// one returns.
func (fc *Fresh) heldPath(e ast.Expr) (string, bool) {
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.AND {
		return fc.pathOf(u.X)
	}
	if call, ok := ast.Unparen(e).(*ast.CallExpr); ok && len(call.Args) == 0 && fc.container(call) {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "Get") {
			if root, ok := fc.pathOf(sel.X); ok {
				return strings.TrimPrefix(root+"."+strings.TrimPrefix(sel.Sel.Name, "Get"), "."), true
			}
		}
		return "", false
	}
	path, ok := fc.pathOf(e)
	return path, ok && fc.container(e)
}

// reaches reports an argument through which a callee can read or write
// the object: a pointer, a map, a slice or an interface (a copied value is
// read where it is passed).
func (fc *Fresh) reaches(e ast.Expr) bool {
	t := fc.Info.TypeOf(e)
	if t == nil {
		return true
	}
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Map, *types.Slice, *types.Interface:
		return true
	}
	return false
}

// container reports a map or slice.
func (fc *Fresh) container(e ast.Expr) bool {
	t := fc.Info.TypeOf(e)
	if t == nil {
		return false
	}
	switch t.Underlying().(type) {
	case *types.Map, *types.Slice:
		return true
	}
	return false
}

// at is a reason with the position of n.
func (fc *Fresh) at(n ast.Node, format string, args ...any) string {
	pos := fc.Fset.Position(n.Pos())
	return fmt.Sprintf(format, args...) + fmt.Sprintf(" (%s:%d:%d): a value to keep from the live object is one to leave out of the intent, or to compute", filepath.Base(pos.Filename), pos.Line, pos.Column)
}

func calleeIdent(e ast.Expr) *ast.Ident {
	id, _ := ast.Unparen(e).(*ast.Ident)
	return id
}

func unaddr(e ast.Expr) ast.Expr {
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.AND {
		return u.X
	}
	return e
}
