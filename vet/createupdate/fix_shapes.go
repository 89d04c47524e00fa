package check

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/flow"
)

// The suggested fix of create-update: when the object is a typed struct
// built from a composite literal in the function, and an Ensure<Kind>
// helper for its type is among the package's dependencies, the literal
// becomes the apply configuration's builder chain and the Create →
// AlreadyExists → Update becomes one Ensure<Kind> call:
//
//	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: ns}, Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}}}}
//	if err := controllerutil.SetControllerReference(owner, role, scheme); err != nil { return err }
//	err := r.Create(ctx, role)
//	if apierrors.IsAlreadyExists(err) { return r.Update(ctx, role) }
//
// becomes
//
//	role := rbacv1ac.Role(n, ns).WithRules(rbacv1ac.PolicyRule().WithVerbs("get"))
//	_, _, err := rbacv1ensure.EnsureRole(ctx, r, owner, role)
//
// A typed object built elsewhere (role := desiredRole(ns)), or a literal
// with a field no builder carries exactly (a typed variable, owner
// references), is converted where the variable is defined by the
// generated converter (From<Kind>), which sets exactly the fields the
// object's JSON sends: what the Update wrote. Anything else (the object
// changed after its definition or used elsewhere, &x) gets no fix.

// Reasons a finding carries when no fix is offered.
const (
	whyNotVariable = "the object is not a variable built from a composite literal in this block"
	whyNoHelper    = "no Ensure helper for this kind among the package's dependencies or in its module: generate it (ssagen generate --ensure, --ensure-kinds for built-in kinds)"
	whyRuntimeKind = "the object's kind is known only at run time (%s), and a generated helper writes one kind: apply it by hand, with an unstructured apply configuration or a helper per kind (docs/vet.md, \"Kinds known at run time\")"
	whyUsed        = "the object is changed or read apart from the write (its last state is not the literal's)"
	whyField       = "a field of the literal has no exact builder (a typed variable, positional fields, owner references, generateName) and the helper's package has no converter From<Kind>: regenerate the helpers with this ssagen (ssagen generate)"
	// whyUpdateShape and whyIgnoreShape: the statements around the Create
	// are not one of the shapes -fix rewrites; each names them.
	whyUpdateShape = "the Create → AlreadyExists → Update is not written as `err := c.Create(ctx, obj)` followed by " +
		"`if err != nil { if !IsAlreadyExists(err) { return … }; <the update> }` (or with the Create in the if's init), " +
		"the error checked right after, without an else: rewrite it by hand with the helper (docs/vet.md, \"Suggested fix\")"
	whyIgnoreShape = "the Create's error is not checked right after it, in an if without an else, as " +
		"`err != nil && !IsAlreadyExists(err)`, `IgnoreAlreadyExists(err) != nil` or `err != nil` with the AlreadyExists check first in its branch: rewrite it by hand with the helper and ssaensure.CreateOnly() (docs/vet.md, \"Suggested fix\")"
	whyNoUpdate = "the AlreadyExists branch writes nothing (no Update or Patch of the object): it is a create-and-ignore; call the helper with ssaensure.CreateOnly()"
)

// literalIntent is the typed object a write creates when the rewrite can
// carry it over: a composite literal, inline (&T{...}) or a variable
// defined from one earlier in the block, with at most a
// SetControllerReference besides, used nowhere else.
type literalIntent struct {
	lit       *ast.CompositeLit
	addr      *ast.UnaryExpr // &T{...}, replaced by the builder chain
	variable  *types.Var     // nil: the literal is the write's argument
	def       ast.Stmt       // the variable's definition
	owner     ast.Stmt       // the SetControllerReference statement, or nil
	ownerExpr ast.Expr
	helper    *types.Func
	// A range over a slice literal (for _, role := range []*rbacv1.Role{...}):
	// the variable's values are the elements, each a literal.
	elems     []*ast.CompositeLit
	elemNodes []ast.Expr // the elements as written ({...} or &T{...})
	sliceType ast.Expr
	readsIn   []ast.Node // the loop's other statements, whose reads of the name carry over
	callee    string     // the function field the write goes through, called instead of the helper
	// convert is the typed expression the variable is defined from when
	// it is not a literal: the fix converts it (From<Kind>); whyNot is
	// why fixes that need a literal decline it.
	convert ast.Expr
	whyNot  string
	// usedAfter: a converted variable is read after the write, which left
	// the live object in it (CreateOrUpdate does).
	usedAfter bool
	// keep: the typed variable a literal defines stays as it is written,
	// and the helper is handed its conversion (From<Kind>) — for a value
	// (v := T{...}, written as &v) and for a variable whose name or
	// namespace is read after the write, which an apply configuration
	// holds as a pointer. The write's name and namespace are the live
	// object's too, so those reads mean what they meant.
	keep bool
}

// desiredExpr is the typed object the intent's variable holds, as the
// converter takes it: v, or &v for a value.
func (in *literalIntent) desiredExpr() ast.Expr {
	id := ast.NewIdent(in.variable.Name())
	if _, ok := in.variable.Type().(*types.Pointer); ok {
		return id
	}
	return &ast.UnaryExpr{Op: token.AND, X: id}
}

