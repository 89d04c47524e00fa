package vet

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
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
// Anything outside that shape (the object changed after the literal,
// used elsewhere, a field that is a typed variable) gets no fix: turning
// typed values into apply configurations is not mechanical, because zero
// values would claim fields.

// helperFunc finds Ensure<Kind> for the object type obj among the
// package's imports, transitively: a function in a package ending in
// /ensure whose fourth parameter is *<Kind>ApplyConfiguration and whose
// first result is obj's type.
func (p *pass) helperFunc(obj types.Type) *types.Func {
	ptr, ok := obj.(*types.Pointer)
	if !ok {
		return nil
	}
	named, ok := types.Unalias(ptr.Elem()).(*types.Named)
	if !ok {
		return nil
	}
	kind := named.Obj().Name()
	seen := map[*types.Package]bool{}
	var found []*types.Func
	var walk func(pkg *types.Package)
	walk = func(pkg *types.Package) {
		if seen[pkg] {
			return
		}
		seen[pkg] = true
		if strings.HasSuffix(pkg.Path(), "/ensure") {
			if fn, ok := pkg.Scope().Lookup("Ensure" + kind).(*types.Func); ok {
				sig := fn.Type().(*types.Signature)
				if sig.Params().Len() >= 4 && sig.Results().Len() == 3 && types.Identical(sig.Results().At(0).Type(), obj) && acNamed(sig.Params().At(3).Type()) != nil {
					found = append(found, fn)
				}
			}
		}
		for _, imp := range pkg.Imports() {
			walk(imp)
		}
	}
	walk(p.Pkg)
	if len(found) == 0 {
		return nil
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Pkg().Path() < found[j].Pkg().Path() })
	return found[0]
}

// acNamed returns the named apply configuration type t points to.
func acNamed(t types.Type) *types.Named {
	ptr, ok := t.(*types.Pointer)
	if !ok {
		return nil
	}
	n, ok := types.Unalias(ptr.Elem()).(*types.Named)
	if !ok || !strings.HasSuffix(n.Obj().Name(), "ApplyConfiguration") {
		return nil
	}
	return n
}

// fixer builds the text edits of one suggested fix.
type fixer struct {
	p       *pass
	file    *ast.File
	imports map[string]string // path → name used in the new text
	added   map[string]string // path → name of imports to add
}

func (f *fixer) node(n ast.Node) string {
	var b bytes.Buffer
	printer.Fprint(&b, f.p.Fset, n)
	return b.String()
}

// qualify returns the name to refer to pkg by in the file, adding an
// import when the file has none: the existing name, or prefix+"ac"-like
// names derived from the path's last two elements.
func (f *fixer) qualify(pkg *types.Package, suffix string) string {
	if name, ok := f.imports[pkg.Path()]; ok {
		return name
	}
	for _, imp := range f.file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if path != pkg.Path() {
			continue
		}
		name := pkg.Name()
		if imp.Name != nil {
			name = imp.Name.Name
		}
		f.imports[pkg.Path()] = name
		return name
	}
	if pkg.Path() == "github.com/ssagen/ssagen/ensure" {
		suffix = ""
	}
	elems := strings.Split(pkg.Path(), "/")
	base := pkg.Name()
	if len(elems) >= 2 {
		base = elems[len(elems)-2] + elems[len(elems)-1]
		if pkg.Name() == "ensure" && len(elems) >= 3 {
			base = elems[len(elems)-3] + elems[len(elems)-2]
		}
		if pkg.Path() == "github.com/ssagen/ssagen/ensure" {
			base = "ssa" + pkg.Name()
		}
	}
	base = strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r == '_' {
			return -1
		}
		return r
	}, base) + suffix
	name := base
	for i := 2; f.taken(name); i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	f.imports[pkg.Path()] = name
	f.added[pkg.Path()] = name
	return name
}

func (f *fixer) taken(name string) bool {
	for _, n := range f.imports {
		if n == name {
			return true
		}
	}
	if f.p.Pkg.Scope().Lookup(name) != nil {
		return true
	}
	if scope := f.p.TypesInfo.Scopes[f.file]; scope != nil && scope.Lookup(name) != nil {
		return true
	}
	return false
}

