package check

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/internal/contract"
)

// The suggested fix of create-or-update: the object is built from a
// literal in the block, and the mutate function only assigns fields of it
// from values that do not read it, and sets the controller reference:
//
//	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: ns}}
//	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error {
//		role.Labels = map[string]string{"app": n}
//		role.Rules = []rbacv1.PolicyRule{{Verbs: []string{"get"}}}
//		return controllerutil.SetControllerReference(owner, role, r.Scheme)
//	})
//
// becomes
//
//	role := rbacv1ac.Role(n, ns).WithLabels(map[string]string{"app": n}).WithRules(rbacv1ac.PolicyRule().WithVerbs("get"))
//	_, _, err := rbacv1ensure.EnsureRole(ctx, r.Client, owner, role)
//
// The literal and the assignments merge into one intent: exactly the
// fields the old code wrote, which apply then owns (and prunes when they
// are dropped), where the mutate function overwrote them on every run.

const (
	whyMutate = "the mutate function does more than assign fields from values that do not read the object and set the controller reference: " +
		"build the apply configuration of what it sets and call the helper (docs/vet.md, \"CreateOrUpdate by hand\")"
	whyMutateFunc = "the mutate function is not written inline (a named function or variable): " +
		"build the apply configuration of what it sets and call the helper (docs/vet.md, \"CreateOrUpdate by hand\")"
	whyResultUsed = "the OperationResult of CreateOrUpdate is used after the call other than as a value of any type (a log's): " +
		"the helper returns an ssaensure.Result (Created, Configured, Unchanged, Skipped) to use instead (docs/vet.md, \"CreateOrUpdate by hand\")"
	whyNotOwnStatement = "the CreateOrUpdate call is not a statement of its own (`_, err := ...` or `if _, err := ...; err != nil`): " +
		"assign its error first, then call the helper there"
	whyCarryForward = "the mutate function carries values forward from the live object (a block run only once it exists, reading it) " +
		"and does more than copy them into the desired value it then assigns the object: an apply leaves the fields another writer set alone when this code does not send them — " +
		"drop the block by hand once the desired object sets none of them (docs/vet.md, \"CreateOrUpdate by hand\")"
	whyDefault = "the mutate function sets a field only while the live object lacks it (a default another writer may change): " +
		"send it in a separate apply with ssaensure.CreateOnly(), or always, by hand (docs/vet.md, \"CreateOrUpdate by hand\")"
	whyKeptInIf = "the CreateOrUpdate is in an if's init, and the rewrite needs a statement after the call (the error of another controller's check, " +
		"or the live object the variable takes): assign its error first (`_, err := ...`), then run -fix again"
	whyShadowed = "the object is read after the write, but is declared outside the block of the write, where the rewrite would declare its Result with := " +
		"and so a second variable of the object's name: declare the OperationResult before the block (`var result controllerutil.OperationResult`), then run -fix again"
	whyGuard = "the mutate function checks for another controller than the one it sets, or drops the error: " +
		"call the helper with that owner, which refuses an object another controller controls (ensure.ErrAlreadyControlled)"
	whyArgs       = "CreateOrUpdate is called with other arguments than (ctx, client, object, mutate)"
	whyClientType = "the client argument is not a client.Client the helper can take: pass the manager's client"
)

// fieldTree is the merged intent: a field's value, or its fields.
type fieldTree struct {
	names  []string
	value  map[string]ast.Expr
	nested map[string]*fieldTree
}

func newFieldTree() *fieldTree {
	return &fieldTree{value: map[string]ast.Expr{}, nested: map[string]*fieldTree{}}
}

// set puts value at path; false when the path is set twice.
func (t *fieldTree) set(path []string, value ast.Expr) bool {
	name := path[0]
	_, isValue := t.value[name]
	child, isNested := t.nested[name]
	if len(path) == 1 {
		if isValue || isNested {
			return false
		}
		t.value[name] = value
		t.names = append(t.names, name)
		return true
	}
	if isValue {
		return false
	}
	if !isNested {
		child = newFieldTree()
		t.nested[name] = child
		t.names = append(t.names, name)
	}
	return child.set(path[1:], value)
}

