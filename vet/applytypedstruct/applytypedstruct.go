// Package applytypedstruct defines an analyzer of ssagen vet that reports Patch(ctx, obj, client.Apply) (and client.Apply of a
// typed object) with a typed Go struct: encoding/json sends its zero
// values, and the apply takes ownership of each (replicas: 0, an empty
// selector), fighting the controllers that own them. It stays silent
// when every field encoding/json writes is set by the code. The fix is
// the generated builders, which send only what is set, through
// Ensure<Kind>.
package applytypedstruct

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strings"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/check"
)

// Doc is the analyzer's one-line description.
const Doc = "server-side apply of a typed Go struct: zero values claim field ownership"

// Analyzer is the analyzer (check.Analyzer).
var Analyzer = check.Analyzer("applytypedstruct", Doc, run)

// pass is the analyzer's pass; its methods are the analyzer's matchers.
type pass struct{ *check.Pass }

// run reports each apply of a typed struct that sends a zero value the
// code never set.
func run(cp *check.Pass) {
	p := pass{cp}
	p.SourceCalls(func(call *ast.CallExpr, stack []ast.Node) {
		if p.ClientMethod(call) != "Patch" || len(call.Args) < 3 {
			return
		}
		sel, ok := ast.Unparen(call.Args[2]).(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Apply" {
			return
		}
		if v, ok := p.TypesInfo.Uses[sel.Sel].(*types.Var); !ok || v.Pkg() == nil || v.Pkg().Path() != check.ClientPkg {
			return
		}
		t := check.Deref(p.TypesInfo.TypeOf(call.Args[1]))
		if !sendsItsFields(t) {
			return
		}
		status := false
		if fsel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			status = p.IsStatusWriter(fsel.X)
		}
		lit := p.fixedLiteral(call.Args[1], check.FuncBody(stack))
		if lit != nil && !p.zeroSent(t, lit, true, status, 0) {
			return // every field it sends was written on purpose
		}
		why := whyZeroLiteral
		if lit == nil {
			why = whyBuiltElsewhere
		}
		target := check.Ensures(p.KindOf(call.Args[1]), false)
		p.ReportFinding(check.WithWhy(check.NewFinding(call.Pos(), contract.CategoryApplyTypedStruct,
			"server-side apply of a typed Go struct: every zero-valued field without omitempty is sent, so this manager claims fields it never meant to set (controller-runtime #2702)",
			check.HelperFix(target)+" with a typed apply configuration: only the fields you set are sent", target), why))
	})
}

// Why -fix leaves an apply of a typed struct to its author: the cure is
// to send only the fields meant, and which those are is the author's
// knowledge. The generated converter would send exactly what the Patch
// sends, zero values included, so it would hide the finding, not fix it.
const (
	whyBuiltElsewhere = "the object is not one literal in sight (it is built elsewhere, or changed after its literal), so which of its zero values were set on purpose is not known here (its converted apply configuration " +
		"would send them as the Patch does): build its apply configuration where the object is built, with only the fields you mean to own, and pass it to the helper"
	whyZeroLiteral = "the literal leaves fields at their zero value that encoding/json sends, and whether any was meant is yours to say: " +
		"build the apply configuration of the fields you set and pass it to the helper"
)

// sendsItsFields says an apply of a value of static type t sends t's
// struct fields as encoding/json writes them. Not for an interface (what
// it holds is not known here: client.Object passed along), nor for a
// type of its own encoding: unstructured.Unstructured, a type that
// embeds it (its MarshalJSON is promoted), any type with a MarshalJSON.
func sendsItsFields(t types.Type) bool {
	if types.IsInterface(t) {
		return false
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == check.UnstructuredPkg {
		return false
	}
	m, _, _ := types.LookupFieldOrMethod(types.NewPointer(t), true, nil, "MarshalJSON")
	_, isFunc := m.(*types.Func)
	return !isFunc
}

// fixedLiteral is the composite literal the object arg is, inline or as a
// variable defined from one in body and never assigned to afterwards;
// nil otherwise.
func (p pass) fixedLiteral(arg ast.Expr, body *ast.BlockStmt) *ast.CompositeLit {
	if u, ok := ast.Unparen(arg).(*ast.UnaryExpr); ok && u.Op == token.AND {
		lit, _ := ast.Unparen(u.X).(*ast.CompositeLit)
		return lit
	}
	if c, ok := ast.Unparen(arg).(*ast.CallExpr); ok {
		return p.returnedLiteral(c)
	}
	v := p.ObjectVar(arg)
	if v == nil || body == nil {
		return nil
	}
	var lit *ast.CompositeLit
	changed := false
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return !changed
		}
		for i, lhs := range as.Lhs {
			root := lhs
			for {
				if s, ok := root.(*ast.SelectorExpr); ok {
					root = s.X
					continue
				}
				if ix, ok := root.(*ast.IndexExpr); ok {
					root = ix.X
					continue
				}
				break
			}
			id, ok := root.(*ast.Ident)
			if !ok || p.TypesInfo.ObjectOf(id) != v {
				continue
			}
			if as.Tok == token.DEFINE && lhs == root && len(as.Rhs) == len(as.Lhs) && lit == nil {
				if u, ok := ast.Unparen(as.Rhs[i]).(*ast.UnaryExpr); ok && u.Op == token.AND {
					lit, _ = ast.Unparen(u.X).(*ast.CompositeLit)
				}
				if c, ok := ast.Unparen(as.Rhs[i]).(*ast.CallExpr); ok {
					lit = p.returnedLiteral(c) // w := desiredWidget(...)
				}
				if lit != nil {
					continue
				}
			}
			changed = true
		}
		return !changed
	})
	if changed {
		return nil
	}
	return lit
}