// builder turns a composite literal of a typed struct into the builder
// chain of ac (the apply configuration for it); ok is false when some
// field cannot be carried over mechanically.
func (f *fixer) builder(lit *ast.CompositeLit, ac *types.Named, top bool) (string, bool) {
	acPkg := ac.Obj().Pkg()
	ctorName := strings.TrimSuffix(ac.Obj().Name(), "ApplyConfiguration")
	// The constructor's arity: from its signature when the package is
	// loaded whole; from export data only the types the helper mentions
	// are known, and then the generators' convention decides: Kind() for
	// nested types, Kind(name, namespace) for a namespaced object,
	// Kind(name) for a cluster-scoped one.
	params := -1
	if ctor, ok := acPkg.Scope().Lookup(ctorName).(*types.Func); ok {
		params = ctor.Type().(*types.Signature).Params().Len()
	} else if !top {
		params = 0
	}
	var name, namespace string
	var chain []string
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			return "", false // positional fields
		}
		key, ok := kv.Key.(*ast.Ident)
		if !ok {
			return "", false
		}
		switch key.Name {
		case "TypeMeta":
			continue
		case "ObjectMeta":
			if !top {
				return "", false
			}
			meta, ok := ast.Unparen(kv.Value).(*ast.CompositeLit)
			if !ok {
				return "", false
			}
			for _, m := range meta.Elts {
				mkv, ok := m.(*ast.KeyValueExpr)
				if !ok {
					return "", false
				}
				mkey, _ := mkv.Key.(*ast.Ident)
				if mkey == nil {
					return "", false
				}
				switch mkey.Name {
				case "Name":
					name = f.node(mkv.Value)
				case "Namespace":
					namespace = f.node(mkv.Value)
				case "OwnerReferences", "ResourceVersion", "UID", "ManagedFields", "GenerateName":
					return "", false
				default:
					call, ok := f.with(ac, mkey.Name, mkv.Value)
					if !ok {
						return "", false
					}
					chain = append(chain, call)
				}
			}
			continue
		}
		call, ok := f.with(ac, key.Name, kv.Value)
		if !ok {
			return "", false
		}
		chain = append(chain, call)
	}
	if params < 0 {
		params = 1
		if namespace != "" {
			params = 2
		}
	}
	var args []string
	switch params {
	case 0:
	case 1:
		if name == "" || namespace != "" {
			return "", false
		}
		args = []string{name}
	case 2:
		if name == "" || namespace == "" {
			return "", false
		}
		args = []string{name, namespace}
	default:
		return "", false
	}
	return f.qualify(acPkg, "ac") + "." + ctorName + "(" + strings.Join(args, ", ") + ")" + strings.Join(chain, ""), true
}