// literalIntentOf finds the intent of the object arg, written by the
// statements site in block at index end (the statements before it are
// searched); why says what is missing when it is nil.
func (p *Pass) literalIntentOf(arg ast.Expr, block *ast.BlockStmt, end int, stack []ast.Node, site ...ast.Node) (*literalIntent, string) {
	in := &literalIntent{}
	if u, ok := ast.Unparen(arg).(*ast.UnaryExpr); ok && u.Op == token.AND && isLiteral(u.X) {
		lit := ast.Unparen(u.X).(*ast.CompositeLit)
		in.lit, in.addr = lit, u
		if in.helper = p.helperFunc(p.TypesInfo.TypeOf(arg)); in.helper == nil {
			return nil, p.noHelperFor(p.TypesInfo.TypeOf(arg))
		}
		return in, ""
	}
	objVar := p.ObjectVar(arg)
	if objVar == nil {
		return nil, whyNotVariable
	}
	objType := objVar.Type()
	if _, ok := objType.(*types.Pointer); !ok {
		objType = types.NewPointer(objType) // a range over values, written as &v
	}
	if in.helper = p.helperFunc(objType); in.helper == nil {
		return nil, p.noHelperFor(objType)
	}
	in.variable = objVar
	scan := func(stmts []ast.Stmt) {
		for _, s := range stmts {
			if as, ok := s.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
				if id, ok := as.Lhs[0].(*ast.Ident); ok && p.TypesInfo.ObjectOf(id) == objVar {
					in.def = s
				}
			}
			for _, c := range Calls(s) {
				if p.IsPkgFunc(c, ControllerutilPkg, "SetControllerReference") && len(c.Args) >= 2 && p.ObjectVar(c.Args[1]) == objVar {
					in.owner, in.ownerExpr = s, c.Args[0]
				}
			}
		}
	}
	scan(block.List[:end])
	if in.def == nil {
		// Defined in an enclosing block, before the one of the write (a
		// literal, then a retry's function that writes it): the
		// statements of that block up to the one holding the write.
		for i := len(stack) - 1; i >= 0 && in.def == nil; i-- {
			outer, ok := stack[i].(*ast.BlockStmt)
			if !ok || outer == block || !ContainsNode(outer, block) || objVar.Pos() < outer.Pos() || objVar.Pos() > outer.End() {
				continue
			}
			for j, st := range outer.List {
				if ContainsNode(st, block) {
					scan(outer.List[:j])
					break
				}
			}
		}
		if in.def == nil {
			return p.rangeIntent(in, stack, site)
		}
	}
	rhs := ast.Unparen(in.def.(*ast.AssignStmt).Rhs[0])
	u, ok := rhs.(*ast.UnaryExpr)
	switch {
	case ok && u.Op == token.AND && isLiteral(u.X):
		in.lit, in.addr = ast.Unparen(u.X).(*ast.CompositeLit), u
	case isLiteral(rhs) && types.Identical(types.NewPointer(p.TypesInfo.TypeOf(rhs)), objType):
		// v := T{...}, written as &v.
		in.lit, in.keep = rhs.(*ast.CompositeLit), true
	case ok && u.Op == token.AND:
		// &x: the write reads x when it runs, a conversion where the
		// variable is defined would read it earlier.
		return nil, whyNotVariable
	case types.Identical(p.TypesInfo.TypeOf(rhs), objType):
		// A typed object built elsewhere (desired.gateway.DeepCopy(),
		// newGateway(spec)): converted where it is defined, by the
		// generated converter, into exactly the fields its JSON sends.
		in.convert, in.whyNot = rhs, p.typedDesired(rhs)
	default:
		return nil, p.typedDesired(rhs)
	}
	if in.owner != nil && !ownerOnly(p, in.owner) {
		return nil, whyUsed
	}
	allowed := append([]ast.Node{in.def}, site...)
	if in.owner != nil {
		allowed = append(allowed, in.owner)
	}
	siteEnd := token.NoPos
	for _, n := range site {
		siteEnd = max(siteEnd, n.End())
	}
	for id, o := range p.TypesInfo.Uses {
		if o == objVar && !inAny(id, allowed) {
			if siteEnd.IsValid() && id.Pos() > siteEnd && p.identityRead(id, stack) {
				// Its name or namespace, read after the write: the same
				// on the live object. The typed variable stays.
				if in.convert == nil {
					in.keep = true
				}
				continue
			}
			if in.convert != nil && siteEnd.IsValid() && id.Pos() > siteEnd {
				// Read after the write: the variable must then hold the
				// live object, as it did; the caller decides.
				in.usedAfter = true
				continue
			}
			return nil, whyUsed
		}
	}
	return in, ""
}

