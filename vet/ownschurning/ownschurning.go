// Package ownschurning defines an analyzer of ssagen vet that reports
// Owns() of kinds whose status churns (Pod, Deployment, ReplicaSet,
// StatefulSet, DaemonSet, Job) without a predicate that drops
// status-only updates: every kubelet or controller status write requeues
// the owner (a pod start reconciled its owner 7 times, seed 002). The fix
// is builder.WithPredicates(ensure.FieldsChanged(...)) listing what the
// reconciler reads of the kind, found by following Reconcile through the
// package's calls (reads.go, fix.go), or the generated
// Owned<Kind>Changes(c) when the child is applied with the helpers.
package ownschurning

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/check"
	"github.com/ssagen/ssagen/vet/internal/flow"
)

// Doc is the analyzer's one-line description.
const Doc = "Owns() on kinds whose status churns (Pod, Deployment, ...) without a predicate: one reconcile per status write"

// Analyzer is the analyzer (check.Analyzer).
var Analyzer = check.Analyzer("ownschurning", Doc, run)

// pass is the analyzer's pass; its methods are the analyzer's matchers.
type pass struct{ *check.Pass }

// run reports each Owns() of a kind whose status churns without a
// predicate that compares old and new.
func run(cp *check.Pass) {
	p := pass{cp}
	p.SourceCalls(func(call *ast.CallExpr, stack []ast.Node) {
		p.ownsChurning(call, stack)
	})
}

// eventFilterDrops reports a builder.WithEventFilter in body whose
// predicate drops status churn: it filters the owned kinds' events too.
func (p pass) eventFilterDrops(body *ast.BlockStmt) bool {
	return body != nil && flow.Find(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || len(c.Args) != 1 {
			return false
		}
		fn := p.Callee(c)
		return fn != nil && fn.Name() == "WithEventFilter" && fn.Pkg() != nil && check.IsBuilderPkg(fn.Pkg().Path()) && p.predicateVerdict(c.Args[0]) == dropsChurn
	})
}

// ownsChurning reports call when it is an Owns() of a churning kind whose
// predicates all pass status writes (SourceCalls has left tests out).
func (p pass) ownsChurning(call *ast.CallExpr, stack []ast.Node) {
	fn := p.Callee(call)
	if fn == nil || fn.Name() != "Owns" || fn.Pkg() == nil || !check.IsBuilderPkg(fn.Pkg().Path()) || len(call.Args) == 0 {
		return
	}
	if p.eventFilterDrops(check.FuncBody(stack)) {
		return
	}
	kind := p.KindOf(call.Args[0])
	if !check.Churning[kind] {
		return
	}
	what := "without a predicate"
	if len(call.Args) > 1 {
		// Predicates passed with the options are ANDed: the status
		// churn gets through only when every one lets it through.
		verdict := letsChurn
		for _, opt := range call.Args[1:] {
			oc, ok := ast.Unparen(opt).(*ast.CallExpr)
			if !ok || p.Callee(oc) == nil || p.Callee(oc).Name() != "WithPredicates" {
				verdict = unknownChurn
				continue
			}
			if v := p.allOf(oc.Args); v != letsChurn && verdict == letsChurn {
				verdict = v
			}
		}
		if verdict != letsChurn {
			return
		}
		what = "with predicates that pass every status write (they look at the new object only)"
	}
	pos := call.Pos()
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		pos = sel.Sel.Pos()
	}
	d := check.NewFinding(pos, contract.CategoryOwnsChurning,
		"Owns(&"+kind+"{}) "+what+": every status write of the child (a kubelet walking a pod through its phases) reconciles the owner again",
		"add builder.WithPredicates(ensure."+fieldsChanged+"(...)) listing what the reconciler reads of the "+kind+" (-fix writes it), or "+
			contract.OwnedChanges(kind)+"(c) when the reconciler applies the "+kind+" with the helpers ssagen generates (--ensure-kinds)",
		check.Ensures(kind, false))
	p.ReportFinding(d.Fixed(p.ownsChurningFix(call, fn, stack)))
}

// What a predicate does with an update that changes only the status.
type churnVerdict int

const (
	unknownChurn churnVerdict = iota // cannot tell: stay silent
	dropsChurn                       // drops it
	letsChurn                        // passes it
)

// allOf is the verdict of predicates that must all pass (WithPredicates,
// predicate.And): one that drops the churn drops it.
func (p pass) allOf(preds []ast.Expr) churnVerdict {
	if len(preds) == 0 {
		return letsChurn
	}
	v := letsChurn
	for _, e := range preds {
		switch p.predicateVerdict(e) {
		case dropsChurn:
			return dropsChurn
		case unknownChurn:
			v = unknownChurn
		}
	}
	return v
}