// addLiteral merges a literal's keyed fields; nested struct literals
// (not maps or slices) merge field by field.
func (t *fieldTree) addLiteral(p *Pass, lit *ast.CompositeLit, prefix []string) bool {
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return false
		}
		key, ok := kv.Key.(*ast.Ident)
		if !ok {
			return false
		}
		path := append(append([]string(nil), prefix...), key.Name)
		if inner, ok := ast.Unparen(kv.Value).(*ast.CompositeLit); ok {
			if _, isStruct := p.TypesInfo.TypeOf(inner).Underlying().(*types.Struct); isStruct {
				if !t.addLiteral(p, inner, path) {
					return false
				}
				continue
			}
		}
		if !t.set(path, kv.Value) {
			return false
		}
	}
	return true
}

// literal renders the tree as a keyed composite literal (no type: only the
// builder reads it).
func (t *fieldTree) literal() *ast.CompositeLit {
	lit := &ast.CompositeLit{}
	for _, n := range t.names {
		var v ast.Expr
		if x, ok := t.value[n]; ok {
			v = x
		} else {
			v = t.nested[n].literal()
		}
		lit.Elts = append(lit.Elts, &ast.KeyValueExpr{Key: ast.NewIdent(n), Value: v})
	}
	return lit
}

// typedLiteral renders the tree as the typed object it describes, &T{...}
// for typ *T, nested struct literals typed — on one line when short, one
// field a line otherwise (gofmt indents them) — or false when a field is
// not found on its struct.
func (t *fieldTree) typedLiteral(f *Fixer, typ types.Type) (string, bool) {
	ptr, isPtr := typ.(*types.Pointer)
	if isPtr {
		typ = ptr.Elem()
	}
	st, ok := typ.Underlying().(*types.Struct)
	if !ok {
		return "", false
	}
	var fields []string
	for _, n := range t.names {
		var field *types.Var
		for i := 0; i < st.NumFields(); i++ {
			if st.Field(i).Name() == n {
				field = st.Field(i)
			}
		}
		if field == nil {
			return "", false
		}
		text := ""
		if v, ok := t.value[n]; ok {
			text = f.node(v)
		} else if text, ok = t.nested[n].typedLiteral(f, field.Type()); !ok {
			return "", false
		}
		fields = append(fields, n+": "+text)
	}
	head := types.TypeString(typ, func(p *types.Package) string { return f.Qualify(p, "") })
	if isPtr {
		head = "&" + head
	}
	if line := head + "{" + strings.Join(fields, ", ") + "}"; len(line) <= 100 && !strings.Contains(line, "\n") {
		return line, true
	}
	return head + "{\n" + strings.Join(fields, ",\n") + ",\n}", true
}