// identityRead reports whether the use id of an object variable reads
// only its name or namespace: v.Name, v.Namespace (not assigned, not
// taken the address of), v.GetName(), v.GetNamespace(), or
// client.ObjectKeyFromObject(v).
func (p *Pass) identityRead(id *ast.Ident, stack []ast.Node) bool {
	file := FileOf(stack)
	if file == nil {
		return false
	}
	path, _ := astutil.PathEnclosingInterval(file, id.Pos(), id.End())
	if len(path) < 3 || path[0] != ast.Node(id) {
		return false
	}
	switch parent := path[1].(type) {
	case *ast.SelectorExpr:
		if parent.X != ast.Expr(id) {
			return false
		}
		switch parent.Sel.Name {
		case "Name", "Namespace":
			if s, ok := p.TypesInfo.Selections[parent]; !ok || s.Kind() != types.FieldVal {
				return false
			}
			switch up := path[2].(type) {
			case *ast.AssignStmt:
				return !slices.Contains(up.Lhs, ast.Expr(parent))
			case *ast.UnaryExpr:
				return up.Op != token.AND
			}
			return true
		case "GetName", "GetNamespace":
			c, ok := path[2].(*ast.CallExpr)
			return ok && c.Fun == ast.Expr(parent) && len(c.Args) == 0
		}
	case *ast.CallExpr:
		return p.IsPkgFunc(parent, ClientPkg, "ObjectKeyFromObject") && len(parent.Args) == 1 && parent.Args[0] == ast.Expr(id)
	}
	return false
}

// typedDesired says why an object defined from an expression that is not
// a literal (desired.gateway.DeepCopy(), newGateway(spec)) gets no fix.
func (p *Pass) typedDesired(rhs ast.Expr) string {
	return fmt.Sprintf("the object is a typed value built elsewhere (%s), not a literal in this block, and its mutate function is not rewritten with a converter yet: "+
		"build the apply configuration with From<Kind> where the desired object is built (docs/vet.md, \"CreateOrUpdate by hand\")", shorten(types.ExprString(rhs), 60))
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// rangeIntent is the intent of a range variable over a slice literal of
// the object type, written only at the site.
func (p *Pass) rangeIntent(in *literalIntent, stack []ast.Node, site []ast.Node) (*literalIntent, string) {
	var rs *ast.RangeStmt
	for i := len(stack) - 1; i >= 0; i-- {
		if r, ok := stack[i].(*ast.RangeStmt); ok {
			if id, ok := r.Value.(*ast.Ident); ok && p.TypesInfo.ObjectOf(id) == in.variable {
				rs = r
				break
			}
		}
	}
	if rs == nil {
		return nil, whyNotVariable
	}
	// A slice built elsewhere, or changed apart from the range (rules
	// appended by contributors): the typed range variable stays, and the
	// helper is handed its conversion at the write, exactly the fields
	// the Create sent.
	converted := func() (*literalIntent, string) {
		for id, o := range p.TypesInfo.Uses {
			if o == in.variable && !inAny(id, site) && !p.identityRead(id, stack) {
				return nil, whyUsed
			}
		}
		in.keep = true
		return in, ""
	}
	lit, ok := ast.Unparen(rs.X).(*ast.CompositeLit)
	var sliceVar *types.Var
	var sliceDef ast.Stmt
	if id, isID := ast.Unparen(rs.X).(*ast.Ident); isID {
		// A variable defined from a slice literal, used by the range alone.
		sliceVar, _ = p.TypesInfo.Uses[id].(*types.Var)
		if sliceVar != nil {
			sliceDef, lit = p.definedFromLiteral(sliceVar, stack)
			ok = lit != nil
		}
	}
	if !ok || lit.Type == nil {
		return converted()
	}
	if sliceVar != nil {
		for id, o := range p.TypesInfo.Uses {
			if o == sliceVar && id != rs.X && !ContainsNode(sliceDef, id) {
				return converted() // its last state is not the literal's
			}
		}
	}
	if why := in.elemsOf(lit); why != "" {
		return nil, why
	}
	if in.owner != nil && !ownerOnly(p, in.owner) {
		return nil, whyUsed
	}
	allowed := append([]ast.Node{rs.Value}, site...)
	if in.owner != nil {
		allowed = append(allowed, in.owner)
	}
	// Reads of the name elsewhere in the loop's body carry over.
	for _, st := range rs.Body.List {
		if !inAny(st, allowed) && !slices.ContainsFunc(site, func(n ast.Node) bool { return ContainsNode(st, n) }) {
			in.readsIn = append(in.readsIn, st)
		}
	}
	allowed = append(allowed, in.readsIn...)
	for id, o := range p.TypesInfo.Uses {
		if o == in.variable && !inAny(id, allowed) {
			return nil, whyUsed
		}
	}
	return in, ""
}

// elemsOf takes a slice literal's elements, each a literal (or its
// address), as the intent's values.
func (in *literalIntent) elemsOf(lit *ast.CompositeLit) string {
	if _, ok := lit.Type.(*ast.ArrayType); !ok {
		return whyNotVariable
	}
	for _, e := range lit.Elts {
		el, ok := ast.Unparen(e).(*ast.CompositeLit)
		if u, isAddr := ast.Unparen(e).(*ast.UnaryExpr); isAddr && u.Op == token.AND {
			el, ok = ast.Unparen(u.X).(*ast.CompositeLit)
		}
		if !ok {
			return whyNotVariable
		}
		in.elems, in.elemNodes = append(in.elems, el), append(in.elemNodes, e)
	}
	in.sliceType = lit.Type
	return ""
}

// definedFromLiteral finds v := []T{...} in the function holding stack.
func (p *Pass) definedFromLiteral(v *types.Var, stack []ast.Node) (ast.Stmt, *ast.CompositeLit) {
	body := FuncBody(stack)
	if body == nil {
		return nil, nil
	}
	var def ast.Stmt
	var lit *ast.CompositeLit
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			return def == nil
		}
		if id, ok := as.Lhs[0].(*ast.Ident); ok && p.TypesInfo.Defs[id] == v {
			if l, ok := ast.Unparen(as.Rhs[0]).(*ast.CompositeLit); ok {
				def, lit = as, l
			}
		}
		return def == nil
	})
	return def, lit
}

