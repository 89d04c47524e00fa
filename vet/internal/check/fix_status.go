package check

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/internal/contract"
)

// LazyStatusWriters lists the package's status writes once, and only
// when a finding's fix asks.
func (p *Pass) LazyStatusWriters() func() []StatusWriter { return sync.OnceValue(p.statusWriters) }

// StatusWriter is a Status().Update or Status().Patch of the package:
// the object's type and the receiver of the function that writes it (nil
// for a plain function).
type StatusWriter struct {
	pos  token.Pos
	obj  types.Type
	recv types.Type
}

// statusWriters lists the package's status writes outside tests.
func (p *Pass) statusWriters() []StatusWriter {
	var out []StatusWriter
	p.SourceCalls(func(call *ast.CallExpr, stack []ast.Node) {
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if ok && len(call.Args) >= 2 && (sel.Sel.Name == "Update" || sel.Sel.Name == "Patch" || sel.Sel.Name == "Apply") && p.IsStatusWriter(sel.X) {
			out = append(out, StatusWriter{pos: call.Pos(), obj: p.TypesInfo.TypeOf(call.Args[1]), recv: p.ReceiverOf(stack)})
		}
	})
	return out
}

// StatusUpdateFix turns a Status().Update(ctx, obj) into the status
// helper's call with the object's status converted (StatusFrom<Kind>):
//
//	return r.Status().Update(ctx, &pod)
//
// becomes
//
//	return ssaensure.Err(podensure.EnsurePodStatus(ctx, r.Client, podac.StatusFromPod(&pod)))
//
// The apply sends the status the object holds, as the Update did, without
// its resourceVersion; ensure.Err keeps the expression an error, so the
// statement around it stays. Declined when another writer of the kind's
// status is in evidence (a status write of the same kind by another
// reconciler of the package): the conversion would claim its fields.
func (p *Pass) StatusUpdateFix(call *ast.CallExpr, sel *ast.SelectorExpr, stack []ast.Node, writers func() []StatusWriter) ([]analysis.SuggestedFix, string) {
	if len(call.Args) != 2 {
		return nil, "the Update has options, which the status helper does not take: rewrite it by hand (docs/vet.md)"
	}
	objType := p.TypesInfo.TypeOf(call.Args[1])
	kind := p.KindOf(call.Args[1])
	status, why := p.KindHelper(objType, contract.EnsureStatus)
	if status == nil {
		return nil, why
	}
	recv := p.ReceiverOf(stack)
	for _, w := range writers() {
		if w.pos != call.Pos() && types.Identical(w.obj, objType) && (recv == nil || w.recv == nil || !types.Identical(w.recv, recv)) {
			return nil, fmt.Sprintf("another writer of %s's status is in evidence (%s): a status converted whole would claim its fields; "+
				"apply only the fields this code owns (%s with the status apply configuration, docs/vet.md)", kind, p.Fset.Position(w.pos), contract.EnsureStatus(kind))
		}
	}
	file := FileOf(stack)
	if file == nil {
		return nil, WhyUpdateShape
	}
	f := p.NewFixer(file)
	sig := status.Type().(*types.Signature)
	ac := ACNamed(sig.Params().At(contract.ParamStatusDesired).Type())
	if ac == nil {
		return nil, p.noHelper()
	}
	statusWriterCall := ast.Unparen(sel.X).(*ast.CallExpr) // r.Status()
	client := ast.Unparen(statusWriterCall.Fun).(*ast.SelectorExpr).X
	clientText, ok := f.ClientArg(client, sig.Params().At(contract.ParamClient).Type())
	if !ok {
		return nil, WhyClientType
	}
	desired, ok := f.Converted("StatusFrom", ac, status, call.Args[1])
	if !ok {
		return nil, fmt.Sprintf("the helper's package has no converter StatusFrom%s: regenerate the helpers with this ssagen (ssagen generate)", kind)
	}
	rt := f.Qualify(types.NewPackage(contract.RuntimePkg, "ensure"), "")
	text := fmt.Sprintf("%s.Err(%s.%s(%s, %s, %s))", rt, f.Qualify(status.Pkg(), ""), status.Name(), f.Node(call.Args[0]), clientText, desired)
	return f.Fix(fmt.Sprintf("Use %s.%s: apply the status the object holds, no resourceVersion, no request when unchanged", status.Pkg().Name(), status.Name()),
		[]analysis.TextEdit{{Pos: call.Pos(), End: call.End(), NewText: []byte(text)}}, []ast.Node{call}, text)
}

// ReceiverOf is the receiver type (without pointer) of the method holding
// stack, or nil in a plain function.
func (p *Pass) ReceiverOf(stack []ast.Node) types.Type {
	for i := len(stack) - 1; i >= 0; i-- {
		fd, ok := stack[i].(*ast.FuncDecl)
		if !ok {
			continue
		}
		if fd.Recv == nil || len(fd.Recv.List) != 1 {
			return nil
		}
		return Deref(p.TypesInfo.TypeOf(fd.Recv.List[0].Type))
	}
	return nil
}

// FileOf is the file of the stack's innermost node.
func FileOf(stack []ast.Node) *ast.File {
	for _, n := range stack {
		if f, ok := n.(*ast.File); ok {
			return f
		}
	}
	return nil
}