// with returns ".With<Field>(args)" carrying value over to ac.
func (f *fixer) with(ac *types.Named, field string, value ast.Expr) (string, bool) {
	obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(ac), true, ac.Obj().Pkg(), "With"+field)
	m, ok := obj.(*types.Func)
	if !ok {
		return "", false
	}
	sig := m.Type().(*types.Signature)
	if sig.Params().Len() != 1 {
		return "", false
	}
	param := sig.Params().At(0).Type()
	vt := f.p.TypesInfo.TypeOf(value)
	value = ast.Unparen(value)
	if sig.Variadic() {
		elem := param.(*types.Slice).Elem()
		if nested := acNamed(elem); nested != nil {
			lit, ok := value.(*ast.CompositeLit)
			if !ok {
				return "", false
			}
			var args []string
			for _, e := range lit.Elts {
				el, ok := ast.Unparen(e).(*ast.CompositeLit)
				if u, isAddr := ast.Unparen(e).(*ast.UnaryExpr); isAddr && u.Op == token.AND {
					el, ok = ast.Unparen(u.X).(*ast.CompositeLit)
				}
				if !ok {
					return "", false
				}
				b, ok := f.builder(el, nested, false)
				if !ok {
					return "", false
				}
				args = append(args, b)
			}
			return ".With" + field + "(" + strings.Join(args, ", ") + ")", true
		}
		if s, ok := vt.(*types.Slice); ok && types.Identical(s.Elem(), elem) {
			if lit, ok := value.(*ast.CompositeLit); ok {
				var args []string
				for _, e := range lit.Elts {
					if _, kv := e.(*ast.KeyValueExpr); kv {
						return "", false
					}
					args = append(args, f.node(e))
				}
				return ".With" + field + "(" + strings.Join(args, ", ") + ")", true
			}
			return ".With" + field + "(" + f.node(value) + "...)", true
		}
		return "", false
	}
	if nested := acNamed(param); nested != nil {
		lit, ok := value.(*ast.CompositeLit)
		if u, isAddr := value.(*ast.UnaryExpr); isAddr && u.Op == token.AND {
			lit, ok = ast.Unparen(u.X).(*ast.CompositeLit)
		}
		if !ok {
			return "", false
		}
		b, ok := f.builder(lit, nested, false)
		if !ok {
			return "", false
		}
		return ".With" + field + "(" + b + ")", true
	}
	if vt != nil && types.Identical(vt, param) {
		return ".With" + field + "(" + f.node(value) + ")", true
	}
	// A pointer field set from &x or ptr.To(x): the builder takes the value.
	if ptr, ok := vt.(*types.Pointer); ok && types.Identical(ptr.Elem(), param) {
		switch v := value.(type) {
		case *ast.UnaryExpr:
			if v.Op == token.AND {
				if _, lit := ast.Unparen(v.X).(*ast.CompositeLit); !lit {
					return ".With" + field + "(" + f.node(v.X) + ")", true
				}
			}
		case *ast.CallExpr:
			if fn := f.p.callee(v); fn != nil && len(v.Args) == 1 && (fn.Name() == "To" || fn.Name() == "Ptr") {
				return ".With" + field + "(" + f.node(v.Args[0]) + ")", true
			}
		}
	}
	return "", false
}