// render builds the intent's builder chains for ac and the edits that put
// them in place (with those of edits); b is the chain an inline intent
// hands the helper (for a range, all of them, for the imports).
func (in *literalIntent) render(p *Pass, f *Fixer, ac *types.Named) (b string, edits []analysis.TextEdit, removed []ast.Node, ok bool) {
	if in.elems == nil {
		switch {
		case in.keep:
			// The typed variable stays; the helper is handed its
			// conversion, and only the owner's statement goes.
			if b, ok = f.converted("From", ac, in.helper, in.desiredExpr()); !ok {
				return "", nil, nil, false
			}
			if in.owner != nil {
				edits, removed = append(edits, deleteLine(p.Fset, in.owner)), append(removed, in.owner)
			}
			return b, edits, removed, true
		case in.convert != nil:
			if b, ok = f.converted("From", ac, in.helper, in.convert); !ok {
				return "", nil, nil, false
			}
		default:
			if b, ok = f.builder(in.lit, ac, true); !ok {
				// A field without an exact builder (a typed variable, owner
				// references): the converter carries the literal's JSON.
				if b, ok = f.converted("From", ac, in.helper, in.addr); !ok {
					return "", nil, nil, false
				}
			}
		}
		edits, removed = in.edits(p, b)
		return b, edits, removed, true
	}
	var all []string
	for i, el := range in.elems {
		eb, ok := f.builder(el, ac, true)
		if !ok {
			return "", nil, nil, false
		}
		all = append(all, eb)
		edits = append(edits, analysis.TextEdit{Pos: in.elemNodes[i].Pos(), End: in.elemNodes[i].End(), NewText: []byte(eb)})
		removed = append(removed, in.elemNodes[i])
	}
	st := "[]*" + f.Qualify(ac.Obj().Pkg(), "ac") + "." + ac.Obj().Name()
	edits = append(edits, analysis.TextEdit{Pos: in.sliceType.Pos(), End: in.sliceType.End(), NewText: []byte(st)})
	removed = append(removed, in.sliceType)
	if in.owner != nil {
		edits = append(edits, deleteLine(p.Fset, in.owner))
		removed = append(removed, in.owner)
	}
	return st + strings.Join(all, ""), edits, removed, true
}

// call renders the helper's call for the intent: the builder (inline) or
// the variable, the owner (or nil and NoOwner()), and extra options.
func (in *literalIntent) call(f *Fixer, ctx ast.Expr, clientText, builder string, extra ...string) string {
	desired := builder
	if in.variable != nil && !in.keep {
		desired = in.variable.Name()
	}
	return in.callWith(f, ctx, clientText, desired, extra...)
}

// callWith is call with the desired argument as given.
func (in *literalIntent) callWith(f *Fixer, ctx ast.Expr, clientText, desired string, extra ...string) string {
	ownerText, opts := "nil", ""
	if in.ownerExpr != nil {
		ownerText = f.node(in.ownerExpr)
	} else {
		opts = ", " + f.Qualify(types.NewPackage(contract.RuntimePkg, "ensure"), "") + "." + contract.NoOwner + "()"
	}
	for _, o := range extra {
		opts += ", " + f.Qualify(types.NewPackage(contract.RuntimePkg, "ensure"), "") + "." + o + "()"
	}
	callee := f.Qualify(in.helper.Pkg(), "") + "." + in.helper.Name()
	if in.callee != "" {
		callee = in.callee
	}
	return fmt.Sprintf("%s(%s, %s, %s, %s%s)", callee, f.node(ctx), clientText, ownerText, desired, opts)
}

// edits are the intent's own edits: the literal becomes the builder (for
// a variable), the SetControllerReference goes.
func (in *literalIntent) edits(p *Pass, builder string) ([]analysis.TextEdit, []ast.Node) {
	var edits []analysis.TextEdit
	var removed []ast.Node
	if in.variable != nil {
		var target ast.Expr = in.addr
		if in.convert != nil {
			target = in.convert
		}
		edits = append(edits, analysis.TextEdit{Pos: target.Pos(), End: target.End(), NewText: []byte(builder)})
		removed = append(removed, target)
	}
	if in.owner != nil {
		edits = append(edits, deleteLine(p.Fset, in.owner))
		removed = append(removed, in.owner)
	}
	return edits, removed
}

// createFix is what the fixes of a Create share: the intent, the fixer,
// the builder chains with their edits, and the client to hand the helper.
type createFix struct {
	in      *literalIntent
	f       *Fixer
	builder string
	edits   []analysis.TextEdit
	removed []ast.Node
	client  string
}

