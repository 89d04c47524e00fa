package check

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/internal/gosrc"
)

// The OperationResult of a CreateOrUpdate becomes the helper's
// ensure.Result: the variable keeps its name where this statement
// declares it; where it assigns a variable an earlier CreateOrUpdate
// declared (result, err = ...), the statement declares one of its own
// (routeResult), and the uses this write reaches take its name — the
// earlier write keeps the old variable, and the next round of -fix
// rewrites it. Uses may be arguments where any value goes (a log's
// key-value pair, a %v), comparisons with controllerutil's constants and
// switches over them, which become the Result's:
//
//	OperationResultCreated                → Created
//	OperationResultUpdated (…Status…)     → Configured
//	OperationResultNone                   → Unchanged or Skipped (no request)

const whyResultAgain = "the OperationResult's variable is assigned again by a later CreateOrUpdate that is not rewritten yet: " +
	"-fix rewrites that one first where it can, then this one in its next round (docs/vet.md, \"CreateOrUpdate by hand\")"

// resultRewrite is how a CreateOrUpdate's OperationResult carries over.
type resultRewrite struct {
	name  string // the helper's Result's variable ("_" when unused)
	tok   string // := or =
	edits []analysis.TextEdit
}

// resultOf works out the rewrite of the OperationResult id the
// statement as assigns, or says why there is none.
func (p *Pass) resultOf(f *Fixer, id *ast.Ident, as *ast.AssignStmt, stack []ast.Node, in *literalIntent) (*resultRewrite, string) {
	v, ok := p.TypesInfo.ObjectOf(id).(*types.Var)
	if !ok {
		return nil, whyResultUsed
	}
	// Its assignments and uses are those of the function that declares
	// it, which may hold the one the write is in (a retry's function).
	body := declaringBody(stack, v)
	if body == nil {
		return nil, whyResultUsed
	}
	// The other assignments of v, and its uses.
	var assigns []ast.Node
	var uses []*ast.Ident
	lhs := map[*ast.Ident]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if a, ok := n.(*ast.AssignStmt); ok && a != as {
			for _, l := range a.Lhs {
				if x, ok := ast.Unparen(l).(*ast.Ident); ok && p.TypesInfo.ObjectOf(x) == v {
					assigns = append(assigns, a)
					lhs[x] = true
				}
			}
		}
		if x, ok := n.(*ast.Ident); ok && x != id && p.TypesInfo.Uses[x] == v && !lhs[x] {
			uses = append(uses, x)
		}
		return true
	})
	if p.TypesInfo.Defs[id] == v {
		if len(assigns) > 0 {
			return nil, whyResultAgain
		}
		edits, ok := p.resultUses(f, body, uses, "")
		if !ok {
			return nil, whyResultUsed
		}
		return &resultRewrite{name: id.Name, tok: as.Tok.String(), edits: edits}, ""
	}
	// var result controllerutil.OperationResult, assigned here alone: its
	// type becomes the helper's Result.
	if spec := p.varSpec(body, v); spec != nil && len(assigns) == 0 {
		edits, ok := p.resultUses(f, body, uses, "")
		if !ok {
			return nil, whyResultUsed
		}
		rt := f.Qualify(types.NewPackage(contract.RuntimePkg, "ensure"), "")
		edits = append(edits, analysis.TextEdit{Pos: spec.Type.Pos(), End: spec.Type.End(), NewText: []byte(rt + ".Result")})
		return &resultRewrite{name: id.Name, tok: as.Tok.String(), edits: edits}, ""
	}
	// result, err = CreateOrUpdate(...): a variable of its own, declared
	// here; err must then be this block's, which := assigns.
	scope := p.Pkg.Scope().Innermost(as.Pos())
	errID, ok := as.Lhs[1].(*ast.Ident)
	if !ok || scope == nil || scope.Lookup(errID.Name) == nil || scope.Lookup(errID.Name) != p.TypesInfo.ObjectOf(errID) {
		return nil, whyResultUsed
	}
	block, _ := EnclosingBlock(stack, as)
	if block == nil {
		return nil, whyResultUsed
	}
	for _, n := range stack {
		switch n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			if v.Pos() < n.Pos() || v.Pos() > n.End() {
				return nil, whyResultUsed // a loop: an earlier use may read this write next time round
			}
		}
	}
	next := token.Pos(-1)
	for _, a := range assigns {
		if a.Pos() > as.End() && (next < 0 || a.Pos() < next) {
			next = a.Pos()
		}
	}
	var reached []*ast.Ident
	for _, u := range uses {
		if u.Pos() > as.End() && (next < 0 || u.Pos() < next) {
			if !ContainsNode(block, u) {
				return nil, whyResultUsed
			}
			reached = append(reached, u)
		}
	}
	name := "_"
	if len(reached) > 0 {
		name = p.freshName(as.Pos(), objName(in)+"Result")
	}
	edits, ok := p.resultUses(f, body, reached, name)
	if !ok {
		return nil, whyResultUsed
	}
	tok := ":="
	if name == "_" {
		tok = "=" // nothing new to declare: err is this block's
	}
	return &resultRewrite{name: name, tok: tok, edits: edits}, ""
}

// declaringBody is the body of the innermost function on stack that
// declares v (as a local, a parameter or a result), or nil.
func declaringBody(stack []ast.Node, v *types.Var) *ast.BlockStmt {
	for i := len(stack) - 1; i >= 0; i-- {
		switch f := stack[i].(type) {
		case *ast.FuncDecl:
			if f.Pos() <= v.Pos() && v.Pos() < f.End() {
				return f.Body
			}
		case *ast.FuncLit:
			if f.Pos() <= v.Pos() && v.Pos() < f.End() {
				return f.Body
			}
		}
	}
	return nil
}