// fieldPath is the chain of field names sel selects from the variable v
// (obj.Labels: ObjectMeta, Labels — embedded fields included), or nil.
func (p *Pass) fieldPath(e ast.Expr, v *types.Var) []string {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	var prefix []string
	if id, ok := ast.Unparen(sel.X).(*ast.Ident); ok {
		if p.TypesInfo.ObjectOf(id) != v {
			return nil
		}
	} else if prefix = p.fieldPath(sel.X, v); prefix == nil {
		return nil
	}
	s, ok := p.TypesInfo.Selections[sel]
	if !ok || s.Kind() != types.FieldVal {
		return nil
	}
	t := s.Recv()
	var names []string
	for _, i := range s.Index() {
		if ptr, ok := t.Underlying().(*types.Pointer); ok {
			t = ptr.Elem()
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok || i >= st.NumFields() {
			return nil
		}
		f := st.Field(i)
		names = append(names, f.Name())
		t = f.Type()
	}
	return append(prefix, names...)
}

// CreateOrUpdateFix builds the suggested fix for a create-or-update
// finding, or says why there is none.
func (p *Pass) CreateOrUpdateFix(call *ast.CallExpr, stack []ast.Node) ([]analysis.SuggestedFix, string) {
	if len(call.Args) != 4 {
		return nil, whyArgs
	}
	mutate, ok := ast.Unparen(call.Args[3]).(*ast.FuncLit)
	if !ok {
		return nil, whyMutateFunc
	}
	file, stmt := writeStatement(call, stack)
	if file == nil || stmt == nil {
		return nil, whyNotOwnStatement
	}
	block, idx := EnclosingBlock(stack, stmt)
	if block == nil {
		return nil, whyNotOwnStatement
	}
	as, _ := stmt.(*ast.AssignStmt)
	if ifs, ok := stmt.(*ast.IfStmt); ok {
		as, _ = ifs.Init.(*ast.AssignStmt)
	}
	if as == nil || len(as.Lhs) != 2 || len(as.Rhs) != 1 || ast.Unparen(as.Rhs[0]) != call {
		return nil, whyNotOwnStatement
	}
	in, why := p.literalIntentOf(call.Args[2], block, idx, stack, stmt)
	if in == nil || in.variable == nil || in.elems != nil {
		if why == "" {
			why = whyNotVariable
		}
		return nil, why
	}
	// The OperationResult becomes the helper's ssaensure.Result
	// (fix_result.go).
	f := &Fixer{p: p, file: file, imports: map[string]string{}, added: map[string]string{}}
	res := &resultRewrite{name: "_", tok: as.Tok.String()}
	if !isBlank(as.Lhs[0]) {
		id, ok := as.Lhs[0].(*ast.Ident)
		if !ok {
			return nil, whyResultUsed
		}
		var why string
		if res, why = p.resultOf(f, id, as, stack, in); res == nil {
			return nil, why
		}
	}
	in.result, in.resultTok, in.resultEdits = res.name, res.tok, res.edits
	result := res.name
	// The mutate function: assignments, then the controller reference.
	tree := newFieldTree()
	if in.lit != nil && !tree.addLiteral(p, in.lit, nil) {
		return nil, whyField
	}
	var assigns []ast.Stmt
	keep := false // a statement only the typed object carries
	reads := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && p.TypesInfo.Uses[id] == in.variable {
				found = true
			}
			return !found
		})
		return found
	}
	stmts := mutate.Body.List
	for i, s := range stmts {
		last := i == len(stmts)-1
		switch s := s.(type) {
		case *ast.AssignStmt:
			var path []string
			if s.Tok == token.ASSIGN && len(s.Lhs) == 1 && len(s.Rhs) == 1 && !reads(s.Rhs[0]) {
				path = p.fieldPath(s.Lhs[0], in.variable)
			}
			if path != nil && (in.convert != nil || in.keep || tree.set(path, s.Rhs[0])) {
				assigns = append(assigns, s) // v.Spec = x
				continue
			}
			// v.Labels[k] = x, labels := v.GetLabels(): what only the
			// typed object carries, converted.
			if in.variable == nil || in.lit == nil && in.convert == nil || !p.movable(s, in, reads) {
				return nil, whyMutate
			}
			keep = true
			assigns = append(assigns, s)
		case *ast.IfStmt:
			if g := p.controllerGuardOf(s, in); g != nil && in.guard == nil {
				// The check for another controller: the helper's own.
				in.guard, keep = g, true
				continue
			}
			if p.mapInit(s, in) {
				// if v.Labels == nil { v.Labels = map[string]string{} }:
				// the map the next assignments fill, on the typed object.
				keep = true
				assigns = append(assigns, s)
				continue
			}
			// if err := controllerutil.SetControllerReference(...); err != nil { return err }
			init, ok := s.Init.(*ast.AssignStmt)
			if ok && len(init.Rhs) == 1 && p.setsOwner(init.Rhs[0], in) && s.Else == nil && len(s.Body.List) == 1 {
				continue
			}
			if ok, why := p.carryForward(s, in, stmts[i+1:], as, stack); ok {
				// Values carried forward from the live object into the
				// desired one: an apply leaves them alone (fix_carry.go).
				continue
			} else if why != "" {
				return nil, why
			}
			if !p.movable(s, in, reads) {
				return nil, p.whyBranch(s, in)
			}
			keep = true
			assigns = append(assigns, s)
		case *ast.ExprStmt:
			if !p.movable(s, in, reads) {
				return nil, whyMutate
			}
			keep = true
			assigns = append(assigns, s)
		case *ast.ReturnStmt:
			if !last || len(s.Results) != 1 {
				return nil, whyMutate
			}
			if id, ok := ast.Unparen(s.Results[0]).(*ast.Ident); ok && id.Name == "nil" {
				continue
			}
			if !p.setsOwner(s.Results[0], in) {
				return nil, whyMutate
			}
		default:
			return nil, whyMutate
		}
	}
	if g := in.guard; g != nil {
		if in.ownerExpr == nil || types.ExprString(in.ownerExpr) != types.ExprString(g.owner) || isBlank(as.Lhs[1]) {
			return nil, whyGuard
		}
	}
	if keep && in.convert == nil {
		if in.variable == nil || in.lit == nil {
			return nil, whyMutate
		}
		in.keep = true
	}
	sig := in.helper.Type().(*types.Signature)
	ac := acNamed(sig.Params().At(contract.ParamDesired).Type())
	if in.convert != nil || in.keep {
		if stmt != ast.Stmt(as) && (in.guard != nil || in.usedAfter) {
			// if _, err := CreateOrUpdate(...); err != nil: the error
			// mapped after the call, or the live object the variable
			// takes, need statements of their own.
			return nil, whyKeptInIf
		}
		return p.convertedMutateFix(f, in, call, stmt, as, assigns, ac)
	}
	b, ok := f.builder(tree.literal(), ac, true)
	if !ok {
		// A field without an exact builder (gw.Spec = desired.Spec): the
		// typed object the mutate function leaves, converted by the
		// generated From<Kind>.
		if typed, typedOK := tree.typedLiteral(f, in.variable.Type()); typedOK {
			b, ok = f.convertedText("From", ac, in.helper, typed)
		}
		if !ok {
			return nil, whyField
		}
	}
	clientText, ok := f.clientArg(call.Args[1], sig.Params().At(contract.ParamClient).Type())
	if !ok {
		return nil, whyClientType
	}
	helperCall := in.call(f, call.Args[0], clientText, b)
	edits, removed := in.edits(p, b)
	edits = append(edits, analysis.TextEdit{Pos: as.Pos(), End: as.End(), NewText: []byte("_, " + result + ", " + f.node(as.Lhs[1]) + " " + in.resultTok + " " + helperCall)})
	edits = append(edits, in.resultEdits...)
	removed = append(removed, as)
	edits = append(edits, f.ImportEdits(removed, b+helperCall)...)
	return []analysis.SuggestedFix{{
		Message:   fmt.Sprintf("Use %s.%s: apply the fields the mutate function set, no resourceVersion, no request when unchanged", in.helper.Pkg().Name(), in.helper.Name()),
		TextEdits: edits,
	}}, ""
}

