// Package check holds the logic of ssagen vet's analyzers, one file per
// analyzer and what they share: the pass, the fixes, the helpers a driver
// resolves. Each analyzer is its own package under vet/ (its doc, its
// tests); this package is their common ground and is not imported by
// anything else.
package check

import (
	"fmt"
	"go/ast"
	"go/types"
	"reflect"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/flow"
)

const (
	clientPkg            = flow.ClientPkg
	controllerutilPkg    = "sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	controllerRuntimePkg = "sigs.k8s.io/controller-runtime"
	builderPkg           = "sigs.k8s.io/controller-runtime/pkg/builder"
	predicatePkg         = "sigs.k8s.io/controller-runtime/pkg/predicate"
	apierrorsPkg         = "k8s.io/apimachinery/pkg/api/errors"
	retryPkg             = "k8s.io/client-go/util/retry"
	waitPkg              = "k8s.io/apimachinery/pkg/util/wait"
	unstructuredPkg      = "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func analyzer(h *Helpers, name, doc string, run func(*pass)) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:       name,
		Doc:        doc,
		Requires:   []*analysis.Analyzer{inspect.Analyzer, flow.Analyzer},
		ResultType: reflect.TypeFor[Targets](),
		Run: func(p *analysis.Pass) (any, error) {
			ps := &pass{Pass: p, ins: p.ResultOf[inspect.Analyzer].(*inspector.Inspector), flow: p.ResultOf[flow.Analyzer].(*flow.Result), helpers: h, targets: Targets{}}
			run(ps)
			return ps.targets, nil
		},
	}
}

type pass struct {
	*analysis.Pass
	ins *inspector.Inspector
	// flow holds what the functions of the package and of those it
	// imports do through a client (the flow analyzer's summaries).
	flow   *flow.Result
	byPath map[string]*types.Package // imported's index
	// guardedCalls counts, per function of the package, its calls and
	// those that run only when a read found nothing (calledOnlyWhenAbsent).
	guardedCalls map[*types.Func][2]int
	// fieldsRead are the struct fields the package stores cached
	// objects in (readFields); nil until asked.
	fieldsRead map[*types.Var]bool
	// helpers are those the driver resolved (nil: imports only).
	helpers *Helpers
	// helperErr says why a helper found in the module could not be used.
	helperErr string
	// targets are the helpers the fixes of the pass's diagnostics name:
	// its result.
	targets Targets
}

// inTest reports whether n is test code — a _test.go file, or a test
// helper package (testutil, testing, ...): tests may write however they like.
func (p *pass) inTest(n ast.Node) bool {
	return strings.HasSuffix(p.Fset.Position(n.Pos()).Filename, "_test.go") || strings.Contains(p.Pkg.Name(), "test")
}

// sourceFuncs are the package's function declarations with a body,
// outside tests, in source order.
func (p *pass) sourceFuncs() []*ast.FuncDecl {
	var out []*ast.FuncDecl
	for _, file := range p.Files {
		if p.inTest(file) {
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

// callee returns the function or method a call invokes, or nil.
func (p *pass) callee(call *ast.CallExpr) *types.Func { return flow.Callee(p.TypesInfo, call) }

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
func (p *pass) clientMethod(call *ast.CallExpr) string { return flow.ClientMethod(p.TypesInfo, call) }

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

// helper names the fix t: Ensure<Kind>, or Ensure<Kind>Status.
func helper(t Target) string {
	name := contract.Ensure(t.Kind)
	if t.Status {
		name = contract.EnsureStatus(t.Kind)
	}
	if t.Kind == "" {
		return "the " + name + " helper ssagen generates for the kind (ssagen generate --ensure, --ensure-kinds for built-in kinds)"
	}
	return fmt.Sprintf("%s (ssagen generate --ensure, or --ensure-kinds <package>.%s for a built-in kind)", name, t.Kind)
}

// genericKind reports the names of object types that are no kind's.
func genericKind(kind string) bool {
	return kind == "" || kind == "Object" || kind == "Unstructured"
}

// objectVar returns the variable an argument names (obj, &obj), or nil.
func (p *pass) objectVar(e ast.Expr) *types.Var { return flow.ObjectVar(p.TypesInfo, e) }

// noHelper is the reason a fix has no helper: the last one found that
// did not type-check, or none found.
func (p *pass) noHelper() string {
	if p.helperErr != "" {
		return p.helperErr
	}
	return whyNoHelper
}

// The analyzers, each built with the helpers h (nil: imports only) under
// the name and doc its package gives it.
func CreateUpdate(h *Helpers, name, doc string) *analysis.Analyzer {
	return analyzer(h, name, doc, runCreateUpdate)
}

func CreateOrUpdate(h *Helpers, name, doc string) *analysis.Analyzer {
	return analyzer(h, name, doc, runCreateOrUpdate)
}

func RetryOnConflict(h *Helpers, name, doc string) *analysis.Analyzer {
	return analyzer(h, name, doc, runRetryOnConflict)
}

func StatusUpdate(h *Helpers, name, doc string) *analysis.Analyzer {
	return analyzer(h, name, doc, runStatusUpdate)
}

func UpdateFromScratch(h *Helpers, name, doc string) *analysis.Analyzer {
	return analyzer(h, name, doc, runUpdateFromScratch)
}

func ApplyTypedStruct(h *Helpers, name, doc string) *analysis.Analyzer {
	return analyzer(h, name, doc, runApplyTypedStruct)
}

func OwnsChurning(h *Helpers, name, doc string) *analysis.Analyzer {
	return analyzer(h, name, doc, runOwnsChurning)
}