// varSpec is the `var v controllerutil.OperationResult` in body that
// declares v alone, without a value, or nil.
func (p *Pass) varSpec(body *ast.BlockStmt, v *types.Var) *ast.ValueSpec {
	var out *ast.ValueSpec
	ast.Inspect(body, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok || len(spec.Names) != 1 || len(spec.Values) != 0 || spec.Type == nil || p.TypesInfo.Defs[spec.Names[0]] != v {
			return out == nil
		}
		if named, ok := types.Unalias(v.Type()).(*types.Named); ok && named.Obj().Pkg() != nil &&
			named.Obj().Pkg().Path() == ControllerutilPkg && named.Obj().Name() == "OperationResult" {
			out = spec
		}
		return false
	})
	return out
}

func objName(in *literalIntent) string {
	if in.variable != nil {
		return in.variable.Name()
	}
	return "object"
}

// resultUses carries the uses of an OperationResult over to the
// helper's Result, renamed to rename unless it is "": the edits, or false
// when a use is none of those a Result can take.
func (p *Pass) resultUses(f *Fixer, body *ast.BlockStmt, uses []*ast.Ident, rename string) ([]analysis.TextEdit, bool) {
	parents := gosrc.Parents(body)
	rt := ""
	runtime := func() string {
		if rt == "" {
			rt = f.Qualify(types.NewPackage(contract.RuntimePkg, "ensure"), "")
		}
		return rt
	}
	var edits []analysis.TextEdit
	for _, u := range uses {
		name := u.Name
		if rename != "" {
			name = rename
		}
		switch parent := parents[u].(type) {
		case *ast.BinaryExpr:
			if parent.Op != token.EQL && parent.Op != token.NEQ {
				return nil, false
			}
			other := parent.Y
			if ast.Unparen(parent.Y) == ast.Expr(u) {
				other = parent.X
			}
			c := p.operationResult(other)
			if c == "" {
				return nil, false
			}
			edits = append(edits, analysis.TextEdit{Pos: parent.Pos(), End: parent.End(), NewText: []byte(compareResult(runtime(), name, parent.Op, c))})
		case *ast.SwitchStmt:
			if parent.Tag != ast.Expr(u) {
				return nil, false
			}
			seen := map[string]bool{} // a Result twice would not compile
			for _, s := range parent.Body.List {
				cc := s.(*ast.CaseClause)
				var vals []string
				for _, e := range cc.List {
					c := p.operationResult(e)
					if c == "" {
						return nil, false
					}
					for _, r := range resultConsts(runtime(), c) {
						if !slices.Contains(vals, r) {
							if seen[r] {
								return nil, false // two cases of one Result
							}
							vals = append(vals, r)
						}
					}
				}
				for _, r := range vals {
					seen[r] = true
				}
				if len(cc.List) > 0 {
					edits = append(edits, analysis.TextEdit{Pos: cc.List[0].Pos(), End: cc.List[len(cc.List)-1].End(), NewText: []byte(strings.Join(vals, ", "))})
				}
			}
			if rename != "" {
				edits = append(edits, analysis.TextEdit{Pos: u.Pos(), End: u.End(), NewText: []byte(rename)})
			}
		case *ast.CallExpr:
			if !p.onlyAsAnyArg(parent, u) {
				return nil, false
			}
			if rename != "" {
				edits = append(edits, analysis.TextEdit{Pos: u.Pos(), End: u.End(), NewText: []byte(rename)})
			}
		default:
			return nil, false
		}
	}
	return edits, true
}

// operationResult is the name of the controllerutil.OperationResult
// constant e is ("" when it is none).
func (p *Pass) operationResult(e ast.Expr) string {
	var id *ast.Ident
	switch x := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		id = x.Sel
	case *ast.Ident:
		id = x
	default:
		return ""
	}
	c, ok := p.TypesInfo.Uses[id].(*types.Const)
	if !ok || c.Pkg() == nil || c.Pkg().Path() != ControllerutilPkg || !strings.HasPrefix(c.Name(), "OperationResult") {
		return ""
	}
	return c.Name()
}

// resultConsts are the Results an OperationResult constant stands for.
func resultConsts(rt, c string) []string {
	switch c {
	case "OperationResultCreated":
		return []string{rt + ".Created"}
	case "OperationResultNone":
		return []string{rt + ".Unchanged", rt + ".Skipped"}
	}
	return []string{rt + ".Configured"}
}

// compareResult is `name op c` over Results.
func compareResult(rt, name string, op token.Token, c string) string {
	vals := resultConsts(rt, c)
	parts := make([]string, len(vals))
	for i, r := range vals {
		parts[i] = name + " " + op.String() + " " + r
	}
	if len(parts) == 1 {
		return parts[0]
	}
	join := " || "
	if op == token.NEQ {
		join = " && "
	}
	return "(" + strings.Join(parts, join) + ")"
}

// onlyAsAnyArg reports whether u is an argument of call where any value
// goes: a parameter of interface type, or a variadic ...any.
func (p *Pass) onlyAsAnyArg(call *ast.CallExpr, u *ast.Ident) bool {
	sig, _ := types.Unalias(p.TypesInfo.TypeOf(call.Fun)).(*types.Signature)
	if sig == nil {
		return false
	}
	for i, a := range call.Args {
		if ast.Unparen(a) != ast.Expr(u) {
			continue
		}
		var param types.Type
		switch {
		case sig.Variadic() && i >= sig.Params().Len()-1:
			param = sig.Params().At(sig.Params().Len() - 1).Type().(*types.Slice).Elem()
		case i < sig.Params().Len():
			param = sig.Params().At(i).Type()
		}
		return param != nil && types.IsInterface(param)
	}
	return false
}