// createWrite prepares the fix of create, written by the statements site
// at index end of block; why says what is missing when it is nil.
func (p *Pass) createWrite(create *ast.CallExpr, file *ast.File, block *ast.BlockStmt, end int, stack, site []ast.Node) (*createFix, string) {
	in, why := p.literalIntentOf(create.Args[1], block, end, stack, site...)
	if in == nil {
		return nil, why
	}
	if in.usedAfter {
		return nil, whyUsed
	}
	w := &createFix{in: in, f: p.NewFixer(file)}
	sig := in.helper.Type().(*types.Signature)
	var ok bool
	if w.builder, w.edits, w.removed, ok = in.render(p, w.f, acNamed(sig.Params().At(contract.ParamDesired).Type())); !ok {
		return nil, whyField
	}
	recv := ast.Unparen(create.Fun).(*ast.SelectorExpr).X
	if s := p.seamAt[create.Pos()]; s != nil {
		// Through a seam: the field is called as the helper would be,
		// with the client its default was bound to.
		in.callee = w.f.node(recv) + "." + s.field.Name()
		w.client = w.f.node(recv) + s.client
	} else if w.client, ok = w.f.clientArg(recv, sig.Params().At(contract.ParamClient).Type()); !ok {
		return nil, "the receiver of the Create is neither a client.Client nor a struct embedding one: pass the client by hand (docs/vet.md)"
	}
	reads, why := in.readEdits(p, in.readsIn)
	if why != "" {
		return nil, why
	}
	w.edits = append(w.edits, reads...)
	return w, ""
}

// CreateUpdateFix builds the suggested fix for a create-update finding,
// or says why there is none.
func (p *Pass) CreateUpdateFix(create *ast.CallExpr, ifs *ast.IfStmt, stack []ast.Node) ([]analysis.SuggestedFix, string) {
	if why := p.notClientCreate(create); why != "" {
		return nil, why
	}
	if u, addr := ast.Unparen(create.Args[1]).(*ast.UnaryExpr); addr && isLiteral(u.X) {
		return nil, "the object is a literal written inline, which create-update does not rewrite: assign it to a variable first"
	}
	var file *ast.File
	var outer *ast.IfStmt // form B: if err := c.Create(...); err != nil { ... AlreadyExists ... }
	for _, n := range stack {
		switch n := n.(type) {
		case *ast.File:
			file = n
		case *ast.IfStmt:
			if n != ifs && n.Init != nil && ContainsNode(n.Init, create) && ContainsNode(n.Body, ifs) {
				outer = n
			}
		}
	}
	formB := outer != nil
	var anchor ast.Stmt = ifs
	if formB {
		anchor = outer
	}
	block, idx := EnclosingBlock(stack, anchor)
	if file == nil || block == nil {
		return nil, whyUpdateShape
	}
	// The Create: form A, its own statement right before ifs; form B, the
	// outer if's init.
	var createStmt ast.Stmt
	end := idx
	if !formB {
		if idx == 0 || ifs.Init != nil || ifs.Else != nil || !ContainsNode(block.List[idx-1], create) {
			return nil, whyUpdateShape
		}
		createStmt = block.List[idx-1]
		end = idx - 1
		as, ok := createStmt.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || as.Rhs[0] != create {
			return nil, whyUpdateShape
		}
	}
	site := []ast.Node{anchor}
	if createStmt != nil {
		site = append(site, createStmt)
	}
	w, why := p.createWrite(create, file, block, end, stack, site)
	if w == nil {
		return nil, why
	}
	in, f, b, edits, removed := w.in, w.f, w.builder, w.edits, w.removed
	call := in.call(f, create.Args[0], w.client, b)
	if formB {
		as, ok := outer.Init.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || as.Rhs[0] != create {
			return nil, "the Create's error is not assigned in the if's init (if err := c.Create(...); err != nil): rewrite by hand (docs/vet.md)"
		}
		be, why := p.branchEdits(f, in, create, outer, ifs)
		if be == nil {
			return nil, why
		}
		edits = append(edits, be.edits...)
		removed = append(removed, be.removed...)
		edits = append(edits, analysis.TextEdit{Pos: as.Pos(), End: as.End(), NewText: []byte("_, " + be.res + ", " + f.node(as.Lhs[0]) + " " + as.Tok.String() + " " + call)})
		removed = append(removed, as)
		call += be.text // the kept paths' imports stay
	} else {
		as := createStmt.(*ast.AssignStmt)
		edits = append(edits,
			analysis.TextEdit{Pos: as.Pos(), End: as.End(), NewText: []byte("_, _, " + f.node(as.Lhs[0]) + " " + as.Tok.String() + " " + call)},
			deleteLine(p.Fset, ifs))
		removed = append(removed, as, ifs)
	}
	return f.Fix(fmt.Sprintf("Use %s.%s: one server-side apply, no request when unchanged", in.helper.Pkg().Name(), in.helper.Name()), edits, removed, b+call)
}