// returnedLiteral is the literal a call of a function of this package
// returns, when its one return statement is `return &T{...}`; nil
// otherwise (a function of another package, a method, several returns).
func (p pass) returnedLiteral(call *ast.CallExpr) *ast.CompositeLit {
	fn := p.Callee(call)
	if fn == nil || fn.Pkg() != p.Pkg || fn.Type().(*types.Signature).Recv() != nil {
		return nil
	}
	fd := p.FuncDecl(fn)
	if fd == nil || fd.Body == nil {
		return nil
	}
	var ret *ast.ReturnStmt
	n := 0
	ast.Inspect(fd.Body, func(m ast.Node) bool {
		if _, lit := m.(*ast.FuncLit); lit {
			return false
		}
		if r, ok := m.(*ast.ReturnStmt); ok {
			ret, n = r, n+1
		}
		return true
	})
	if n != 1 || len(ret.Results) != 1 {
		return nil
	}
	if u, ok := ast.Unparen(ret.Results[0]).(*ast.UnaryExpr); ok && u.Op == token.AND {
		lit, _ := ast.Unparen(u.X).(*ast.CompositeLit)
		return lit
	}
	return nil
}

// zeroSent reports whether encoding/json writes a zero value the literal
// did not set somewhere in t: a field without omitempty left unset, or a
// struct (which omitempty never omits) whose own fields are. At the top,
// the stanza the endpoint drops is not looked at: status for the object,
// spec for its status.
func (p pass) zeroSent(t types.Type, lit *ast.CompositeLit, top, status bool, depth int) bool {
	st, ok := t.Underlying().(*types.Struct)
	if !ok || depth > 8 {
		return true
	}
	set := map[string]ast.Expr{}
	if lit != nil {
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				return true // positional: every field is set, zero or not; judge no further
			}
			if id, ok := kv.Key.(*ast.Ident); ok {
				set[id.Name] = kv.Value
			}
		}
	}
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !f.Exported() {
			continue
		}
		name, opts, _ := strings.Cut(reflect.StructTag(st.Tag(i)).Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" && !f.Embedded() {
			name = f.Name()
		}
		if top && ((name == "status" && !status) || (name == "spec" && status)) {
			continue
		}
		omitempty := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		ft := f.Type()
		v, isSet := set[f.Name()]
		if isSet {
			inner := ast.Unparen(v)
			if u, ok := inner.(*ast.UnaryExpr); ok && u.Op == token.AND {
				inner = ast.Unparen(u.X)
				if ptr, ok := ft.Underlying().(*types.Pointer); ok {
					ft = ptr.Elem()
				}
			}
			if c, ok := inner.(*ast.CompositeLit); ok {
				if _, isStruct := ft.Underlying().(*types.Struct); isStruct && !p.marshals(ft) {
					if p.zeroSent(ft, c, false, status, depth+1) {
						return true
					}
				}
			}
			continue
		}
		if _, isStruct := ft.Underlying().(*types.Struct); isStruct {
			if p.marshals(ft) {
				if !strings.Contains(","+opts+",", ",omitzero,") {
					return true // a zero time or quantity is still written
				}
				continue
			}
			if p.zeroSent(ft, nil, f.Embedded() && name == "" && top, status, depth+1) {
				return true
			}
			continue
		}
		if !omitempty {
			return true
		}
	}
	return false
}

// marshals reports whether t (or *t) writes its own JSON.
func (p pass) marshals(t types.Type) bool {
	m, _, _ := types.LookupFieldOrMethod(t, true, nil, "MarshalJSON") // addressable: *t's methods too
	return m != nil
}
