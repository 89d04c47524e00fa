package updatefromscratch

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"unicode"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/check"
	"github.com/ssagen/ssagen/vet/internal/flow"
)

// updateCachedFix turns an Update of an object read from the cache into
// the generated Apply<Kind>Changes: a copy of the object is taken where
// it was read, before the code changes it, and the write applies what the
// code changed — and what the field manager already owns — under a field
// manager of its own, so the creator's fields and other writers' stay
// theirs (docs/ensure.md):
//
//	pod := &corev1.Pod{}
//	err := r.Get(ctx, key, pod)
//	podBefore := pod.DeepCopy()
//	...
//	pod.Labels[sandboxLabel] = nameHash
//	if err := ssaensure.Err(corev1ensure.ApplyPodChanges(ctx, r.Client, podBefore, pod, ssaensure.FieldManager("sandbox-pod-changes"))); err != nil {
//
// Declined where the copy cannot be taken right after the read, in a
// block that holds the write: the read and the write in separate
// branches, or the variable pointed at another object between them.
func (p pass) updateCachedFix(call *ast.CallExpr, stack []ast.Node, body *ast.BlockStmt, v *types.Var) ([]analysis.SuggestedFix, string) {
	if len(call.Args) != 2 {
		return nil, "the Update has options, which the helper does not take: rewrite it by hand (docs/vet.md)"
	}
	objType := p.TypesInfo.TypeOf(call.Args[1])
	kind := p.KindOf(call.Args[1])
	obj, ok := ast.Unparen(call.Args[1]).(*ast.Ident)
	if !ok || p.TypesInfo.ObjectOf(obj) != v {
		return nil, "the Update's object is not a variable the fix can copy: rewrite it by hand with " + contract.ApplyChanges(kind)
	}
	changes, why := p.KindHelper(objType, contract.ApplyChanges)
	if changes == nil {
		return nil, why
	}
	file := check.FileOf(stack)
	read := p.LastRead(body, v, call.Pos())
	if file == nil || read == nil {
		return nil, "no read of the object before the Update in this function"
	}
	at, why := p.copyPoint(file, read, call)
	if why != "" {
		return nil, why
	}
	if p.reassigned(body, v, at, call.Pos()) {
		return nil, "the variable is pointed at another object between the read and the Update: rewrite it by hand with " + contract.ApplyChanges(kind)
	}
	f := p.NewFixer(file)
	sig := changes.Type().(*types.Signature)
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil, check.WhyClientType
	}
	clientText, ok := f.ClientArg(sel.X, sig.Params().At(contract.ParamClient).Type())
	if !ok {
		return nil, check.WhyClientType
	}
	before := p.freshName(call.Pos(), obj.Name+"Before")
	rt := f.Qualify(types.NewPackage(contract.RuntimePkg, "ensure"), "")
	text := fmt.Sprintf("%s.Err(%s.%s(%s, %s, %s, %s, %s.%s(%q)))", rt, f.Qualify(changes.Pkg(), ""), changes.Name(),
		f.Node(call.Args[0]), clientText, before, obj.Name, rt, contract.FieldManager, p.changesManager(stack, kind))
	copyText := fmt.Sprintf("\n%s := %s.DeepCopy()", before, obj.Name)
	edits := []analysis.TextEdit{
		{Pos: at, End: at, NewText: []byte(copyText)},
		{Pos: call.Pos(), End: call.End(), NewText: []byte(text)},
	}
	return f.Fix(fmt.Sprintf("Use %s.%s: apply what the code changed under a field manager of its own, no resourceVersion, no request when nothing changed",
		changes.Pkg().Name(), changes.Name()), edits, []ast.Node{call}, text)
}

