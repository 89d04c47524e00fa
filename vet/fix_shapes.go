package vet

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/internal/contract"
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
		opts = ", " + f.qualify(types.NewPackage(contract.RuntimePkg, "ensure"), "") + "." + contract.NoOwner + "()"
	}
	call := fmt.Sprintf("%s.%s(%s, %s, %s, %s%s)", f.qualify(helperFn.Pkg(), ""), helperFn.Name(), f.node(create.Args[0]), clientText, ownerText, objVar.Name(), opts)

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
