package flow

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// ClientPkg is controller-runtime's client package.
const ClientPkg = "sigs.k8s.io/controller-runtime/pkg/client"

// Callee returns the function or method a call invokes, or nil (a call
// of a func value, a conversion, a builtin).
func Callee(info *types.Info, call *ast.CallExpr) *types.Func {
	fun := ast.Unparen(call.Fun)
	switch f := fun.(type) { // a generic function instantiated explicitly
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	return FuncOf(info, fun)
}

// FuncOf returns the function or method an expression names (f, pkg.F,
// r.method — a function value, or a call's callee), or nil.
func FuncOf(info *types.Info, e ast.Expr) *types.Func {
	switch f := ast.Unparen(e).(type) {
	case *ast.Ident:
		fn, _ := info.Uses[f].(*types.Func)
		return fn
	case *ast.SelectorExpr:
		fn, _ := info.Uses[f.Sel].(*types.Func)
		return fn
	}
	return nil
}

// ClientMethod returns the name of a controller-runtime client method a
// call invokes (Create, Update, Patch, Get, Apply ...), or "".
func ClientMethod(info *types.Info, call *ast.CallExpr) string {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	fn := Callee(info, call)
	if fn == nil {
		return ""
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return ""
	}
	if !IsClientType(sig.Recv().Type()) && !IsClientType(info.TypeOf(sel.X)) {
		return ""
	}
	return fn.Name()
}

// ClientsetMethod returns the name of a method of a client-go typed
// client a call invokes — a kind's client of a clientset
// (kubernetes.Interface's CoreV1().ConfigMaps(ns), or a generated
// clientset's), whose Get returns the object it reads, whose Create and
// Update take it second (ctx, obj, opts) —, or "". Such a client reads
// and writes the API server directly, no cache between.
func ClientsetMethod(info *types.Info, call *ast.CallExpr) string {
	fn := Callee(info, call)
	if fn == nil {
		return ""
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil || fn.Pkg() == nil {
		return ""
	}
	path := fn.Pkg().Path()
	if !strings.HasPrefix(path, "k8s.io/client-go/kubernetes/typed/") && !strings.Contains(path, "/clientset/") {
		return ""
	}
	switch fn.Name() {
	case "Get", "List", "Create", "Update", "UpdateStatus", "Patch", "Apply", "ApplyStatus", "Delete":
		return fn.Name()
	}
	return ""
}

// IsClientType reports controller-runtime client types and anything that
// embeds or implements their methods through the client package.
func IsClientType(t types.Type) bool {
	if t == nil {
		return false
	}
	for {
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
			continue
		}
		break
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == ClientPkg {
		return true
	}
	// A struct embedding client.Client (the kubebuilder reconciler).
	if st, ok := t.Underlying().(*types.Struct); ok {
		for i := 0; i < st.NumFields(); i++ {
			if st.Field(i).Embedded() && IsClientType(st.Field(i).Type()) {
				return true
			}
		}
	}
	return false
}

// IsStatusWriter reports X.Status() (or X.SubResource("status")).
func IsStatusWriter(e ast.Expr) bool {
	c, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if sel.Sel.Name == "Status" {
		return true
	}
	if sel.Sel.Name == "SubResource" && len(c.Args) == 1 {
		if lit, ok := c.Args[0].(*ast.BasicLit); ok && lit.Value == `"status"` {
			return true
		}
	}
	return false
}

// ObjectVar returns the variable an argument names (obj, &obj), or nil.
func ObjectVar(info *types.Info, e ast.Expr) *types.Var {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok {
		e = u.X
	}
	if id, ok := e.(*ast.Ident); ok {
		v, _ := info.ObjectOf(id).(*types.Var)
		return v
	}
	return nil
}

// Find reports whether a node of n's tree, n included, satisfies match.
func Find(n ast.Node, match func(ast.Node) bool) bool {
	for m := range ast.Preorder(n) {
		if match(m) {
			return true
		}
	}
	return false
}

// Mentions reports whether an identifier of n's tree is name.
func Mentions(n ast.Node, name string) bool {
	return Find(n, func(m ast.Node) bool { id, ok := m.(*ast.Ident); return ok && id.Name == name })
}

// CalledName is the name a call is written with: a function's, a
// method's or a function field's ("" for anything else).
func CalledName(call *ast.CallExpr) string {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

// ComparedToNil is x of a condition `x <op> nil` (op == or !=), or nil.
func ComparedToNil(cond ast.Expr, op token.Token) ast.Expr {
	if b, ok := ast.Unparen(cond).(*ast.BinaryExpr); ok && b.Op == op && IsNil(b.Y) {
		return b.X
	}
	return nil
}