// writeStatement finds the file and the statement holding call: the if
// whose init it is in, or else the assignment it is in (nil if neither).
func writeStatement(call *ast.CallExpr, stack []ast.Node) (*ast.File, ast.Stmt) {
	var file *ast.File
	var stmt ast.Stmt
	for _, n := range stack {
		switch n := n.(type) {
		case *ast.File:
			file = n
		case *ast.FuncLit:
			// A statement outside the function the call is in (an if
			// around a retry of it) is not its statement.
			if ContainsNode(n.Body, call) {
				stmt = nil
			}
		case *ast.IfStmt:
			if n.Init != nil && ContainsNode(n.Init, call) {
				stmt = n
			}
		case *ast.AssignStmt:
			if ContainsNode(n, call) && stmt == nil {
				stmt = n
			}
		}
	}
	return file, stmt
}

// CreateIgnoreFix builds the suggested fix for a create-ignore finding:
// the Create becomes Ensure<Kind> with ensure.CreateOnly() — created when
// missing, never overwritten, no request once the cache has it. Shapes:
//
//	if err := c.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) { ... }
//	if err := client.IgnoreAlreadyExists(c.Create(ctx, obj)); err != nil { ... }
//	err := c.Create(ctx, obj)
//	if err != nil && !apierrors.IsAlreadyExists(err) { ... }
//
// with obj an inline literal or a variable built from one.
func (p *Pass) CreateIgnoreFix(create *ast.CallExpr, stack []ast.Node) ([]analysis.SuggestedFix, string) {
	if why := p.notClientCreate(create); why != "" {
		return nil, why
	}
	file, stmt := writeStatement(create, stack) // the if (init form) or the assignment
	if stmt == nil {
		// The check's if is the finding's node; the Create is the
		// assignment right before it.
		if ifs, ok := stack[len(stack)-1].(*ast.IfStmt); ok {
			if block, i := EnclosingBlock(stack, ifs); block != nil && i > 0 && ContainsNode(block.List[i-1], create) {
				stmt = block.List[i-1]
			}
		}
	}
	if file == nil || stmt == nil {
		return nil, whyIgnoreShape
	}
	block, idx := EnclosingBlock(stack, stmt)
	if block == nil {
		return nil, whyIgnoreShape
	}
	var as *ast.AssignStmt
	var ifs *ast.IfStmt
	switch s := stmt.(type) {
	case *ast.IfStmt:
		ifs = s
		as, _ = s.Init.(*ast.AssignStmt)
	case *ast.AssignStmt:
		as = s
		if idx+1 < len(block.List) {
			ifs, _ = block.List[idx+1].(*ast.IfStmt)
		}
	}
	if as == nil || ifs == nil || ifs.Else != nil || len(as.Lhs) != 1 || len(as.Rhs) != 1 || (ifs != stmt && ifs.Init != nil) {
		return nil, whyIgnoreShape
	}
	errID, ok := as.Lhs[0].(*ast.Ident)
	if !ok {
		return nil, whyIgnoreShape
	}
	rhs := ast.Unparen(as.Rhs[0])
	ignored := false
	if c, ok := rhs.(*ast.CallExpr); ok && p.IsPkgFunc(c, ClientPkg, "IgnoreAlreadyExists") && len(c.Args) == 1 && ast.Unparen(c.Args[0]) == create {
		ignored = true
	} else if rhs != create {
		return nil, whyIgnoreShape
	}
	// The condition: err != nil (after IgnoreAlreadyExists), or
	// err != nil && !IsAlreadyExists(err).
	errObj := p.TypesInfo.ObjectOf(errID)
	isErr := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && p.TypesInfo.ObjectOf(id) == errObj
	}
	// errCall: pkg.name(err).
	errCall := func(e ast.Expr, pkg, name string) bool {
		c, ok := ast.Unparen(e).(*ast.CallExpr)
		return ok && p.IsPkgFunc(c, pkg, name) && len(c.Args) == 1 && isErr(c.Args[0])
	}
	isErrNotNil := func(e ast.Expr) bool { return isErr(flow.ComparedToNil(e, token.NEQ)) }
	notExists := func(e ast.Expr) bool {
		u, ok := ast.Unparen(e).(*ast.UnaryExpr)
		return ok && u.Op == token.NOT && errCall(u.X, APIErrorsPkg, "IsAlreadyExists")
	}
	// IgnoreAlreadyExists(err) != nil in the condition, the Create's
	// error assigned as it is: the same check written the other way.
	ignoredInCond := func(e ast.Expr) bool {
		return errCall(flow.ComparedToNil(e, token.NEQ), ClientPkg, "IgnoreAlreadyExists")
	}
	cond := ast.Unparen(ifs.Cond)
	if !ignored && ifs == stmt && isErrNotNil(cond) {
		return p.ignoreBranchFix(create, as, ifs, errID, file, block, idx, stack)
	}
	switch {
	case ignored && isErrNotNil(cond):
	case !ignored && ignoredInCond(cond):
	case !ignored:
		b, ok := cond.(*ast.BinaryExpr)
		if !ok || b.Op != token.LAND || !(isErrNotNil(b.X) && notExists(b.Y) || isErrNotNil(b.Y) && notExists(b.X)) {
			return nil, whyIgnoreShape
		}
	default:
		return nil, whyIgnoreShape
	}
	site := []ast.Node{stmt, ifs}
	end := idx
	w, why := p.createWrite(create, file, block, end, stack, site)
	if w == nil {
		return nil, why
	}
	in, f, b, edits, removed := w.in, w.f, w.builder, w.edits, w.removed
	call := in.call(f, create.Args[0], w.client, b, contract.CreateOnly)
	edits = append(edits,
		analysis.TextEdit{Pos: as.Pos(), End: as.End(), NewText: []byte("_, _, " + errID.Name + " " + as.Tok.String() + " " + call)},
		analysis.TextEdit{Pos: ifs.Cond.Pos(), End: ifs.Cond.End(), NewText: []byte(errID.Name + " != nil")})
	removed = append(removed, as, ifs.Cond)
	return f.Fix(createOnlyMessage(in), edits, removed, b+call)
}

