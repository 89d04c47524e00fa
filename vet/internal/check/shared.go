package check

import (
	"go/ast"
	"go/token"
	"strings"
)

// funcBody returns the body of the innermost function in stack.
func funcBody(stack []ast.Node) *ast.BlockStmt {
	for i := len(stack) - 1; i >= 0; i-- {
		switch f := stack[i].(type) {
		case *ast.FuncDecl:
			return f.Body
		case *ast.FuncLit:
			return f.Body
		}
	}
	return nil
}

// calls lists the calls in n (not descending into function literals when shallow).
func calls(n ast.Node) []*ast.CallExpr {
	var out []*ast.CallExpr
	if n == nil {
		return nil
	}
	ast.Inspect(n, func(m ast.Node) bool {
		if c, ok := m.(*ast.CallExpr); ok {
			out = append(out, c)
		}
		return true
	})
	return out
}

// isCreateCall reports a client Create or a function (field, wrapper)
// whose name says it creates.
func (p *pass) isCreateCall(call *ast.CallExpr) bool {
	if p.clientMethod(call) == "Create" {
		return true
	}
	name := calledName(call)
	return strings.Contains(strings.ToLower(name), "create") && !strings.Contains(strings.ToLower(name), "createorupdate") && !strings.Contains(strings.ToLower(name), "createorpatch")
}

// isWriteCall reports Update or Patch through a client or a named wrapper.
func (p *pass) isWriteCall(call *ast.CallExpr) bool {
	switch p.clientMethod(call) {
	case "Update", "Patch":
		return true
	}
	l := strings.ToLower(calledName(call))
	return strings.HasPrefix(l, "update") || strings.HasPrefix(l, "patch")
}

// calledName is the name a call is written with: a function's, a method's
// or a function field's ("" for anything else).
func calledName(call *ast.CallExpr) string {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

// zeroExpr: nil, an empty composite literal (ctrl.Result{}), or a zero
// literal.
func zeroExpr(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return e.Name == "nil" || e.Name == "false"
	case *ast.CompositeLit:
		return len(e.Elts) == 0
	case *ast.UnaryExpr:
		return e.Op == token.AND && zeroExpr(e.X)
	case *ast.BasicLit:
		return e.Value == "0" || e.Value == `""`
	}
	return false
}

// withWhy adds to a finding without a suggested fix the reason none is
// offered.
func withWhy(d diagnostic, why string) diagnostic {
	if len(d.SuggestedFixes) == 0 && why != "" {
		d.Message += noFix + why + ")"
	}
	return d
}

// NoFixReason returns the reason a finding's message gives for having
// no automatic fix, or "".
func NoFixReason(msg string) string {
	i := strings.LastIndex(msg, noFix)
	if i < 0 || !strings.HasSuffix(msg, ")") {
		return ""
	}
	return msg[i+len(noFix) : len(msg)-1]
}
