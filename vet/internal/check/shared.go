package check

import (
	"go/ast"
	"go/types"
	"strings"

	"github.com/ssagen/ssagen/vet/internal/flow"
)

// FuncBody returns the body of the innermost function in stack.
func FuncBody(stack []ast.Node) *ast.BlockStmt {
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

// Calls lists the calls in n, those in its function literals too.
func Calls(n ast.Node) []*ast.CallExpr {
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

// IsCreateCall reports a client Create or a function (field, wrapper)
// whose name says it creates.
func (p *Pass) IsCreateCall(call *ast.CallExpr) bool {
	if p.ClientMethod(call) == "Create" {
		return true
	}
	name := flow.CalledName(call)
	return strings.Contains(strings.ToLower(name), "create") && !strings.Contains(strings.ToLower(name), "createorupdate") && !strings.Contains(strings.ToLower(name), "createorpatch")
}

// IsWriteCall reports Update or Patch through a client or a named wrapper.
func (p *Pass) IsWriteCall(call *ast.CallExpr) bool {
	switch p.ClientMethod(call) {
	case "Update", "Patch":
		return true
	}
	l := strings.ToLower(flow.CalledName(call))
	return strings.HasPrefix(l, "update") || strings.HasPrefix(l, "patch")
}

// WithWhy adds to a finding without a suggested fix the reason none is
// offered.
func WithWhy(d Finding, why string) Finding {
	if len(d.SuggestedFixes) == 0 && why != "" {
		d.Message += noFix + why + ")"
		d.Target.Why = why
	}
	return d
}

// noFix opens the note a finding without a suggested fix ends with.
const noFix = " (no automatic fix: "

// FlowContext is what flow's engines (Fresh, Reads) need of the pass.
func (p *Pass) FlowContext() *flow.Context {
	return &flow.Context{Info: p.TypesInfo, Fset: p.Fset, Pkg: p.Pkg, Decl: p.FuncDecl, Facts: p.Flow.Of}
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

// WhyClientType: a helper takes a client.Client.
const WhyClientType = "the client argument is not a client.Client the helper can take: pass the manager's client"