// whyBranch says why an if of a mutate function that reads the live
// object gets no fix: it carries values forward once the object exists,
// or it defaults a field the object lacks; else whyMutate.
func (p *Pass) whyBranch(s *ast.IfStmt, in *literalIntent) string {
	if in.variable == nil {
		return whyMutate
	}
	// Existence: !v.CreationTimestamp.IsZero(), v.ResourceVersion != "", v.UID != "".
	cond := ast.Unparen(s.Cond)
	exists := false
	ast.Inspect(cond, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			switch sel.Sel.Name {
			case "CreationTimestamp", "ResourceVersion", "UID", "GetCreationTimestamp", "GetResourceVersion", "GetUID":
				if p.ObjectVar(sel.X) == in.variable {
					exists = true
				}
			}
		}
		return !exists
	})
	if exists {
		return whyCarryForward
	}
	// A default: the condition and the body's assignments are of one field.
	for _, b := range s.Body.List {
		as, ok := b.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 {
			return whyMutate
		}
		lhs := types.ExprString(as.Lhs[0])
		if !strings.Contains(types.ExprString(cond), lhs) {
			return whyMutate
		}
	}
	if len(s.Body.List) > 0 && s.Else == nil {
		return whyDefault
	}
	return whyMutate
}

// movable reports whether a statement of a mutate function can run on
// the typed object before the helper's call, where it no longer sees the
// live object: it sets fields or map keys of the object, deletes map
// keys (an apply that stops sending a key it set removes it; one another
// writer set stays), or branches on values that do not read the object
// (or on the map made when missing) between such statements.
func (p *Pass) movable(s ast.Stmt, in *literalIntent, reads func(ast.Expr) bool) bool {
	if in.variable == nil {
		return false
	}
	switch s := s.(type) {
	case *ast.AssignStmt:
		if s.Tok == token.DEFINE {
			// labels := v.GetLabels(): the object's own map under another
			// name, filled and set back (v.SetLabels(labels)).
			if len(s.Lhs) == 1 && len(s.Rhs) == 1 && p.objMap(s.Rhs[0], in) {
				if id, ok := s.Lhs[0].(*ast.Ident); ok {
					if in.mapAliases == nil {
						in.mapAliases = map[types.Object]bool{}
					}
					in.mapAliases[p.TypesInfo.Defs[id]] = true
					return true
				}
			}
			// A local of the branch (v, ok := desired.Annotations[k]).
			for _, r := range s.Rhs {
				if reads(r) {
					return false
				}
			}
			return true
		}
		if s.Tok != token.ASSIGN || len(s.Lhs) != 1 || len(s.Rhs) != 1 || reads(s.Rhs[0]) {
			return false
		}
		if ix, ok := s.Lhs[0].(*ast.IndexExpr); ok {
			return p.objMap(ix.X, in) && !reads(ix.Index)
		}
		return p.fieldPath(s.Lhs[0], in.variable) != nil
	case *ast.ExprStmt:
		c, ok := s.X.(*ast.CallExpr)
		if !ok {
			return false
		}
		// v.SetLabels(labels), v.SetAnnotations(...): a map field set.
		if sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr); ok && p.ObjectVar(sel.X) == in.variable && len(c.Args) == 1 &&
			(sel.Sel.Name == "SetLabels" || sel.Sel.Name == "SetAnnotations") {
			return !reads(c.Args[0]) || p.objMap(c.Args[0], in)
		}
		// delete(v.Annotations, k)
		if len(c.Args) != 2 {
			return false
		}
		id, ok := ast.Unparen(c.Fun).(*ast.Ident)
		return ok && p.TypesInfo.Uses[id] == types.Universe.Lookup("delete") && p.objMap(c.Args[0], in) && !reads(c.Args[1])
	case *ast.IfStmt:
		if p.mapInit(s, in) {
			return true
		}
		if s.Init != nil && !p.movable(s.Init, in, reads) || reads(s.Cond) {
			return false
		}
		for _, b := range s.Body.List {
			if !p.movable(b, in, reads) {
				return false
			}
		}
		switch e := s.Else.(type) {
		case nil:
			return true
		case *ast.BlockStmt:
			for _, b := range e.List {
				if !p.movable(b, in, reads) {
					return false
				}
			}
			return true
		case *ast.IfStmt:
			return p.movable(e, in, reads)
		}
	}
	return false
}

