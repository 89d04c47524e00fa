package check

import (
	"go/ast"
	"go/token"
	"go/types"
)

const metav1Pkg = "k8s.io/apimachinery/pkg/apis/meta/v1"

// A mutate function that refuses an object another controller controls,
//
//	if hasControllerConflict(gateway, owner) {
//		return apierrors.NewAlreadyExists(gatewayv1.Resource("Gateway"), gateway.Name)
//	}
//
// does what the helper does for its owner: it returns an error wrapping
// ensure.ErrAlreadyControlled and writes nothing. The check goes, and
// that error becomes the one the guard returned, so the code after the
// write handles it as before:
//
//	if errors.Is(err, ssaensure.ErrAlreadyControlled) {
//		err = apierrors.NewAlreadyExists(gatewayv1.Resource("Gateway"), gateway.Name)
//	}

// controllerGuard is a mutate function's check for another controller:
// the error it returns and the owner it checks against.
type controllerGuard struct {
	stmt  *ast.IfStmt
	err   ast.Expr
	owner ast.Expr
}

// controllerGuardOf recognises `if <v has another controller than owner>
// { return <err> }`, the condition written inline or as a call of a
// function of the package whose body says it.
func (p *Pass) controllerGuardOf(s *ast.IfStmt, in *literalIntent) *controllerGuard {
	if s.Init != nil || s.Else != nil || len(s.Body.List) != 1 || in.variable == nil {
		return nil
	}
	ret, ok := s.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 || IsNil(ret.Results[0]) {
		return nil
	}
	isVar := func(e ast.Expr) bool { return p.ObjectVar(e) == in.variable }
	owner := p.otherController(s.Cond, isVar, func(ast.Expr) bool { return true })
	if owner == nil {
		call, ok := ast.Unparen(s.Cond).(*ast.CallExpr)
		if !ok || len(call.Args) != 2 || !isVar(call.Args[0]) || !p.guardFunc(call) {
			return nil
		}
		owner = call.Args[1]
	}
	return &controllerGuard{stmt: s, err: ret.Results[0], owner: owner}
}

// otherController matches `A && !metav1.IsControlledBy(obj, owner)` with
// A `controllerutil.HasControllerReference(obj)` or
// `metav1.GetControllerOf(obj) != nil`, obj accepted by isObj and owner
// by isOwner; it returns owner.
func (p *Pass) otherController(e ast.Expr, isObj, isOwner func(ast.Expr) bool) ast.Expr {
	and, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok || and.Op != token.LAND {
		return nil
	}
	has := false
	switch x := ast.Unparen(and.X).(type) {
	case *ast.CallExpr:
		has = p.IsPkgFunc(x, ControllerutilPkg, "HasControllerReference") && len(x.Args) == 1 && isObj(x.Args[0])
	case *ast.BinaryExpr:
		c, ok := ast.Unparen(x.X).(*ast.CallExpr)
		has = ok && x.Op == token.NEQ && IsNil(x.Y) && p.IsPkgFunc(c, metav1Pkg, "GetControllerOf") && len(c.Args) == 1 && isObj(c.Args[0])
	}
	not, ok := ast.Unparen(and.Y).(*ast.UnaryExpr)
	if !has || !ok || not.Op != token.NOT {
		return nil
	}
	c, ok := ast.Unparen(not.X).(*ast.CallExpr)
	if !ok || !p.IsPkgFunc(c, metav1Pkg, "IsControlledBy") || len(c.Args) != 2 || !isObj(c.Args[0]) || !isOwner(c.Args[1]) {
		return nil
	}
	return c.Args[1]
}

// guardFunc reports whether call calls a function of this package
// func(obj, owner) bool whose body returns false early (`if … { return
// false }`) and then says obj has another controller than owner.
func (p *Pass) guardFunc(call *ast.CallExpr) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	fn, ok := p.TypesInfo.Uses[id].(*types.Func)
	if !ok || fn.Pkg() != p.Pkg {
		return false
	}
	decl := p.FuncDecl(fn)
	if decl == nil || decl.Body == nil || len(decl.Body.List) == 0 {
		return false
	}
	params := decl.Type.Params.List
	var names []*ast.Ident
	for _, f := range params {
		names = append(names, f.Names...)
	}
	if len(names) != 2 {
		return false
	}
	param := func(i int) func(ast.Expr) bool {
		return func(e ast.Expr) bool {
			x, ok := ast.Unparen(e).(*ast.Ident)
			return ok && p.TypesInfo.Uses[x] == p.TypesInfo.Defs[names[i]]
		}
	}
	stmts := decl.Body.List
	for _, s := range stmts[:len(stmts)-1] {
		ifs, ok := s.(*ast.IfStmt)
		if !ok || ifs.Else != nil || len(ifs.Body.List) != 1 {
			return false
		}
		r, ok := ifs.Body.List[0].(*ast.ReturnStmt)
		if !ok || len(r.Results) != 1 {
			return false
		}
		if f, ok := ast.Unparen(r.Results[0]).(*ast.Ident); !ok || f.Name != "false" {
			return false
		}
	}
	ret, ok := stmts[len(stmts)-1].(*ast.ReturnStmt)
	return ok && len(ret.Results) == 1 && p.otherController(ret.Results[0], param(0), param(1)) != nil
}

// FuncDecl finds the declaration of fn among the package's files.
func (p *Pass) FuncDecl(fn *types.Func) *ast.FuncDecl {
	for _, f := range p.Files {
		if f.Pos() > fn.Pos() || fn.Pos() > f.End() {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && p.TypesInfo.Defs[fd.Name] == fn {
				return fd
			}
		}
	}
	return nil
}