// createUpdateFix builds the suggested fix for a create-update finding, or
// nil when the rewrite is not mechanical.
func (p *pass) createUpdateFix(create *ast.CallExpr, ifs *ast.IfStmt, stack []ast.Node) []analysis.SuggestedFix {
	if p.clientMethod(create) != "Create" || len(create.Args) != 2 {
		return nil
	}
	objVar := p.objectVar(create.Args[1])
	if objVar == nil {
		return nil
	}
	if _, addr := ast.Unparen(create.Args[1]).(*ast.UnaryExpr); addr {
		return nil
	}
	helperFn := p.helperFunc(objVar.Type())
	if helperFn == nil {
		return nil
	}
	var file *ast.File
	var outer *ast.IfStmt // form B: if err := c.Create(...); err != nil { ... AlreadyExists ... }
	for _, n := range stack {
		switch n := n.(type) {
		case *ast.File:
			file = n
		case *ast.IfStmt:
			if n != ifs && n.Init != nil && containsNode(n.Init, create) && containsNode(n.Body, ifs) {
				outer = n
			}
		}
	}
	formB := outer != nil
	var anchor ast.Stmt = ifs
	if formB {
		anchor = outer
	}
	block, idx := enclosingBlock(stack, anchor)
	if file == nil || block == nil {
		return nil
	}
	// The statements: the literal, an optional SetControllerReference,
	// the Create (form A: its own statement right before ifs; form B:
	// the outer if's init).
	var def, owner, createStmt ast.Stmt
	var ownerExpr ast.Expr
	end := idx
	if !formB {
		if idx == 0 || ifs.Init != nil || ifs.Else != nil || !containsNode(block.List[idx-1], create) {
			return nil
		}
		createStmt = block.List[idx-1]
		end = idx - 1
		as, ok := createStmt.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || as.Rhs[0] != create {
			return nil
		}
	}
	for i := 0; i < end; i++ {
		s := block.List[i]
		if as, ok := s.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
			if id, ok := as.Lhs[0].(*ast.Ident); ok && p.TypesInfo.ObjectOf(id) == objVar {
				def = s
			}
		}
		for _, c := range calls(s) {
			if p.isPkgFunc(c, controllerutilPkg, "SetControllerReference") && len(c.Args) >= 2 && p.objectVar(c.Args[1]) == objVar {
				owner, ownerExpr = s, c.Args[0]
			}
		}
	}
	if def == nil {
		return nil
	}
	u, ok := ast.Unparen(def.(*ast.AssignStmt).Rhs[0]).(*ast.UnaryExpr)
	if !ok || u.Op != token.AND {
		return nil
	}
	lit, ok := ast.Unparen(u.X).(*ast.CompositeLit)
	if !ok {
		return nil
	}
	if owner != nil {
		if !ownerOnly(p, owner) {
			return nil
		}
	}
	// The object must not be used anywhere else.
	allowed := []ast.Node{def, anchor}
	if owner != nil {
		allowed = append(allowed, owner)
	}
	if createStmt != nil {
		allowed = append(allowed, createStmt)
	}
	for id, o := range p.TypesInfo.Uses {
		if o == objVar && !inAny(id, allowed) {
			return nil
		}
	}

	f := &fixer{p: p, file: file, imports: map[string]string{}, added: map[string]string{}}
	sig := helperFn.Type().(*types.Signature)
	b, ok := f.builder(lit, acNamed(sig.Params().At(3).Type()), true)
	if !ok {
		return nil
	}
	clientText, ok := f.clientArg(ast.Unparen(create.Fun).(*ast.SelectorExpr).X, sig.Params().At(1).Type())
	if !ok {
		return nil
	}
	ownerText, opts := "", ""
	if ownerExpr != nil {
		ownerText = f.node(ownerExpr)
	} else {
		ownerText = "nil"
		opts = ", " + f.qualify(types.NewPackage("github.com/ssagen/ssagen/ensure", "ensure"), "") + ".NoOwner()"
	}
	call := fmt.Sprintf("%s.%s(%s, %s, %s, %s%s)", f.qualify(helperFn.Pkg(), "ensure"), helperFn.Name(), f.node(create.Args[0]), clientText, ownerText, objVar.Name(), opts)

	var edits []analysis.TextEdit
	removed := []ast.Node{u}
	edits = append(edits, analysis.TextEdit{Pos: u.Pos(), End: u.End(), NewText: []byte(b)})
	if owner != nil {
		edits = append(edits, deleteLine(p.Fset, owner))
		removed = append(removed, owner)
	}
	if formB {
		as, ok := outer.Init.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || as.Rhs[0] != create || outer.Else != nil {
			return nil
		}
		ret := errorReturn(p, outer.Body, as.Lhs[0])
		if ret == nil {
			return nil
		}
		edits = append(edits,
			analysis.TextEdit{Pos: as.Pos(), End: as.End(), NewText: []byte("_, _, " + f.node(as.Lhs[0]) + " " + as.Tok.String() + " " + call)},
			analysis.TextEdit{Pos: outer.Body.Lbrace + 1, End: outer.Body.Rbrace, NewText: []byte("\n" + f.node(ret) + "\n")})
		removed = append(removed, as, outer.Body)
		call += "\n" + f.node(ret) // the kept error path's imports stay
	} else {
		as := createStmt.(*ast.AssignStmt)
		edits = append(edits,
			analysis.TextEdit{Pos: as.Pos(), End: as.End(), NewText: []byte("_, _, " + f.node(as.Lhs[0]) + " " + as.Tok.String() + " " + call)},
			deleteLine(p.Fset, ifs))
		removed = append(removed, as, ifs)
	}
	edits = append(edits, f.importEdits(removed, b+call)...)
	return []analysis.SuggestedFix{{
		Message:   fmt.Sprintf("Use %s.%s: one server-side apply, no request when unchanged", helperFn.Pkg().Name(), helperFn.Name()),
		TextEdits: edits,
	}}
}

// clientArg is the text of the client to hand the helper: the receiver of
// the Create when it is a client, or its embedded client field (the
// kubebuilder reconciler embeds client.Client next to a Scheme field that
// hides the client's Scheme method).
func (f *fixer) clientArg(x ast.Expr, param types.Type) (string, bool) {
	t := f.p.TypesInfo.TypeOf(x)
	if t == nil {
		return "", false
	}
	if types.AssignableTo(t, param) {
		return f.node(x), true
	}
	st := t
	if ptr, ok := st.(*types.Pointer); ok {
		st = ptr.Elem()
	}
	if s, ok := st.Underlying().(*types.Struct); ok {
		for i := 0; i < s.NumFields(); i++ {
			if fl := s.Field(i); fl.Embedded() && types.AssignableTo(fl.Type(), param) {
				return f.node(x) + "." + fl.Name(), true
			}
		}
	}
	return "", false
}