// predicateVerdict judges one predicate expression by what it is:
// controller-runtime's Generation/Label/AnnotationChangedPredicate and
// ssagen's Owned<Kind>Changes compare old and new and drop status-only
// writes; ResourceVersionChangedPredicate, NewPredicateFuncs (a filter on
// the new object alone) and Funcs without an UpdateFunc pass them. An
// UpdateFunc of our own, or anything else, cannot be judged.
func (p pass) predicateVerdict(e ast.Expr) churnVerdict {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok {
		e = u.X
	}
	switch e := e.(type) {
	case *ast.Ident:
		// A variable: judge what it was defined as, in this package.
		if def := p.Definition(e); def != nil {
			return p.predicateVerdict(def)
		}
	case *ast.CompositeLit:
		switch p.predicateType(e) {
		case "GenerationChangedPredicate", "LabelChangedPredicate", "AnnotationChangedPredicate",
			"TypedGenerationChangedPredicate", "TypedLabelChangedPredicate", "TypedAnnotationChangedPredicate":
			return dropsChurn
		case "ResourceVersionChangedPredicate", "TypedResourceVersionChangedPredicate":
			return letsChurn
		case "Funcs", "TypedFuncs":
			for _, el := range e.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "UpdateFunc" {
						if lit, ok := ast.Unparen(kv.Value).(*ast.FuncLit); ok && filtersEach(lit) {
							return letsChurn
						}
						return unknownChurn
					}
				}
			}
			return letsChurn
		}
	case *ast.CallExpr:
		fn := p.Callee(e)
		if fn == nil {
			return unknownChurn
		}
		name := fn.Name()
		switch {
		case fn.Pkg() != nil && fn.Pkg().Path() == check.PredicatePkg && (name == "NewPredicateFuncs" || name == "NewTypedPredicateFuncs" ||
			name == "LabelSelectorPredicate" || name == "TypedLabelSelectorPredicate"):
			return letsChurn // a filter on the new object alone
		case fn.Pkg() != nil && fn.Pkg().Path() == check.PredicatePkg && name == "And":
			return p.allOf(e.Args)
		case fn.Pkg() != nil && fn.Pkg().Path() == check.PredicatePkg && name == "Or":
			v := dropsChurn
			for _, a := range e.Args {
				switch p.predicateVerdict(a) {
				case letsChurn:
					return letsChurn
				case unknownChurn:
					v = unknownChurn
				}
			}
			return v
		case fn.Pkg() != nil && contract.IsHelperPkg(fn.Pkg().Path()):
			if _, ok := contract.OwnedChangesKind(name); ok {
				return dropsChurn
			}
		case fn.Pkg() != nil && fn.Pkg().Path() == contract.RuntimePkg && name == contract.OwnedFieldsChanged:
			return dropsChurn
		}
	}
	return unknownChurn
}

// predicateType names the controller-runtime predicate type of a literal, or "".
func (p pass) predicateType(lit *ast.CompositeLit) string {
	t := p.TypesInfo.TypeOf(lit)
	if t == nil {
		return ""
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == check.PredicatePkg {
		return n.Obj().Name()
	}
	return ""
}

// filtersEach reports an UpdateFunc that only filters the old and the new
// object each alone — `return hasLabel(e.ObjectOld) || hasLabel(e.ObjectNew)`
// (cass-operator): a single return of conditions joined by ||, && and !,
// none of which reads both objects, so nothing compares them and a
// status-only update of an object that passes the filter passes.
func filtersEach(lit *ast.FuncLit) bool {
	if len(lit.Body.List) != 1 {
		return false
	}
	ret, ok := lit.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	var leaf func(e ast.Expr) bool
	leaf = func(e ast.Expr) bool {
		switch e := ast.Unparen(e).(type) {
		case *ast.BinaryExpr:
			if e.Op == token.LOR || e.Op == token.LAND {
				return leaf(e.X) && leaf(e.Y)
			}
		case *ast.UnaryExpr:
			if e.Op == token.NOT {
				return leaf(e.X)
			}
		}
		old, new := false, false
		ast.Inspect(e, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				old = old || sel.Sel.Name == "ObjectOld"
				new = new || sel.Sel.Name == "ObjectNew"
			}
			return true
		})
		return !(old && new)
	}
	return leaf(ret.Results[0])
}