// ignoreBranchFix is CreateIgnoreFix for the AlreadyExists check inside
// the Create's error branch, either way round:
//
//	if err := c.Create(ctx, obj); err != nil {
//		if apierrors.IsAlreadyExists(err) {
//			log.Info("exists")            // existed, ends the iteration
//			continue
//		}
//		return fmt.Errorf("...: %w", err) // failed
//	}
//
//	if err := c.Create(ctx, obj); err != nil {
//		if !apierrors.IsAlreadyExists(err) {
//			return fmt.Errorf("...: %w", err) // failed
//		}
//		log.Info("exists")                    // existed
//	}
//
// both become
//
//	if _, res, err := xensure.EnsureX(ctx, c, owner, obj, ssaensure.CreateOnly()); err != nil {
//		return fmt.Errorf("...: %w", err)
//	} else if res != ssaensure.Created {
//		log.Info("exists")
//		continue
//	}
//
// The path of an existing object runs when the apply did not create it
// (found in the cache, no request); it may not write through a client.
func (p *Pass) ignoreBranchFix(create *ast.CallExpr, as *ast.AssignStmt, ifs *ast.IfStmt, errID *ast.Ident, file *ast.File, block *ast.BlockStmt, idx int, stack []ast.Node) ([]analysis.SuggestedFix, string) {
	if ifs.Else != nil || len(ifs.Body.List) == 0 {
		return nil, whyIgnoreShape
	}
	check, ok := ifs.Body.List[0].(*ast.IfStmt)
	if !ok || check.Init != nil || check.Else != nil {
		return nil, whyIgnoreShape
	}
	call, negated := p.AlreadyExistsCheck(check.Cond)
	if call == nil {
		return nil, whyIgnoreShape
	}
	if id, ok := ast.Unparen(call.Args[0]).(*ast.Ident); !ok || p.TypesInfo.ObjectOf(id) != p.TypesInfo.ObjectOf(errID) {
		return nil, whyIgnoreShape
	}
	if c := ast.Unparen(check.Cond); c != call {
		if u, ok := c.(*ast.UnaryExpr); !ok || u.Op != token.NOT || ast.Unparen(u.X) != call {
			return nil, whyIgnoreShape // more than the check in the condition
		}
	}
	rest := ifs.Body.List[1:]
	var existed []ast.Stmt
	if negated {
		if !terminates(check.Body) {
			return nil, "the error path does not end the function or the loop iteration, so the AlreadyExists path and the other errors share code: rewrite by hand (docs/vet.md)"
		}
		existed = rest
	} else {
		if !terminates(check.Body) || len(rest) == 0 || !terminates(&ast.BlockStmt{List: rest}) {
			return nil, "the AlreadyExists path does not end the function or the loop iteration, so it runs into the error path: rewrite by hand (docs/vet.md)"
		}
		existed = check.Body.List
	}
	for _, st := range existed {
		for _, c := range Calls(st) {
			if m := p.ClientMethod(c); m != "" {
				return nil, fmt.Sprintf("the AlreadyExists path calls %s: rewrite by hand (docs/vet.md)", m)
			}
		}
	}
	w, why := p.createWrite(create, file, block, idx, stack, []ast.Node{ifs})
	if w == nil {
		return nil, why
	}
	in, f, b, edits, removed := w.in, w.f, w.builder, w.edits, w.removed
	res := "_"
	if len(existed) > 0 {
		res = "res"
		if flow.Mentions(ifs, res) {
			return nil, "the name res is taken in this function: rewrite by hand (docs/vet.md)"
		}
	}
	elseIf := "} else if " + res + " != " + f.Qualify(types.NewPackage(contract.RuntimePkg, "ensure"), "") + ".Created {"
	if negated {
		// Unwrap the check: its body is the error branch; what followed
		// it, the existing object's path.
		edits = append(edits, p.unwrapIf(check))
		kept := []ast.Node{check.Body}
		if len(existed) > 0 {
			edits = append(edits, analysis.TextEdit{Pos: check.Body.Rbrace, End: check.Body.Rbrace + 1, NewText: []byte(elseIf)})
			for _, st := range existed {
				kept = append(kept, st)
			}
		} else {
			edits = append(edits, analysis.TextEdit{Pos: check.Body.Rbrace, End: ifs.Body.Rbrace})
		}
		reads, why := in.readEdits(p, kept)
		if why != "" {
			return nil, why
		}
		edits = append(edits, reads...)
	} else {
		// The check goes; its body follows the error branch as the
		// existing object's path.
		text, why := p.updatePathText(in, check.Body)
		if why != "" {
			return nil, why
		}
		kept := make([]ast.Node, len(rest))
		for i, st := range rest {
			kept[i] = st
		}
		reads, why := in.readEdits(p, kept)
		if why != "" {
			return nil, why
		}
		edits = append(edits, reads...)
		edits = append(edits, deleteLine(p.Fset, check),
			analysis.TextEdit{Pos: ifs.Body.Rbrace, End: ifs.Body.Rbrace + 1, NewText: []byte(elseIf + text + "}")})
	}
	call2 := in.call(f, create.Args[0], w.client, b, contract.CreateOnly)
	edits = append(edits, analysis.TextEdit{Pos: as.Pos(), End: as.End(), NewText: []byte("_, " + res + ", " + errID.Name + " " + as.Tok.String() + " " + call2)})
	removed = append(removed, as, check.Cond)
	return f.Fix(createOnlyMessage(in), edits, removed, b+call2+elseIf)
}