// ownerOnly: the statement only sets the controller reference and
// returns its error (`if err := SetControllerReference(...); err != nil
// { return ... }`, or the bare call).
func ownerOnly(p *pass, s ast.Stmt) bool {
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

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

// errorReturn finds, in body, the return statement that hands the create
// error on (mentions errExpr), to keep as the new error path.
func errorReturn(p *pass, body *ast.BlockStmt, errExpr ast.Expr) *ast.ReturnStmt {
	id, ok := errExpr.(*ast.Ident)
	if !ok {
		return nil
	}
	errObj := p.TypesInfo.ObjectOf(id)
	var found *ast.ReturnStmt
	ast.Inspect(body, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		if _, lit := n.(*ast.FuncLit); lit {
			return false
		}
		ret, ok := n.(*ast.ReturnStmt)
		if !ok {
			return true
		}
		ast.Inspect(ret, func(m ast.Node) bool {
			if rid, ok := m.(*ast.Ident); ok && p.TypesInfo.Uses[rid] == errObj {
				found = ret
			}
			return found == nil
		})
		return found == nil
	})
	return found
}

// importEdits adds the imports the new text needs and deletes those only
// the replaced code used.
func (f *fixer) importEdits(removed []ast.Node, newText string) []analysis.TextEdit {
	var edits []analysis.TextEdit
	paths := make([]string, 0, len(f.added))
	for path := range f.added {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	var add strings.Builder
	for _, path := range paths {
		fmt.Fprintf(&add, "\t%s %q\n", f.added[path], path)
	}
	if add.Len() > 0 {
		var decl *ast.GenDecl
		for _, d := range f.file.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT && g.Lparen.IsValid() {
				decl = g
				break
			}
		}
		if decl != nil {
			edits = append(edits, analysis.TextEdit{Pos: decl.Rparen, End: decl.Rparen, NewText: []byte(add.String())})
		} else {
			edits = append(edits, analysis.TextEdit{Pos: f.file.Name.End(), End: f.file.Name.End(), NewText: []byte("\n\nimport (\n" + add.String() + ")")})
		}
	}
	// Imports whose every use is in replaced code go.
	uses := map[*types.PkgName]int{}
	for id, o := range f.p.TypesInfo.Uses {
		pn, ok := o.(*types.PkgName)
		if !ok || f.p.Fset.File(id.Pos()) != f.p.Fset.File(f.file.Pos()) || inAny(id, removed) {
			continue
		}
		uses[pn]++
	}
	for _, imp := range f.file.Imports {
		pn, _ := f.p.TypesInfo.Implicits[imp].(*types.PkgName)
		if imp.Name != nil {
			pn, _ = f.p.TypesInfo.Defs[imp.Name].(*types.PkgName)
		}
		if pn == nil || uses[pn] > 0 || imp.Name != nil && (imp.Name.Name == "_" || imp.Name.Name == ".") {
			continue
		}
		if strings.Contains(newText, pn.Name()+".") {
			continue
		}
		edits = append(edits, deleteLine(f.p.Fset, imp))
	}
	return edits
}

// deleteLine removes n with the indentation before it and the newline
// after it.
func deleteLine(fset *token.FileSet, n ast.Node) analysis.TextEdit {
	tf := fset.File(n.Pos())
	start := tf.LineStart(tf.Line(n.Pos()))
	end := n.End()
	if line := tf.Line(n.End()); line < tf.LineCount() {
		end = tf.LineStart(line + 1)
	}
	return analysis.TextEdit{Pos: start, End: end}
}

func containsNode(outer, inner ast.Node) bool {
	return outer.Pos() <= inner.Pos() && inner.End() <= outer.End()
}

func inAny(n ast.Node, nodes []ast.Node) bool {
	for _, o := range nodes {
		if containsNode(o, n) {
			return true
		}
	}
	return false
}

// enclosingBlock returns the block whose statement list holds s.
func enclosingBlock(stack []ast.Node, s ast.Stmt) (*ast.BlockStmt, int) {
	for i := len(stack) - 1; i >= 0; i-- {
		if b, ok := stack[i].(*ast.BlockStmt); ok {
			for j, st := range b.List {
				if st == s {
					return b, j
				}
			}
		}
	}
	return nil, -1
}
