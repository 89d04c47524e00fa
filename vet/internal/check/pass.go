// Package check is the common ground of ssagen vet's analyzers: the pass
// they run on (Pass, built by Analyzer), what several of them ask of a
// package (its cached reads and status writers: sites.go), the fixes
// that rewrite a site as a generated helper (fix_*.go), and the helpers
// a driver resolves (HelpersAnalyzer). Each analyzer is its own package
// under vet/, holding what it matches and reports; no analyzer calls
// another's matcher: one that must stay quiet where another reports
// requires that analyzer and asks its Result.
package check

import (
	"fmt"
	"go/ast"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/flow"
)

const (
	ClientPkg            = flow.ClientPkg
	ControllerutilPkg    = "sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	ControllerRuntimePkg = "sigs.k8s.io/controller-runtime"
	PredicatePkg         = "sigs.k8s.io/controller-runtime/pkg/predicate"
	APIErrorsPkg         = "k8s.io/apimachinery/pkg/api/errors"
	RetryPkg             = "k8s.io/client-go/util/retry"
	WaitPkg              = "k8s.io/apimachinery/pkg/util/wait"
	UnstructuredPkg      = "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Analyzer builds one of ssagen vet's analyzers: run reports its
// findings on a Pass. Every analyzer requires inspect, flow and
// HelpersAnalyzer (the generated helpers its fixes name, among each
// package's imports and those ssagen's drivers resolve), and those of
// requires, whose Results run may read (Pass.ResultOf); it returns a
// *Result.
func Analyzer(name, doc string, run func(*Pass), requires ...*analysis.Analyzer) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:       name,
		Doc:        doc,
		Requires:   append([]*analysis.Analyzer{inspect.Analyzer, flow.Analyzer, HelpersAnalyzer}, requires...),
		ResultType: reflect.TypeFor[*Result](),
		Run: func(p *analysis.Pass) (any, error) {
			ps := &Pass{Pass: p, Ins: p.ResultOf[inspect.Analyzer].(*inspector.Inspector), Flow: p.ResultOf[flow.Analyzer].(*flow.Result), helpers: p.ResultOf[HelpersAnalyzer].(*Helpers), result: &Result{Targets: Targets{}}}
			run(ps)
			return ps.result, nil
		},
	}
}

// Pass is the pass of one of ssagen vet's analyzers over a package.
type Pass struct {
	*analysis.Pass
	Ins *inspector.Inspector
	// Flow holds what the functions of the package and of those it
	// imports do through a client (the flow analyzer's summaries).
	Flow   *flow.Result
	byPath map[string]*types.Package // imported's index
	// GuardedCalls counts, per function of the package, its calls and
	// those that run only when a read found nothing (calledOnlyWhenAbsent).
	GuardedCalls map[*types.Func][2]int
	// fieldsRead are the struct fields the package stores cached
	// objects in (readFields); nil until asked.
	fieldsRead map[*types.Var]bool
	// fieldsBuilt are the struct fields that hold objects built from
	// scratch (BuiltField).
	fieldsBuilt map[*types.Var]bool
	// helpers are those the driver resolved (nil: imports only).
	helpers *Helpers
	// helperErr says why a helper found in the module could not be used.
	helperErr string
	// result is the pass's: what its diagnostics say as data, and what
	// they cover.
	result *Result
}

// InTest reports whether n is test code — a _test.go file, or a test
// helper package (testutil, testing, ...): tests may write however they like.
func (p *Pass) InTest(n ast.Node) bool {
	return strings.HasSuffix(p.Fset.Position(n.Pos()).Filename, "_test.go") || strings.Contains(p.Pkg.Name(), "test")
}

// SourceCalls visits each call of the package outside tests, in source
// order, with the stack of nodes that encloses it (the call last).
func (p *Pass) SourceCalls(visit func(call *ast.CallExpr, stack []ast.Node)) {
	p.Ins.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if push && !p.InTest(n) {
			visit(n.(*ast.CallExpr), stack)
		}
		return true
	})
}

// SourceFuncs are the package's function declarations with a body,
// outside tests, in source order.
func (p *Pass) SourceFuncs() []*ast.FuncDecl {
	var out []*ast.FuncDecl
	for _, file := range p.Files {
		if p.InTest(file) {
			continue
		}
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				out = append(out, fd)
			}
		}
	}
	return out
}