// copyPoint is where the copy of the object read by read goes: right
// after the statement of the read, when that statement's block holds the
// write; at the start of the branch holding the write, when the read is
// the init of an if whose branch writes (`if err := r.Get(...); err !=
// nil { ... } else { ...; r.Update(...) }`). Otherwise why says no.
func (p pass) copyPoint(file *ast.File, read, write *ast.CallExpr) (token.Pos, string) {
	path, _ := astutil.PathEnclosingInterval(file, read.Pos(), read.End())
	for i, n := range path {
		st, ok := n.(ast.Stmt)
		if !ok || i+1 >= len(path) {
			continue
		}
		switch path[i+1].(type) {
		case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
		default:
			continue
		}
		if !check.ContainsNode(path[i+1], write) {
			return token.NoPos, "the object is read in another block than the one that writes it: rewrite it by hand"
		}
		if !check.ContainsNode(st, write) {
			return st.End(), ""
		}
		ifs, ok := st.(*ast.IfStmt)
		if !ok || ifs.Init == nil || !check.ContainsNode(ifs.Init, read) {
			return token.NoPos, "the read and the write are parts of one statement the fix cannot split: rewrite it by hand"
		}
		if check.ContainsNode(ifs.Body, write) {
			return ifs.Body.Lbrace + 1, ""
		}
		if els, ok := ifs.Else.(*ast.BlockStmt); ok && check.ContainsNode(els, write) {
			return els.Lbrace + 1, ""
		}
		return token.NoPos, "the write is in an else-if of the read's if: rewrite it by hand"
	}
	return token.NoPos, "no statement holds the read"
}

// reassigned reports an assignment to v itself (not to its fields, and
// not of nil) between from and to.
func (p pass) reassigned(body *ast.BlockStmt, v *types.Var, from, to token.Pos) bool {
	return flow.Find(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || as.Pos() < from || as.Pos() > to {
			return false
		}
		for i, l := range as.Lhs {
			if id, ok := l.(*ast.Ident); ok && p.TypesInfo.ObjectOf(id) == v && !(len(as.Rhs) == len(as.Lhs) && p.isNil(as.Rhs[i])) {
				return true
			}
		}
		return false
	})
}

// isNil reports the predeclared nil: a variable set to it points at no
// other object (and an Update of it would panic, so no path from there
// reaches the write).
func (p pass) isNil(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	_, isNil := p.TypesInfo.ObjectOf(id).(*types.Nil)
	return isNil
}

// freshName is name, or name with a number, unused in the scope at pos.
func (p pass) freshName(pos token.Pos, name string) string {
	scope := p.Pkg.Scope().Innermost(pos)
	taken := func(n string) bool {
		if scope != nil {
			if _, obj := scope.LookupParent(n, pos); obj != nil {
				return true
			}
		}
		return false
	}
	out := name
	for i := 2; taken(out); i++ {
		out = fmt.Sprintf("%s%d", name, i)
	}
	return out
}

// changesManager names the field manager of a function's applied
// changes to a kind: the reconciler's name without "Reconciler" (or the
// function's), and the kind, in kebab case — sandbox-pod-changes. One
// per reconciler and kind: Apply<Kind>Changes sends what the manager
// owns with every change, so sites sharing it never prune each other.
func (p pass) changesManager(stack []ast.Node, kind string) string {
	owner := ""
	if recv := p.ReceiverOf(stack); recv != nil {
		if n, ok := types.Unalias(recv).(*types.Named); ok {
			owner = strings.TrimSuffix(n.Obj().Name(), "Reconciler")
		}
	}
	if owner == "" {
		for i := len(stack) - 1; i >= 0; i-- {
			if fd, ok := stack[i].(*ast.FuncDecl); ok {
				owner = fd.Name.Name
				break
			}
		}
	}
	return kebab(owner) + "-" + kebab(kind) + "-changes"
}

// kebab writes an identifier in lower kebab case: SandboxClaim →
// sandbox-claim, HTTPProxy → http-proxy.
func kebab(s string) string {
	var b strings.Builder
	r := []rune(s)
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 && (unicode.IsLower(r[i-1]) || (i+1 < len(r) && unicode.IsLower(r[i+1]))) && r[i-1] != '-' {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}
