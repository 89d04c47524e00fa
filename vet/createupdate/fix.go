package createupdate

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/check"
	"github.com/ssagen/ssagen/vet/internal/flow"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
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
	whyUsed        = "the object is changed or read apart from the write (its last state is not the literal's)"
	whyField       = "a field of the literal has no exact builder (a typed variable, positional fields, owner references, generateName) and the helper's package has no converter From<Kind>: regenerate the helpers with this ssagen (ssagen generate)"
	// whyUpdateShape and whyIgnoreShape: the statements around the Create
	// are not one of the shapes -fix rewrites; each names them.
	whyUpdateShape = check.WhyUpdateShape
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
func (p pass) literalIntentOf(arg ast.Expr, block *ast.BlockStmt, end int, stack []ast.Node, site ...ast.Node) (*literalIntent, string) {
	in := &literalIntent{}
	if u, ok := ast.Unparen(arg).(*ast.UnaryExpr); ok && u.Op == token.AND && isLiteral(u.X) {
		lit := ast.Unparen(u.X).(*ast.CompositeLit)
		in.lit, in.addr = lit, u
		if in.helper = p.HelperFunc(p.TypesInfo.TypeOf(arg)); in.helper == nil {
			return nil, p.NoHelperFor(p.TypesInfo.TypeOf(arg))
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
	if in.helper = p.HelperFunc(objType); in.helper == nil {
		return nil, p.NoHelperFor(objType)
	}
	in.variable = objVar
	if p.findDefinition(in, block, end, stack); in.def == nil {
		return p.rangeIntent(in, stack, site)
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
	allowed, ok := in.allowed(p, in.def, site)
	if !ok {
		return nil, whyUsed
	}
	return p.usesAfter(in, allowed, stack, site)
}

// findDefinition sets the definition of the intent's variable and its
// SetControllerReference from the statements of block before end, or
// from an enclosing block before the one of the write (a literal, then a
// retry's function that writes it): the statements of that block up to
// the one holding the write.
func (p pass) findDefinition(in *literalIntent, block *ast.BlockStmt, end int, stack []ast.Node) {
	scan := func(stmts []ast.Stmt) {
		for _, s := range stmts {
			if as, ok := s.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && len(as.Lhs) == 1 && len(as.Rhs) == 1 && p.isObject(as.Lhs[0], in.variable) {
				in.def = s
			}
			for _, c := range check.Calls(s) {
				if p.IsPkgFunc(c, check.ControllerutilPkg, "SetControllerReference") && len(c.Args) >= 2 && p.ObjectVar(c.Args[1]) == in.variable {
					in.owner, in.ownerExpr = s, c.Args[0]
				}
			}
		}
	}
	scan(block.List[:end])
	for i := len(stack) - 1; i >= 0 && in.def == nil; i-- {
		outer, ok := stack[i].(*ast.BlockStmt)
		if !ok || outer == block || !check.ContainsNode(outer, block) || in.variable.Pos() < outer.Pos() || in.variable.Pos() > outer.End() {
			continue
		}
		if j := slices.IndexFunc(outer.List, func(st ast.Stmt) bool { return check.ContainsNode(st, block) }); j >= 0 {
			scan(outer.List[:j])
		}
	}
}

// allowed are the nodes that may use the intent's variable: its
// definition, the write's site and the SetControllerReference — false
// when that statement does more.
func (in *literalIntent) allowed(p pass, def ast.Node, site []ast.Node) ([]ast.Node, bool) {
	if in.owner == nil {
		return append([]ast.Node{def}, site...), true
	}
	return append([]ast.Node{def, in.owner}, site...), ownerOnly(p, in.owner)
}

// usesAfter checks the uses of the intent's variable apart from allowed:
// after the write, a read of its name or namespace (the same on the
// live object: the typed variable stays), or of a converted variable
// (which must then hold the live object: the caller decides); anywhere
// else, none.
func (p pass) usesAfter(in *literalIntent, allowed []ast.Node, stack, site []ast.Node) (*literalIntent, string) {
	siteEnd := token.NoPos
	for _, n := range site {
		siteEnd = max(siteEnd, n.End())
	}
	for id, o := range p.TypesInfo.Uses {
		if o != in.variable || check.InAny(id, allowed) {
			continue
		}
		switch after := siteEnd.IsValid() && id.Pos() > siteEnd; {
		case after && p.identityRead(id, stack):
			in.keep = in.keep || in.convert == nil
		case after && in.convert != nil:
			in.usedAfter = true
		default:
			return nil, whyUsed
		}
	}
	return in, ""
}

// identityRead reports whether the use id of an object variable reads
// only its name or namespace: v.Name, v.Namespace (not assigned, not
// taken the address of), v.GetName(), v.GetNamespace(), or
// client.ObjectKeyFromObject(v).
func (p pass) identityRead(id *ast.Ident, stack []ast.Node) bool {
	file := check.FileOf(stack)
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
		return p.IsPkgFunc(parent, check.ClientPkg, "ObjectKeyFromObject") && len(parent.Args) == 1 && parent.Args[0] == ast.Expr(id)
	}
	return false
}

// typedDesired says why an object defined from an expression that is not
// a literal (desired.gateway.DeepCopy(), newGateway(spec)) gets no fix.
func (p pass) typedDesired(rhs ast.Expr) string {
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
func (p pass) rangeIntent(in *literalIntent, stack []ast.Node, site []ast.Node) (*literalIntent, string) {
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
			if o == in.variable && !check.InAny(id, site) && !p.identityRead(id, stack) {
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
			if o == sliceVar && id != rs.X && !check.ContainsNode(sliceDef, id) {
				return converted() // its last state is not the literal's
			}
		}
	}
	if why := in.elemsOf(lit); why != "" {
		return nil, why
	}
	allowed, ok := in.allowed(p, rs.Value, site)
	if !ok {
		return nil, whyUsed
	}
	// Reads of the name elsewhere in the loop's body carry over.
	for _, st := range rs.Body.List {
		if !check.InAny(st, allowed) && !slices.ContainsFunc(site, func(n ast.Node) bool { return check.ContainsNode(st, n) }) {
			in.readsIn = append(in.readsIn, st)
		}
	}
	allowed = append(allowed, in.readsIn...)
	for id, o := range p.TypesInfo.Uses {
		if o == in.variable && !check.InAny(id, allowed) {
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
func (p pass) definedFromLiteral(v *types.Var, stack []ast.Node) (ast.Stmt, *ast.CompositeLit) {
	body := check.FuncBody(stack)
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
func (in *literalIntent) render(p pass, f *check.Fixer, ac *types.Named) (b string, edits []analysis.TextEdit, removed []ast.Node, ok bool) {
	if in.elems == nil {
		switch {
		case in.keep:
			// The typed variable stays; the helper is handed its
			// conversion, and only the owner's statement goes.
			if b, ok = f.Converted("From", ac, in.helper, in.desiredExpr()); !ok {
				return "", nil, nil, false
			}
			if in.owner != nil {
				edits, removed = append(edits, check.DeleteLine(p.Fset, in.owner)), append(removed, in.owner)
			}
			return b, edits, removed, true
		case in.convert != nil:
			if b, ok = f.Converted("From", ac, in.helper, in.convert); !ok {
				return "", nil, nil, false
			}
		default:
			if b, ok = f.Builder(in.lit, ac, true); !ok {
				// A field without an exact builder (a typed variable, owner
				// references): the converter carries the literal's JSON.
				if b, ok = f.Converted("From", ac, in.helper, in.addr); !ok {
					return "", nil, nil, false
				}
			}
		}
		edits, removed = in.edits(p, b)
		return b, edits, removed, true
	}
	var all []string
	for i, el := range in.elems {
		eb, ok := f.Builder(el, ac, true)
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
		edits = append(edits, check.DeleteLine(p.Fset, in.owner))
		removed = append(removed, in.owner)
	}
	return st + strings.Join(all, ""), edits, removed, true
}

// call renders the helper's call for the intent: the builder (inline) or
// the variable, the owner (or nil and NoOwner()), and extra options.
func (in *literalIntent) call(f *check.Fixer, ctx ast.Expr, clientText, builder string, extra ...string) string {
	desired := builder
	if in.variable != nil && !in.keep {
		desired = in.variable.Name()
	}
	return in.callWith(f, ctx, clientText, desired, extra...)
}

// callWith is call with the desired argument as given.
func (in *literalIntent) callWith(f *check.Fixer, ctx ast.Expr, clientText, desired string, extra ...string) string {
	ownerText, opts := "nil", ""
	if in.ownerExpr != nil {
		ownerText = f.Node(in.ownerExpr)
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
	return fmt.Sprintf("%s(%s, %s, %s, %s%s)", callee, f.Node(ctx), clientText, ownerText, desired, opts)
}

// edits are the intent's own edits: the literal becomes the builder (for
// a variable), the SetControllerReference goes.
func (in *literalIntent) edits(p pass, builder string) ([]analysis.TextEdit, []ast.Node) {
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
		edits = append(edits, check.DeleteLine(p.Fset, in.owner))
		removed = append(removed, in.owner)
	}
	return edits, removed
}

// createFix is what the fixes of a Create share: the intent, the fixer,
// the builder chains with their edits, and the client to hand the helper.
type createFix struct {
	in      *literalIntent
	f       *check.Fixer
	builder string
	edits   []analysis.TextEdit
	removed []ast.Node
	client  string
}

// createWrite prepares the fix of create, written by the statements site
// at index end of block; why says what is missing when it is nil.
func (p pass) createWrite(create *ast.CallExpr, file *ast.File, block *ast.BlockStmt, end int, stack, site []ast.Node) (*createFix, string) {
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
	if w.builder, w.edits, w.removed, ok = in.render(p, w.f, check.ACNamed(sig.Params().At(contract.ParamDesired).Type())); !ok {
		return nil, whyField
	}
	recv := ast.Unparen(create.Fun).(*ast.SelectorExpr).X
	if s := p.seamAt[create.Pos()]; s != nil {
		// Through a seam: the field is called as the helper would be,
		// with the client its default was bound to.
		in.callee = w.f.Node(recv) + "." + s.field.Name()
		w.client = w.f.Node(recv) + s.client
	} else if w.client, ok = w.f.ClientArg(recv, sig.Params().At(contract.ParamClient).Type()); !ok {
		return nil, "the receiver of the Create is neither a client.Client nor a struct embedding one: pass the client by hand (docs/vet.md)"
	}
	reads, why := in.readEdits(p, in.readsIn)
	if why != "" {
		return nil, why
	}
	w.edits = append(w.edits, reads...)
	return w, ""
}

// createUpdateFix builds the suggested fix for a create-update finding,
// or says why there is none.
func (p pass) createUpdateFix(create *ast.CallExpr, ifs *ast.IfStmt, stack []ast.Node) ([]analysis.SuggestedFix, string) {
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
			if n != ifs && n.Init != nil && check.ContainsNode(n.Init, create) && check.ContainsNode(n.Body, ifs) {
				outer = n
			}
		}
	}
	formB := outer != nil
	var anchor ast.Stmt = ifs
	if formB {
		anchor = outer
	}
	block, idx := check.EnclosingBlock(stack, anchor)
	if file == nil || block == nil {
		return nil, whyUpdateShape
	}
	// The Create: form A, its own statement right before ifs; form B, the
	// outer if's init.
	var createStmt ast.Stmt
	end := idx
	if !formB {
		if idx == 0 || ifs.Init != nil || ifs.Else != nil || !check.ContainsNode(block.List[idx-1], create) {
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
		edits = append(edits, analysis.TextEdit{Pos: as.Pos(), End: as.End(), NewText: []byte("_, " + be.res + ", " + f.Node(as.Lhs[0]) + " " + as.Tok.String() + " " + call)})
		removed = append(removed, as)
		call += be.text // the kept paths' imports stay
	} else {
		as := createStmt.(*ast.AssignStmt)
		edits = append(edits,
			analysis.TextEdit{Pos: as.Pos(), End: as.End(), NewText: []byte("_, _, " + f.Node(as.Lhs[0]) + " " + as.Tok.String() + " " + call)},
			check.DeleteLine(p.Fset, ifs))
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
			if check.ContainsNode(n.Body, call) {
				stmt = nil
			}
		case *ast.IfStmt:
			if n.Init != nil && check.ContainsNode(n.Init, call) {
				stmt = n
			}
		case *ast.AssignStmt:
			if check.ContainsNode(n, call) && stmt == nil {
				stmt = n
			}
		}
	}
	return file, stmt
}

// createIgnoreFix builds the suggested fix for a create-ignore finding:
// the Create becomes Ensure<Kind> with ensure.CreateOnly() — created when
// missing, never overwritten, no request once the cache has it. Shapes:
//
//	if err := c.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) { ... }
//	if err := client.IgnoreAlreadyExists(c.Create(ctx, obj)); err != nil { ... }
//	err := c.Create(ctx, obj)
//	if err != nil && !apierrors.IsAlreadyExists(err) { ... }
//
// with obj an inline literal or a variable built from one.
func (p pass) createIgnoreFix(create *ast.CallExpr, stack []ast.Node) ([]analysis.SuggestedFix, string) {
	if why := p.notClientCreate(create); why != "" {
		return nil, why
	}
	site := p.ignoreSiteOf(create, stack)
	if site == nil {
		return nil, whyIgnoreShape
	}
	as, ifs, errID := site.as, site.ifs, site.errID
	// The condition: err != nil (after IgnoreAlreadyExists), or
	// err != nil && !IsAlreadyExists(err).
	errObj := p.TypesInfo.ObjectOf(errID)
	// errCall: pkg.name(err).
	errCall := func(e ast.Expr, pkg, name string) bool {
		c, ok := ast.Unparen(e).(*ast.CallExpr)
		return ok && p.IsPkgFunc(c, pkg, name) && len(c.Args) == 1 && p.isObject(c.Args[0], errObj)
	}
	isErrNotNil := func(e ast.Expr) bool { return p.isObject(flow.ComparedToNil(e, token.NEQ), errObj) }
	notExists := func(e ast.Expr) bool {
		u, ok := ast.Unparen(e).(*ast.UnaryExpr)
		return ok && u.Op == token.NOT && errCall(u.X, check.APIErrorsPkg, "IsAlreadyExists")
	}
	cond := ast.Unparen(ifs.Cond)
	switch {
	case !site.ignored && ifs == site.stmt && isErrNotNil(cond):
		return p.ignoreBranchFix(create, site, stack)
	case site.ignored && isErrNotNil(cond):
	case !site.ignored && errCall(flow.ComparedToNil(cond, token.NEQ), check.ClientPkg, "IgnoreAlreadyExists"):
		// IgnoreAlreadyExists(err) != nil in the condition, the Create's
		// error assigned as it is: the same check written the other way.
	case !site.ignored:
		b, ok := cond.(*ast.BinaryExpr)
		if !ok || b.Op != token.LAND || !(isErrNotNil(b.X) && notExists(b.Y) || isErrNotNil(b.Y) && notExists(b.X)) {
			return nil, whyIgnoreShape
		}
	default:
		return nil, whyIgnoreShape
	}
	w, why := p.createWrite(create, site.file, site.block, site.idx, stack, []ast.Node{site.stmt, ifs})
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

// isObject: e names obj.
func (p pass) isObject(e ast.Expr, obj types.Object) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && p.TypesInfo.ObjectOf(id) == obj
}

// ignoreSite is where a Create that ignores AlreadyExists stands: the
// assignment of its error (in the if's init, or the statement before
// the if: stmt is the first of them), in block at idx.
type ignoreSite struct {
	file    *ast.File
	stmt    ast.Stmt
	block   *ast.BlockStmt
	idx     int
	as      *ast.AssignStmt
	ifs     *ast.IfStmt
	errID   *ast.Ident
	ignored bool // the Create is wrapped in IgnoreAlreadyExists
}

// ignoreSiteOf finds the site of create, nil when it is not one of the
// shapes createIgnoreFix rewrites.
func (p pass) ignoreSiteOf(create *ast.CallExpr, stack []ast.Node) *ignoreSite {
	file, stmt := writeStatement(create, stack) // the if (init form) or the assignment
	if stmt == nil {
		// The check's if is the finding's node; the Create is the
		// assignment right before it.
		if ifs, ok := stack[len(stack)-1].(*ast.IfStmt); ok {
			if block, i := check.EnclosingBlock(stack, ifs); block != nil && i > 0 && check.ContainsNode(block.List[i-1], create) {
				stmt = block.List[i-1]
			}
		}
	}
	if file == nil || stmt == nil {
		return nil
	}
	site := &ignoreSite{file: file, stmt: stmt}
	if site.block, site.idx = check.EnclosingBlock(stack, stmt); site.block == nil {
		return nil
	}
	switch s := stmt.(type) {
	case *ast.IfStmt:
		site.ifs = s
		site.as, _ = s.Init.(*ast.AssignStmt)
	case *ast.AssignStmt:
		site.as = s
		if site.idx+1 < len(site.block.List) {
			site.ifs, _ = site.block.List[site.idx+1].(*ast.IfStmt)
		}
	}
	as, ifs := site.as, site.ifs
	if as == nil || ifs == nil || ifs.Else != nil || len(as.Lhs) != 1 || len(as.Rhs) != 1 || (ifs != stmt && ifs.Init != nil) {
		return nil
	}
	var ok bool
	if site.errID, ok = as.Lhs[0].(*ast.Ident); !ok {
		return nil
	}
	rhs := ast.Unparen(as.Rhs[0])
	if c, ok := rhs.(*ast.CallExpr); ok && p.IsPkgFunc(c, check.ClientPkg, "IgnoreAlreadyExists") && len(c.Args) == 1 && ast.Unparen(c.Args[0]) == create {
		site.ignored = true
	} else if rhs != create {
		return nil
	}
	return site
}

// ignoreBranchFix is createIgnoreFix for the AlreadyExists check inside
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
func (p pass) ignoreBranchFix(create *ast.CallExpr, site *ignoreSite, stack []ast.Node) ([]analysis.SuggestedFix, string) {
	as, ifs := site.as, site.ifs
	exists, negated, existed, why := p.existedPath(ifs, p.TypesInfo.ObjectOf(site.errID))
	if exists == nil {
		return nil, why
	}
	w, why := p.createWrite(create, site.file, site.block, site.idx, stack, []ast.Node{ifs})
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
	kept := []ast.Node{}
	if negated {
		// Unwrap the check: its body is the error branch; what followed
		// it, the existing object's path.
		edits = append(edits, p.unwrapIf(exists))
		kept = append(kept, exists.Body)
		if len(existed) > 0 {
			edits = append(edits, analysis.TextEdit{Pos: exists.Body.Rbrace, End: exists.Body.Rbrace + 1, NewText: []byte(elseIf)})
		} else {
			edits = append(edits, analysis.TextEdit{Pos: exists.Body.Rbrace, End: ifs.Body.Rbrace})
		}
	} else {
		// The check goes; its body follows the error branch as the
		// existing object's path.
		text, why := p.updatePathText(in, exists.Body)
		if why != "" {
			return nil, why
		}
		existed = ifs.Body.List[1:]
		edits = append(edits, check.DeleteLine(p.Fset, exists),
			analysis.TextEdit{Pos: ifs.Body.Rbrace, End: ifs.Body.Rbrace + 1, NewText: []byte(elseIf + text + "}")})
	}
	for _, st := range existed {
		kept = append(kept, st)
	}
	reads, why := in.readEdits(p, kept)
	if why != "" {
		return nil, why
	}
	call := in.call(f, create.Args[0], w.client, b, contract.CreateOnly)
	edits = append(append(edits, reads...), analysis.TextEdit{Pos: as.Pos(), End: as.End(), NewText: []byte("_, " + res + ", " + site.errID.Name + " " + as.Tok.String() + " " + call)})
	removed = append(removed, as, exists.Cond)
	return f.Fix(createOnlyMessage(in), edits, removed, b+call+elseIf)
}

// existedPath finds, first in the Create's error branch ifs, the check of
// err for AlreadyExists (negated: !IsAlreadyExists) and the statements of
// the existing object's path, or says why they are not a shape the fix
// rewrites.
func (p pass) existedPath(ifs *ast.IfStmt, err types.Object) (exists *ast.IfStmt, negated bool, existed []ast.Stmt, why string) {
	if ifs.Else != nil || len(ifs.Body.List) == 0 {
		return nil, false, nil, whyIgnoreShape
	}
	exists, ok := ifs.Body.List[0].(*ast.IfStmt)
	if !ok || exists.Init != nil || exists.Else != nil {
		return nil, false, nil, whyIgnoreShape
	}
	call, negated := p.alreadyExistsCheck(exists.Cond)
	if call == nil || !p.isObject(call.Args[0], err) {
		return nil, false, nil, whyIgnoreShape
	}
	if c := ast.Unparen(exists.Cond); c != call {
		if u, ok := c.(*ast.UnaryExpr); !ok || u.Op != token.NOT || ast.Unparen(u.X) != call {
			return nil, false, nil, whyIgnoreShape // more than the check in the condition
		}
	}
	rest := ifs.Body.List[1:]
	switch {
	case negated && !terminates(exists.Body):
		return nil, false, nil, "the error path does not end the function or the loop iteration, so the AlreadyExists path and the other errors share code: rewrite by hand (docs/vet.md)"
	case negated:
		existed = rest
	case !terminates(exists.Body) || len(rest) == 0 || !terminates(&ast.BlockStmt{List: rest}):
		return nil, false, nil, "the AlreadyExists path does not end the function or the loop iteration, so it runs into the error path: rewrite by hand (docs/vet.md)"
	default:
		existed = exists.Body.List
	}
	for _, st := range existed {
		for _, c := range check.Calls(st) {
			if m := p.ClientMethod(c); m != "" {
				return nil, false, nil, fmt.Sprintf("the AlreadyExists path calls %s: rewrite by hand (docs/vet.md)", m)
			}
		}
	}
	return exists, negated, existed, ""
}

func createOnlyMessage(in *literalIntent) string {
	return fmt.Sprintf("Use %s.%s with ensure.CreateOnly(): created when missing, never overwritten, no request once the cache has it", in.helper.Pkg().Name(), in.helper.Name())
}

// ownerOnly: the statement only sets the controller reference and
// returns its error (`if err := SetControllerReference(...); err != nil
// { return ... }`, or the bare call).
func ownerOnly(p pass, s ast.Stmt) bool {
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
func (p pass) notClientCreate(create *ast.CallExpr) string {
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
func helperName(p pass, create *ast.CallExpr) string {
	for i := len(create.Args) - 1; i >= 0; i-- {
		t := p.TypesInfo.TypeOf(create.Args[i])
		if t == nil || !isObjectPointer(t) && !isObjectPointer(types.NewPointer(t)) {
			continue
		}
		if kind := p.KindOf(create.Args[i]); !check.GenericKind(kind) {
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

// isObjectPointer reports a pointer to a Kubernetes object: a struct that
// embeds ObjectMeta.
func isObjectPointer(t types.Type) bool {
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

// The rewrite of `if err := c.Create(ctx, obj); err != nil { ... }` keeps
// every path the author wrote, each where the helper's result puts it:
//
//	if err := c.Create(ctx, obj); err != nil {
//		if !apierrors.IsAlreadyExists(err) {
//			return fmt.Errorf("creating %q: %w", obj.Name, err)   // failed
//		}
//		if err = c.Update(ctx, obj); err != nil { return ... }    // existed
//		log.Info("updated")
//		continue
//	} else {
//		log.Info("created")                                       // created
//	}
//
// becomes
//
//	if _, res, err := xensure.EnsureX(ctx, c, owner, obj); err != nil {
//		return fmt.Errorf("creating %q: %w", *obj.Name, err)
//	} else if res != ssaensure.Created {
//		log.Info("updated")
//		continue
//	} else {
//		log.Info("created")
//	}
//
// The write on the existing object and its own error check go: the one
// apply does both, and its error takes the first path. Reads of the
// object's name and namespace become reads of the apply configuration's;
// any other read declines the fix.

// branchEdits are the edits of that rewrite (the init's aside), with the
// name the result is bound to ("_" when no path needs it).
type branchRewrite struct {
	edits   []analysis.TextEdit
	removed []ast.Node
	res     string
	text    string // the new text, for the imports it needs
}

func (p pass) branchEdits(f *check.Fixer, in *literalIntent, create *ast.CallExpr, outer, exists *ast.IfStmt) (*branchRewrite, string) {
	if _, negated := p.alreadyExistsCheck(exists.Cond); !negated || len(outer.Body.List) == 0 || outer.Body.List[0] != exists || exists.Init != nil || exists.Else != nil {
		return nil, "the AlreadyExists check is not the first statement of the Create's error branch (if !apierrors.IsAlreadyExists(err) { return ... }): rewrite by hand (docs/vet.md)"
	}
	if !terminates(exists.Body) {
		return nil, "the error path does not end the function or the loop iteration, so the AlreadyExists path and the other errors share code: rewrite by hand (docs/vet.md)"
	}
	if outer.Else != nil {
		if _, ok := outer.Else.(*ast.BlockStmt); !ok {
			return nil, "the Create's if has an else-if: rewrite by hand (docs/vet.md)"
		}
	}
	r := &branchRewrite{res: "_"}
	errName := ""
	errCall, _ := p.alreadyExistsCheck(exists.Cond)
	if id, ok := ast.Unparen(errCall.Args[0]).(*ast.Ident); ok {
		errName = id.Name
	}
	rest, writes, updateFailed, why := p.existingPath(outer, create, errName)
	if why != "" {
		return nil, why
	}
	kept := []ast.Node{exists.Body}
	for _, st := range rest {
		kept = append(kept, st)
	}
	if outer.Else != nil {
		kept = append(kept, outer.Else)
	}
	reads, why := in.readEdits(p, kept)
	if why != "" {
		return nil, why
	}
	r.edits = append(r.edits, reads...)
	created := func() string { return f.Qualify(types.NewPackage(contract.RuntimePkg, "ensure"), "") + ".Created" }
	// Unwrap the check: its body becomes the error branch.
	// (from the check's line, so a comment after the outer brace stays).
	unwrap := p.unwrapIf(exists)
	if updateFailed != nil {
		// The Update's failure keeps its own path: the apply's error says
		// whether it was changing an existing object.
		text, why := p.updatePathText(in, updateFailed)
		if why != "" {
			return nil, why
		}
		if text != p.blockText(exists.Body) {
			unwrap.NewText = []byte("if " + f.Qualify(types.NewPackage(contract.RuntimePkg, "ensure"), "") + ".IsUpdateError(" + errName + ") {" + text + "}\n")
		}
	}
	r.edits = append(r.edits, unwrap)
	r.removed = append(r.removed, exists.Cond)
	if len(rest) > 0 {
		r.res = "res"
		r.text = "} else if res != " + created() + " {"
		r.edits = append(r.edits, analysis.TextEdit{Pos: exists.Body.Rbrace, End: exists.Body.Rbrace + 1, NewText: []byte(r.text)})
		for _, st := range writes {
			r.edits = append(r.edits, check.DeleteLine(p.Fset, st))
			r.removed = append(r.removed, st)
		}
	} else {
		// Only writes after the check: the branch ends with it.
		r.edits = append(r.edits, analysis.TextEdit{Pos: exists.Body.Rbrace, End: outer.Body.Rbrace})
		for _, st := range writes {
			r.removed = append(r.removed, st)
		}
		if outer.Else != nil {
			// The else ran when the Create succeeded: now when the apply created.
			r.res = "res"
			r.text = "} else if res == " + created() + " "
			r.edits = append(r.edits, analysis.TextEdit{Pos: outer.Body.Rbrace, End: outer.Else.Pos(), NewText: []byte(r.text)})
		}
	}
	if r.res != "_" && flow.Mentions(outer, r.res) {
		return nil, "the name res is taken in this function: rewrite by hand (docs/vet.md)"
	}
	return r, ""
}

// existingPath splits the statements after the AlreadyExists check in
// the Create's error branch outer: the writes of the same object (each a
// statement of its own), the rest, and the first write's own error path
// — or says why the path is not one the fix rewrites.
func (p pass) existingPath(outer *ast.IfStmt, create *ast.CallExpr, errName string) (rest, writes []ast.Stmt, updateFailed *ast.BlockStmt, why string) {
	for _, st := range outer.Body.List[1:] {
		writesIt := false
		for _, c := range check.Calls(st) {
			if p.writesSameObject(c, create) {
				writesIt = true
			} else if m := p.ClientMethod(c); m != "" {
				return nil, nil, nil, fmt.Sprintf("the AlreadyExists path also calls %s (a read or a write of another object) before or after the Update: rewrite by hand (docs/vet.md)", m)
			}
		}
		switch {
		case !writesIt:
			rest = append(rest, st)
		case !writeOnly(st):
			return nil, nil, nil, "the Update of the existing object is part of a larger statement: rewrite by hand (docs/vet.md)"
		default:
			writes = append(writes, st)
			if b := updateErrorPath(st, errName); b != nil && updateFailed == nil {
				updateFailed = b
			}
		}
	}
	if len(writes) == 0 {
		return nil, nil, nil, whyNoUpdate
	}
	return rest, writes, updateFailed, ""
}

// unwrapIf is the edit that deletes an if's head, from the start of its
// line to its body's first statement (its line, when the body starts on
// the next), so that the body runs in its place; the closing brace is
// the caller's.
func (p pass) unwrapIf(ifs *ast.IfStmt) analysis.TextEdit {
	tf := p.Fset.File(ifs.Pos())
	end := ifs.Body.Lbrace + 1
	if l := tf.Line(ifs.Body.Lbrace); len(ifs.Body.List) > 0 && tf.Line(ifs.Body.List[0].Pos()) > l {
		end = tf.LineStart(l + 1)
	}
	return analysis.TextEdit{Pos: tf.LineStart(tf.Line(ifs.Pos())), End: end}
}

// updateErrorPath is the error path of `if err = c.Update(ctx, obj); err
// != nil { ... }` (err the name the AlreadyExists check reads), when it
// ends the function or the iteration; nil for any other write.
func updateErrorPath(st ast.Stmt, errName string) *ast.BlockStmt {
	s, ok := st.(*ast.IfStmt)
	if !ok || errName == "" || s.Else != nil || !terminates(s.Body) {
		return nil
	}
	as, ok := s.Init.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 || !isName(as.Lhs[0], errName) || !isName(flow.ComparedToNil(s.Cond, token.NEQ), errName) {
		return nil
	}
	return s.Body
}

// updatePathText is the text inside the braces of the Update's error
// path, its reads of the object turned into reads of the apply
// configuration.
func (p pass) updatePathText(in *literalIntent, b *ast.BlockStmt) (string, string) {
	edits, why := in.readEdits(p, []ast.Node{b})
	if why != "" {
		return "", why
	}
	src := p.blockText(b)
	from := b.Lbrace + 1
	sort.Slice(edits, func(i, j int) bool { return edits[i].Pos > edits[j].Pos })
	for _, e := range edits {
		i, j := int(e.Pos-from), int(e.End-from)
		src = src[:i] + string(e.NewText) + src[j:]
	}
	return src, ""
}

// blockText is the source between a block's braces.
func (p pass) blockText(b *ast.BlockStmt) string {
	tf := p.Fset.File(b.Pos())
	src, err := p.ReadSource(tf.Name())
	if err != nil {
		return ""
	}
	return string(src[tf.Offset(b.Lbrace)+1 : tf.Offset(b.Rbrace)])
}

// terminates: the block's last statement leaves it (return, continue,
// break, goto, panic).
func terminates(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	switch s := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt, *ast.BranchStmt:
		return true
	case *ast.ExprStmt:
		if c, ok := s.X.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return true
			}
		}
	}
	return false
}

// writeOnly: a statement that is the write and at most its error check
// (c.Update(...), err = c.Update(...), if err = c.Update(...); err !=
// nil { return ... }).
func writeOnly(st ast.Stmt) bool {
	switch s := st.(type) {
	case *ast.ExprStmt, *ast.AssignStmt:
		return true
	case *ast.IfStmt:
		return s.Init != nil && s.Else == nil && terminates(s.Body) && len(check.Calls(s.Cond)) == 0
	case *ast.ReturnStmt:
		return true
	}
	return false
}

// readEdits turn the reads of the object's name and namespace in the
// kept code into reads of the apply configuration the variable now holds
// (set by its constructor: never nil); any other read of the variable
// there declines the fix.
func (in *literalIntent) readEdits(p pass, kept []ast.Node) ([]analysis.TextEdit, string) {
	if in.variable == nil || in.keep {
		return nil, ""
	}
	setNS := in.setsMeta("Namespace")
	covered := map[*ast.Ident]bool{}
	var edits []analysis.TextEdit
	var bad string
	for _, k := range kept {
		ast.Inspect(k, func(n ast.Node) bool {
			if bad != "" {
				return false
			}
			var sel *ast.SelectorExpr
			call := false
			switch n := n.(type) {
			case *ast.CallExpr:
				if s, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok && len(n.Args) == 0 && (s.Sel.Name == "GetName" || s.Sel.Name == "GetNamespace") {
					sel, call = s, true
				}
			case *ast.SelectorExpr:
				sel = n
			}
			if sel == nil {
				return true
			}
			id, ok := ast.Unparen(sel.X).(*ast.Ident)
			if !ok || p.TypesInfo.Uses[id] != in.variable || covered[id] {
				return true
			}
			field := sel.Sel.Name
			if call {
				field = field[len("Get"):]
			}
			if field != "Name" && !(field == "Namespace" && setNS) {
				bad = fmt.Sprintf("the code kept after the write reads %s.%s, which the apply configuration does not carry as the object did: read it from the value the literal sets (docs/vet.md, \"Reads of the object\")", id.Name, sel.Sel.Name)
				return false
			}
			covered[id] = true
			end := sel.End()
			if call {
				end = n.End()
			}
			edits = append(edits, analysis.TextEdit{Pos: n.Pos(), End: end, NewText: []byte("*" + id.Name + "." + field)})
			return false
		})
	}
	if bad != "" {
		return nil, bad
	}
	for _, k := range kept {
		ast.Inspect(k, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && p.TypesInfo.Uses[id] == in.variable && !covered[id] && bad == "" {
				bad = fmt.Sprintf("the code kept after the write uses %s itself, which becomes an apply configuration: rewrite by hand (docs/vet.md, \"Reads of the object\")", id.Name)
			}
			return bad == ""
		})
	}
	if bad != "" {
		return nil, bad
	}
	return edits, ""
}

// setsMeta reports whether the literal (every element, for a range) sets
// metadata.<key>.
func (in *literalIntent) setsMeta(key string) bool {
	lits := in.elems
	if lits == nil {
		lits = []*ast.CompositeLit{in.lit}
	}
	for _, lit := range lits {
		if !metaKey(lit, key) {
			return false
		}
	}
	return len(lits) > 0
}

func metaKey(lit *ast.CompositeLit, key string) bool {
	if lit == nil {
		return false
	}
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "ObjectMeta" {
			meta, ok := ast.Unparen(kv.Value).(*ast.CompositeLit)
			if !ok {
				return false
			}
			for _, m := range meta.Elts {
				if mkv, ok := m.(*ast.KeyValueExpr); ok {
					if mk, ok := mkv.Key.(*ast.Ident); ok && mk.Name == key {
						return true
					}
				}
			}
		}
	}
	return false
}

// writesSameObject reports a write call whose arguments include the
// object the create created.
func (p pass) writesSameObject(c, create *ast.CallExpr) bool {
	if !p.IsWriteCall(c) || len(create.Args) < 2 {
		return false
	}
	v := p.ObjectVar(create.Args[len(create.Args)-1])
	if v == nil {
		return false
	}
	for _, a := range c.Args {
		if p.ObjectVar(a) == v {
			return true
		}
	}
	return false
}

// alreadyExistsCheck finds apierrors.IsAlreadyExists(x) in a condition.
func (p pass) alreadyExistsCheck(cond ast.Expr) (*ast.CallExpr, bool) {
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
			if found == nil && p.isErrPredicate(e, "IsAlreadyExists") && len(e.Args) == 1 {
				found, negated = e, neg
			}
		}
	}
	walk(cond, false)
	return found, negated
}

// isErrPredicate reports a call of apimachinery's error predicate name,
// or of a function of the module that is it (flow's Summary.Is:
// zalando's k8sutil.ResourceAlreadyExists).
func (p pass) isErrPredicate(call *ast.CallExpr, name string) bool {
	s := p.Flow.Of(p.Callee(call))
	return p.IsPkgFunc(call, check.APIErrorsPkg, name) || s != nil && s.Is == name
}