// objMap reports whether e is a map of the intent's object that the
// object owns (ownMap): a map field of it, v.GetLabels(),
// v.GetAnnotations(), or a local a mutate function took it into.
func (p *Pass) objMap(e ast.Expr, in *literalIntent) bool {
	e = ast.Unparen(e)
	if id, ok := e.(*ast.Ident); ok {
		return in.mapAliases[p.TypesInfo.Uses[id]]
	}
	if c, ok := e.(*ast.CallExpr); ok && len(c.Args) == 0 {
		sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
		if !ok || p.ObjectVar(sel.X) != in.variable {
			return false
		}
		field := map[string]string{"GetLabels": "Labels", "GetAnnotations": "Annotations"}[sel.Sel.Name]
		if field == "" {
			return false
		}
		return p.ownMapPath([]string{"ObjectMeta", field}, in)
	}
	return p.isMap(e) && p.fieldPath(e, in.variable) != nil && p.ownMap(e, in)
}

// ownMap reports whether the map field m of the intent's object is its
// own, so that setting or deleting a key before the apply changes no
// other value: the object is a DeepCopy, or a literal that gives the
// field no value or a map literal of its own.
func (p *Pass) ownMap(m ast.Expr, in *literalIntent) bool {
	if in.convert != nil {
		c, ok := ast.Unparen(in.convert).(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "DeepCopy" && len(c.Args) == 0
	}
	return p.ownMapPath(p.fieldPath(m, in.variable), in)
}

// ownMapPath is ownMap of the field at path (ObjectMeta, Labels).
func (p *Pass) ownMapPath(path []string, in *literalIntent) bool {
	if in.convert != nil {
		return p.ownMap(nil, in)
	}
	if in.lit == nil || len(path) == 0 {
		return false
	}
	lit := in.lit
	for i, name := range path {
		var value ast.Expr
		for _, e := range lit.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok && k.Name == name {
					value = kv.Value
				}
			}
		}
		if value == nil {
			return true // not set: nil until the mutate function makes it
		}
		inner, ok := ast.Unparen(value).(*ast.CompositeLit)
		if !ok {
			return false
		}
		if i == len(path)-1 {
			return true
		}
		lit = inner
	}
	return false
}

