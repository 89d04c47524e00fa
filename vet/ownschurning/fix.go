package ownschurning

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"unicode"

	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/check"
)

// fieldsChanged is the runtime's predicate the owns-churning fix writes.
const fieldsChanged = "FieldsChanged"

// ownsChurningFix gives an Owns() of a churning kind the predicate of
// what the reconciler reads of the kind:
//
//	Owns(&corev1.Pod{}).
//
// becomes
//
//	Owns(&corev1.Pod{}, builder.WithPredicates(ssaensure.FieldsChanged(func(pod *corev1.Pod) any {
//		return []any{pod.OwnerReferences, pod.Status.Phase}
//	}))).
//
// The fields are those the functions the reconciler's Reconcile reaches
// in the package read of any object of the kind (readsOf), and always the
// owner references the Owns() handler maps by. Declined when the reads
// cannot all be listed.
func (p pass) ownsChurningFix(call *ast.CallExpr, owns *types.Func, stack []ast.Node) ([]analysis.SuggestedFix, string) {
	ptr, ok := p.TypesInfo.TypeOf(call.Args[0]).(*types.Pointer)
	if !ok {
		return nil, "the object is not a pointer to a kind's type"
	}
	kind, ok := types.Unalias(ptr.Elem()).(*types.Named)
	if !ok || kind.Obj().Pkg() == nil {
		return nil, "the object is not a pointer to a kind's type"
	}
	rt := p.RuntimePkg()
	if rt == nil {
		return nil, "ssagen's runtime (" + contract.RuntimePkg + ") is not in the module: generate the helpers first (ssagen generate)"
	}
	// Seen only through the helpers' export data, the package holds just
	// what they use: the fix is then written, and type-checked by -fix.
	if rt.Complete() && rt.Scope().Lookup(fieldsChanged) == nil {
		return nil, "the module's ssagen runtime predates ensure." + fieldsChanged + ": go get " + contract.RuntimePkg + "@latest"
	}
	if _, ok := owns.Pkg().Scope().Lookup("WithPredicates").(*types.Func); !ok && owns.Pkg().Complete() {
		return nil, owns.Pkg().Path() + " has no WithPredicates"
	}
	file := check.FileOf(stack)
	if file == nil {
		return nil, "the Owns() is in no file"
	}
	paths, why := p.readsOf(kind, p.ReceiverOf(stack))
	if why != "" {
		return nil, why
	}
	f := p.NewFixer(file)
	v := strings.ToLower(kind.Obj().Name()[:1]) + kind.Obj().Name()[1:]
	fields := make([]string, len(paths))
	for i, read := range paths {
		fields[i] = v + "." + read.Path
		if read.Elem != nil && (!rt.Complete() || rt.Scope().Lookup("Each") != nil) {
			// The items' fields: ensure.Each(pod.Status.Conditions, func(c corev1.PodCondition) any { ... }).
			item := itemName(read.Elem.Obj().Name())
			if item == v {
				item += "2"
			}
			of := make([]string, len(read.Fields))
			for j, field := range read.Fields {
				of[j] = item + "." + field
			}
			fields[i] = fmt.Sprintf("%s.Each(%s, func(%s %s.%s) any { return []any{%s} })", f.Qualify(rt, ""), fields[i],
				item, f.Qualify(read.Elem.Obj().Pkg(), ""), read.Elem.Obj().Name(), strings.Join(of, ", "))
		}
	}
	line := call.Pos()
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		line = sel.Sel.Pos() // the line of .Owns( in a chain
	}
	indent := lineIndent(p, stack, line)
	list := strings.Join(fields, ", ")
	if len(list) > 80 {
		// One field a line, as a person lists many.
		list = "\n" + indent + "\t\t" + strings.Join(fields, ",\n"+indent+"\t\t") + ",\n" + indent + "\t"
	}
	pred := fmt.Sprintf("%s.%s(func(%s *%s.%s) any {\n%s\treturn []any{%s}\n%s})",
		f.Qualify(rt, ""), fieldsChanged, v, f.Qualify(kind.Obj().Pkg(), ""), kind.Obj().Name(),
		indent, list, indent)

	return f.Fix(fmt.Sprintf("Pass only the %s updates that change what the reconciler reads (ensure.%s)", kind.Obj().Name(), fieldsChanged),
		[]analysis.TextEdit{p.predicateEdit(f, call, owns, pred)}, nil, pred)
}

// predicateEdit adds pred to the Owns() call's WithPredicates, or gives
// the call one.
func (p pass) predicateEdit(f *check.Fixer, call *ast.CallExpr, owns *types.Func, pred string) analysis.TextEdit {
	var edit analysis.TextEdit
	for _, opt := range call.Args[1:] {
		oc, ok := ast.Unparen(opt).(*ast.CallExpr)
		if !ok || oc.Ellipsis.IsValid() {
			continue
		}
		if fn := p.Callee(oc); fn == nil || fn.Name() != "WithPredicates" || fn.Pkg() != owns.Pkg() {
			continue
		}
		text := pred
		if len(oc.Args) > 0 {
			text = ", " + pred
		}
		edit = analysis.TextEdit{Pos: oc.Rparen, End: oc.Rparen, NewText: []byte(text)}
	}
	if edit.NewText == nil {
		text := fmt.Sprintf(", %s.WithPredicates(%s)", f.Qualify(owns.Pkg(), ""), pred)
		edit = analysis.TextEdit{Pos: call.Rparen, End: call.Rparen, NewText: []byte(text)}
	}
	return edit
}

// lineIndent is the indentation of pos's line, as gofmt writes it (a
// tab per level): the column of the first node of the line, among those
// of the innermost declaration around it.
func lineIndent(p pass, stack []ast.Node, pos token.Pos) string {
	line, col := p.Fset.Position(pos).Line, p.Fset.Position(pos).Column
	var decl ast.Node
	for _, n := range stack {
		if _, ok := n.(ast.Decl); ok {
			decl = n
		}
	}
	if decl != nil {
		ast.Inspect(decl, func(n ast.Node) bool {
			if n == nil {
				return false
			}
			if at := p.Fset.Position(n.Pos()); at.Line == line && at.Column < col {
				col = at.Column
			}
			return p.Fset.Position(n.Pos()).Line <= line
		})
	}
	return strings.Repeat("\t", col-1)
}

// itemName names an item of a slice in a predicate: the first letter of
// its type name's last word (PodCondition: c).
func itemName(typeName string) string {
	last := 0
	for i := 1; i < len(typeName); i++ {
		if unicode.IsUpper(rune(typeName[i])) && unicode.IsLower(rune(typeName[i-1])) {
			last = i
		}
	}
	return strings.ToLower(typeName[last : last+1])
}