// Callee returns the function or method a call invokes, or nil.
func (p *Pass) Callee(call *ast.CallExpr) *types.Func { return flow.Callee(p.TypesInfo, call) }

// IsPkgFunc reports a call of pkg.name (a function, not a method).
func (p *Pass) IsPkgFunc(call *ast.CallExpr, pkg string, names ...string) bool {
	fn := p.Callee(call)
	return fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == pkg && slices.Contains(names, fn.Name())
}

// ClientMethod returns the name of a controller-runtime client write or
// read method a call invokes (Create, Update, Patch, Get, Apply ...), or "".
func (p *Pass) ClientMethod(call *ast.CallExpr) string { return flow.ClientMethod(p.TypesInfo, call) }

// KindOf names the Kubernetes kind of an object expression (*rbacv1.Role → Role).
func (p *Pass) KindOf(e ast.Expr) string {
	if n, ok := types.Unalias(Deref(p.TypesInfo.TypeOf(e))).(*types.Named); ok {
		if _, ok := n.Underlying().(*types.Struct); !ok {
			return "" // a kind is a struct: an interface (a client, client.Object) names none
		}
		return n.Obj().Name()
	}
	return ""
}

// HelperFix names the fix t: Ensure<Kind>, or Ensure<Kind>Status.
func HelperFix(t Target) string {
	name := contract.Ensure(t.Kind)
	if t.Status {
		name = contract.EnsureStatus(t.Kind)
	}
	if t.Kind == "" {
		return "the " + name + " helper ssagen generates for the kind (ssagen generate --ensure, --ensure-kinds for built-in kinds)"
	}
	return fmt.Sprintf("%s (ssagen generate --ensure, or --ensure-kinds <package>.%s for a built-in kind)", name, t.Kind)
}

// GenericKind reports the names of object types that are no kind's.
func GenericKind(kind string) bool {
	return kind == "" || kind == "Object" || kind == "Unstructured"
}

// ObjectVar returns the variable an argument names (obj, &obj), or nil.
func (p *Pass) ObjectVar(e ast.Expr) *types.Var { return flow.ObjectVar(p.TypesInfo, e) }

// Reasons a finding carries when no fix is offered, which several fixes
// give.
const (
	whyNoHelper    = "no Ensure helper for this kind among the package's dependencies or in its module: generate it (ssagen generate --ensure, --ensure-kinds for built-in kinds)"
	whyRuntimeKind = "the object's kind is known only at run time (%s), and a generated helper writes one kind: apply it by hand, with an unstructured apply configuration or a helper per kind (docs/vet.md, \"Kinds known at run time\")"
	// WhyUpdateShape: the statements around a write are not a shape -fix
	// rewrites.
	WhyUpdateShape = "the Create → AlreadyExists → Update is not written as `err := c.Create(ctx, obj)` followed by " +
		"`if err != nil { if !IsAlreadyExists(err) { return … }; <the update> }` (or with the Create in the if's init), " +
		"the error checked right after, without an else: rewrite it by hand with the helper (docs/vet.md, \"Suggested fix\")"
)

// noHelper is the reason a fix has no helper: the last one found that
// did not type-check, or none found.
func (p *Pass) noHelper() string {
	if p.helperErr != "" {
		return p.helperErr
	}
	return whyNoHelper
}

// NoHelperFor is why no helper writes an object of type t: its kind is
// known only at run time, which no generated helper can write, or the
// kind's helper is missing (noHelper).
func (p *Pass) NoHelperFor(t types.Type) string {
	if name := runtimeKind(t); name != "" {
		return fmt.Sprintf(whyRuntimeKind, name)
	}
	return p.noHelper()
}

// runtimeKind names t when the kind of an object of that type is known
// only at run time: an interface (client.Object), a type parameter, or
// apimachinery's unstructured objects; "" for a kind's Go type.
func runtimeKind(t types.Type) string {
	if ptr, ok := types.Unalias(t).(*types.Pointer); ok {
		t = ptr.Elem()
	}
	name := types.TypeString(t, func(p *types.Package) string { return p.Name() })
	switch u := types.Unalias(t).(type) {
	case *types.TypeParam:
		return name
	case *types.Named:
		if types.IsInterface(u) || (u.Obj().Pkg() != nil && u.Obj().Pkg().Path() == UnstructuredPkg) {
			return name
		}
	case *types.Interface:
		return name
	}
	return ""
}