func createOnlyMessage(in *literalIntent) string {
	return fmt.Sprintf("Use %s.%s with ensure.CreateOnly(): created when missing, never overwritten, no request once the cache has it", in.helper.Pkg().Name(), in.helper.Name())
}

// ownerOnly: the statement only sets the controller reference and
// returns its error (`if err := SetControllerReference(...); err != nil
// { return ... }`, or the bare call).
func ownerOnly(p *Pass, s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.ExprStmt:
		return true
	case *ast.AssignStmt:
		return len(s.Lhs) == 1 && isBlank(s.Lhs[0])
	case *ast.IfStmt:
		if s.Else != nil || len(s.Body.List) != 1 {
			return false
		}
		_, ret := s.Body.List[0].(*ast.ReturnStmt)
		return ret && s.Init != nil
	}
	return false
}

func isBlank(e ast.Expr) bool { return isName(e, "_") }

// isName reports the identifier name.
func isName(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// notClientCreate says why a create call is not one -fix rewrites: a
// write through a function field (a seam tests replace) or a wrapper, or
// a Create with options; "" for c.Create(ctx, obj).
func (p *Pass) notClientCreate(create *ast.CallExpr) string {
	if p.ClientMethod(create) == "Create" {
		if len(create.Args) != 2 {
			return "the Create passes options (client.CreateOption): the helper takes ensure options instead; rewrite by hand (docs/vet.md, \"Create with options\")"
		}
		return ""
	}
	text := types.ExprString(create.Fun)
	if flow.ClientsetMethod(p.TypesInfo, create) == "Create" {
		return fmt.Sprintf("the object is written through a client-go typed client (%s): the helper writes through controller-runtime's client; call %s with one by hand (docs/vet.md, \"Writes through a wrapper\")", text, helperName(p, create))
	}
	if sel, ok := ast.Unparen(create.Fun).(*ast.SelectorExpr); ok {
		if s := p.seamOf(create); s != nil {
			if p.seamAt == nil {
				p.seamAt = map[token.Pos]*seam{}
			}
			p.seamAt[create.Pos()] = s
			if s.why != "" {
				return s.seamWhy(text)
			}
			return ""
		}
		if v, ok := p.TypesInfo.Uses[sel.Sel].(*types.Var); ok && v.IsField() {
			return fmt.Sprintf("the object is written through the function field %s, a seam tests replace: give the field the helper's signature with %s as its default, change the tests that set it, and call it here (docs/vet.md, \"Writes through a function field\")", text, helperName(p, create))
		}
	}
	return fmt.Sprintf("the object is written through %s, not a client's Create: rewrite the write inside it, or call %s here by hand (docs/vet.md, \"Writes through a wrapper\")", text, helperName(p, create))
}

// helperName names the helper for the object a create call writes: the
// last of its arguments that is an object (a wrapper's createFn(ctx,
// obj), a clientset's Create(ctx, obj, opts) — never the options).
func helperName(p *Pass, create *ast.CallExpr) string {
	for i := len(create.Args) - 1; i >= 0; i-- {
		t := p.TypesInfo.TypeOf(create.Args[i])
		if t == nil || !IsObjectPointer(t) && !IsObjectPointer(types.NewPointer(t)) {
			continue
		}
		if kind := p.KindOf(create.Args[i]); !genericKind(kind) {
			return contract.Ensure(kind)
		}
		break
	}
	return "the Ensure helper"
}

func isLiteral(e ast.Expr) bool {
	_, ok := ast.Unparen(e).(*ast.CompositeLit)
	return ok
}

// IsObjectPointer reports a pointer to a Kubernetes object: a struct that
// embeds ObjectMeta.
func IsObjectPointer(t types.Type) bool {
	ptr, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return false
	}
	st, ok := ptr.Elem().Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := 0; i < st.NumFields(); i++ {
		if f := st.Field(i); f.Embedded() && f.Name() == "ObjectMeta" {
			return true
		}
	}
	return false
}