// isMap reports whether e is of a map type.
func (p *Pass) isMap(e ast.Expr) bool {
	t := p.TypesInfo.TypeOf(e)
	if t == nil {
		return false
	}
	_, ok := t.Underlying().(*types.Map)
	return ok
}

// mapInit reports `if v.F == nil { v.F = make(map…) }` (or a map literal)
// on a map field F of the intent's variable: on the typed object the
// rewrite keeps, it makes the map the next assignments fill.
func (p *Pass) mapInit(s *ast.IfStmt, in *literalIntent) bool {
	if s.Init != nil || s.Else != nil || len(s.Body.List) != 1 || in.variable == nil {
		return false
	}
	cond, ok := ast.Unparen(s.Cond).(*ast.BinaryExpr)
	if !ok || cond.Op != token.EQL || !IsNil(cond.Y) || !p.objMap(cond.X, in) {
		return false
	}
	as, ok := s.Body.List[0].(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 || types.ExprString(as.Lhs[0]) != types.ExprString(cond.X) {
		return false
	}
	switch r := ast.Unparen(as.Rhs[0]).(type) {
	case *ast.CompositeLit:
		return len(r.Elts) == 0
	case *ast.CallExpr:
		id, ok := ast.Unparen(r.Fun).(*ast.Ident)
		return ok && id.Name == "make" && p.TypesInfo.Uses[id] == types.Universe.Lookup("make")
	}
	return false
}

// IsNil reports the identifier nil.
func IsNil(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && id.Name == "nil"
}

// setsOwner reports a SetControllerReference(owner, obj, ...) of the
// intent's object, and takes owner as the intent's.
func (p *Pass) setsOwner(e ast.Expr, in *literalIntent) bool {
	c, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || !p.IsPkgFunc(c, ControllerutilPkg, "SetControllerReference") || len(c.Args) < 2 || p.ObjectVar(c.Args[1]) != in.variable {
		return false
	}
	if in.ownerExpr == nil {
		in.ownerExpr = c.Args[0]
	}
	return true
}

// convertedMutateFix rewrites a CreateOrUpdate of a typed object built
// elsewhere (role := desired.copyRole()): the mutate function's
// assignments move before the helper's call, on the typed object, which
// the generated From<Kind> converts:
//
//	role := desired.copyRole()
//	role.Labels = labels
//	_, _, err := rbacv1ensure.EnsureRole(ctx, r.Client, owner, rbacv1ensure.FromRole(role))
func (p *Pass) convertedMutateFix(f *Fixer, in *literalIntent, call *ast.CallExpr, stmt ast.Stmt, as *ast.AssignStmt, assigns []ast.Stmt, ac *types.Named) ([]analysis.SuggestedFix, string) {
	sig := in.helper.Type().(*types.Signature)
	desired, ok := f.converted(ac, in.helper, in.desiredExpr())
	if !ok {
		return nil, whyField
	}
	clientText, ok := f.clientArg(call.Args[1], sig.Params().At(contract.ParamClient).Type())
	if !ok {
		return nil, whyClientType
	}
	indent := strings.Repeat("\t", p.Fset.Position(stmt.Pos()).Column-1)
	var text strings.Builder
	// The statement before each in the mutate function, moved or not.
	before := map[ast.Stmt]token.Pos{}
	if mutate, ok := ast.Unparen(call.Args[3]).(*ast.FuncLit); ok {
		prev := mutate.Body.Lbrace
		for _, st := range mutate.Body.List {
			before[st] = prev
			prev = st.End()
		}
	}
	for _, a := range assigns {
		// The statements move with their comments: those above them,
		// since the statement before, and those inside.
		for _, c := range f.commentsBetween(before[a], a.Pos()) {
			text.WriteString(c + "\n" + indent)
		}
		text.WriteString(f.commentedNode(a) + "\n" + indent)
	}
	helperCall := in.callWith(f, call.Args[0], clientText, desired)
	// Read after the write, the variable takes the live object the
	// helper returns, as CreateOrUpdate left it there; it is declared in
	// this block (in.def), so := assigns it.
	live := "_"
	if in.usedAfter {
		live = in.variable.Name()
		if in.resultTok == ":=" && p.Pkg.Scope().Innermost(as.Pos()) != in.variable.Parent() {
			// := would declare another variable of that name here, and
			// the reads after the write would not see the live object.
			return nil, whyShadowed
		}
	}
	call3 := live + ", " + in.result + ", " + f.node(as.Lhs[1]) + " " + in.resultTok + " " + helperCall
	if stmt != ast.Stmt(as) {
		// In an if's init: the statements go before the if, the call
		// stays its init.
		moved := text.String()
		edits := append([]analysis.TextEdit{
			{Pos: stmt.Pos(), End: stmt.Pos(), NewText: []byte(moved)},
			{Pos: as.Pos(), End: as.End(), NewText: []byte(call3)},
		}, in.resultEdits...)
		removed := []ast.Node{as}
		if in.owner != nil {
			edits = append(edits, deleteLine(p.Fset, in.owner))
			removed = append(removed, in.owner)
		}
		edits = append(edits, f.ImportEdits(removed, moved+call3)...)
		return []analysis.SuggestedFix{{
			Message:   fmt.Sprintf("Use %s.%s: apply the object the mutate function leaves, converted, no resourceVersion, no request when unchanged", in.helper.Pkg().Name(), in.helper.Name()),
			TextEdits: edits,
		}}, ""
	}
	text.WriteString(call3)
	if g := in.guard; g != nil {
		// The helper refuses an object another controller controls with
		// ErrAlreadyControlled; the code after it expects the guard's error.
		errText := f.node(as.Lhs[1])
		text.WriteString("\n" + indent + "if " + f.Qualify(types.NewPackage("errors", "errors"), "") + ".Is(" + errText + ", " +
			f.Qualify(types.NewPackage(contract.RuntimePkg, "ensure"), "") + ".ErrAlreadyControlled) {\n" +
			indent + "\t" + errText + " = " + f.node(g.err) + "\n" + indent + "}")
	}
	edits := append([]analysis.TextEdit{{Pos: as.Pos(), End: as.End(), NewText: []byte(text.String())}}, in.resultEdits...)
	removed := []ast.Node{as}
	if in.owner != nil {
		edits = append(edits, deleteLine(p.Fset, in.owner))
		removed = append(removed, in.owner)
	}
	edits = append(edits, f.ImportEdits(removed, text.String())...)
	return []analysis.SuggestedFix{{
		Message:   fmt.Sprintf("Use %s.%s: apply the object the mutate function leaves, converted, no resourceVersion, no request when unchanged", in.helper.Pkg().Name(), in.helper.Name()),
		TextEdits: edits,
	}}, ""
}
