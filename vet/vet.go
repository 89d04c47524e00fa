// Package vet holds the analyzers of `ssagen vet`: they find the write
// patterns that make controllers flood API servers with 409 Conflicts and
// needless writes, explain the cost, and name the fix — the EnsureX helper
// ssagen generates for the kind.
//
// Analyzers match calls by package path and name on go/types information;
// they never execute code.
package vet

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/ssagen/ssagen/internal/contract"
)

const (
	clientPkg            = "sigs.k8s.io/controller-runtime/pkg/client"
	controllerutilPkg    = "sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	controllerRuntimePkg = "sigs.k8s.io/controller-runtime"
	builderPkg           = "sigs.k8s.io/controller-runtime/pkg/builder"
	predicatePkg         = "sigs.k8s.io/controller-runtime/pkg/predicate"
	apierrorsPkg         = "k8s.io/apimachinery/pkg/api/errors"
	retryPkg             = "k8s.io/client-go/util/retry"
	unstructuredPkg      = "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Analyzers are ssagen vet's analyzers as go/analysis drivers that know
// nothing of ssagen (go vet -vettool, gopls, golangci-lint) run them:
// helpers are found among each package's imports only.
var Analyzers = New(nil)

// New returns ssagen vet's analyzers, finding generated helpers among each
// package's imports and in h (FindHelpers; nil for none). Each call
// returns new analyzers: what one run was handed never leaks into another.
func New(h *Helpers) []*analysis.Analyzer {
	return []*analysis.Analyzer{
		newAnalyzer(h, "createupdate",
			"Create → AlreadyExists → Update/Patch, and Create that ignores AlreadyExists, on every reconcile", runCreateUpdate),
		newAnalyzer(h, "createorupdate",
			"controllerutil.CreateOrUpdate / CreateOrPatch: optimistic locking on cached objects", runCreateOrUpdate),
		newAnalyzer(h, "retryonconflict",
			"retry.RetryOnConflict around Get + Update: conflicts retried instead of avoided", runRetryOnConflict),
		newAnalyzer(h, "statusupdate",
			"Status().Update() of an object read from the (possibly stale) cache", runStatusUpdate),
		newAnalyzer(h, "updatefromscratch",
			"Update of an object built from scratch: overwrites every field, or 409s", runUpdateFromScratch),
		newAnalyzer(h, "applytypedstruct",
			"server-side apply of a typed Go struct: zero values claim field ownership", runApplyTypedStruct),
		newAnalyzer(h, "ownschurning",
			"Owns() on kinds whose status churns (Pod, Deployment, ...) without a predicate: one reconcile per status write", runOwnsChurning),
	}
}

// Named returns the analyzer of analyzers called name, or nil.
func Named(analyzers []*analysis.Analyzer, name string) *analysis.Analyzer {
	for _, a := range analyzers {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Combined runs analyzers as one analyzer (for tests and for tools that
// take one).
func Combined(analyzers []*analysis.Analyzer) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:     "ssagenvet",
		Doc:      "all of ssagen vet's checks",
		Requires: []*analysis.Analyzer{inspect.Analyzer},
		Run: func(p *analysis.Pass) (any, error) {
			for _, a := range analyzers {
				if _, err := a.Run(p); err != nil {
					return nil, err
				}
			}
			return nil, nil
		},
	}
}

func newAnalyzer(h *Helpers, name, doc string, run func(*pass)) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:     name,
		Doc:      doc,
		Requires: []*analysis.Analyzer{inspect.Analyzer},
		Run: func(p *analysis.Pass) (any, error) {
			run(&pass{Pass: p, ins: p.ResultOf[inspect.Analyzer].(*inspector.Inspector), helpers: h})
			return nil, nil
		},
	}
}

type pass struct {
	*analysis.Pass
	ins    *inspector.Inspector
	byPath map[string]*types.Package // imported's index
	// guardedCalls counts, per function of the package, its calls and
	// those that run only when a read found nothing (calledOnlyWhenAbsent).
	guardedCalls map[*types.Func][2]int
	// helpers are those the driver resolved (nil: imports only).
	helpers *Helpers
	// helperErr says why a helper found in the module could not be used.
	helperErr string
}

// inTest reports whether n is test code — a _test.go file, or a test
// helper package (testutil, testing, ...): tests may write however they like.
func (p *pass) inTest(n ast.Node) bool {
	return strings.HasSuffix(p.Fset.Position(n.Pos()).Filename, "_test.go") || strings.Contains(p.Pkg.Name(), "test")
}

// callee returns the function or method a call invokes, or nil.
func (p *pass) callee(call *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return nil
	}
	fn, _ := p.TypesInfo.Uses[id].(*types.Func)
	return fn
}

// isPkgFunc reports a call of pkg.name (a function, not a method).
func (p *pass) isPkgFunc(call *ast.CallExpr, pkg string, names ...string) bool {
	fn := p.callee(call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != pkg {
		return false
	}
	for _, n := range names {
		if fn.Name() == n {
			return true
		}
	}
	return false
}

// clientMethod returns the name of a controller-runtime client write or
// read method a call invokes (Create, Update, Patch, Get, Apply ...), or "".
func (p *pass) clientMethod(call *ast.CallExpr) string {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	fn := p.callee(call)
	if fn == nil {
		return ""
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return ""
	}
	if !isClientType(sig.Recv().Type()) && !isClientType(p.TypesInfo.TypeOf(sel.X)) {
		return ""
	}
	return fn.Name()
}

// isClientType reports controller-runtime client types and anything that
// embeds or implements their methods through the client package.
func isClientType(t types.Type) bool {
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
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == clientPkg {
		return true
	}
	// A struct embedding client.Client (the kubebuilder reconciler).
	if st, ok := t.Underlying().(*types.Struct); ok {
		for i := 0; i < st.NumFields(); i++ {
			if st.Field(i).Embedded() && isClientType(st.Field(i).Type()) {
				return true
			}
		}
	}
	return false
}

// kindOf names the Kubernetes kind of an object expression (*rbacv1.Role → Role).
func (p *pass) kindOf(e ast.Expr) string {
	t := p.TypesInfo.TypeOf(e)
	if t == nil {
		return ""
	}
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}

// helper names the fix for a kind: Ensure<Kind><suffix>.
func helper(kind, suffix string) string {
	if kind == "" || kind == "Object" || kind == "Unstructured" {
		return "the Ensure" + suffix + " helper ssagen generates for the kind (ssagen generate --ensure, --ensure-kinds for built-in kinds)"
	}
	return fmt.Sprintf("%s%s (ssagen generate --ensure, or --ensure-kinds <package>.%s for a built-in kind)", contract.Ensure(kind), suffix, kind)
}

// objectVar returns the variable an argument names (obj, &obj), or nil.
func (p *pass) objectVar(e ast.Expr) *types.Var {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok {
		e = u.X
	}
	if id, ok := e.(*ast.Ident); ok {
		v, _ := p.TypesInfo.ObjectOf(id).(*types.Var)
		return v
	}
	return nil
}

// noHelper is the reason a fix has no helper: the last one found that
// did not type-check, or none found.
func (p *pass) noHelper() string {
	if p.helperErr != "" {
		return p.helperErr
	}
	return whyNoHelper
}
