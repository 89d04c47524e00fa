package ownschurning

import (
	"fmt"
	"go/ast"
	"go/types"
	"sort"
	"strings"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/check"
	"github.com/ssagen/ssagen/vet/internal/flow"
)

// What a reconciler reads of the objects of a kind: the fields the
// owns-churning fix lists in its predicate (fix.go).

// readsOf lists the fields of kind that the reconciler reads, as Go
// selector paths (Status.Phase, Labels), sorted, the owner references
// always among them, a slice only ranged over by the fields read of its
// items; or why they cannot be listed. The reconciler is the
// functions of the package that recv's Reconcile reaches (all of the
// package's when recv has none); a read is a field selected from an
// object of the kind, a getter of its metadata (GetLabels), or a
// function known to read some of it (metav1.GetControllerOf). An object
// of the kind, or a list of them, handed to a function whose reads vet
// cannot see, or read whole, declines.
func (p pass) readsOf(kind *types.Named, recv types.Type) ([]fieldRead, string) {
	r := &kindReads{p: p, kind: kind, paths: map[string]bool{"OwnerReferences": true}, items: map[string]*itemReads{}, whole: map[string]bool{}}
	for _, fd := range p.reconcilerFuncs(recv) {
		r.inspect(fd.Body, nil)
		if r.why != "" {
			return nil, r.why
		}
	}
	reads := make([]fieldRead, 0, len(r.paths))
	for path := range r.paths {
		fr := fieldRead{path: path}
		if it := r.items[path]; it != nil && !r.whole[path] {
			fr.elem = it.elem
			for f := range it.fields {
				fr.fields = append(fr.fields, f)
			}
			sort.Strings(fr.fields)
		}
		reads = append(reads, fr)
	}
	sort.Slice(reads, func(i, j int) bool { return reads[i].path < reads[j].path })
	return reads, ""
}

// fieldRead is a field path the reconciler reads; of a slice read item by
// item, the item type and the fields read of each.
type fieldRead struct {
	path   string
	elem   *types.Named
	fields []string
}

// reconcilerFuncs are the declarations of the package (outside tests)
// that recv's Reconcile method reaches through calls and function values
// in the package; all of them when recv has no Reconcile.
func (p pass) reconcilerFuncs(recv types.Type) []*ast.FuncDecl {
	decls := map[*types.Func]*ast.FuncDecl{}
	byName := map[string][]*types.Func{} // methods by name: calls through interfaces
	var roots []*types.Func
	all := p.SourceFuncs()
	for _, fd := range all {
		fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func)
		if !ok {
			continue
		}
		decls[fn] = fd
		if fd.Recv != nil {
			byName[fn.Name()] = append(byName[fn.Name()], fn)
		}
		if sig := fn.Type().(*types.Signature); recv != nil && fn.Name() == "Reconcile" && sig.Recv() != nil && types.Identical(check.Deref(sig.Recv().Type()), recv) {
			roots = append(roots, fn)
		}
	}
	if len(roots) == 0 {
		return all
	}
	seen := map[*types.Func]bool{}
	var out []*ast.FuncDecl
	for len(roots) > 0 {
		fn := roots[len(roots)-1]
		roots = roots[:len(roots)-1]
		if seen[fn] || decls[fn] == nil {
			continue
		}
		seen[fn] = true
		out = append(out, decls[fn])
		ast.Inspect(decls[fn].Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if used, ok := p.TypesInfo.Uses[id].(*types.Func); ok {
					used = used.Origin()
					if decls[used] != nil {
						roots = append(roots, used)
					} else if recv := used.Type().(*types.Signature).Recv(); recv != nil && types.IsInterface(recv.Type()) {
						roots = append(roots, byName[used.Name()]...) // any of the package's methods may implement it
					}
				}
			}
			return true
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pos() < out[j].Pos() })
	return out
}

// kindReads collects what a reconciler reads of objects of one kind.
type kindReads struct {
	p     pass
	kind  *types.Named
	paths map[string]bool
	// items are the slice paths read only item by item, by the fields
	// read of each; whole are those read otherwise.
	items map[string]*itemReads
	whole map[string]bool
	why   string
	// params are the interface parameters of the package's functions
	// that an object of the kind is handed to, followed once each.
	params map[*types.Var]bool
}

// of reports t as the kind, or a pointer to it.
func (r *kindReads) of(t types.Type) bool {
	return t != nil && types.Identical(check.Deref(t), r.kind)
}

// holds reports t as a slice, map or list of the kind's objects.
func (r *kindReads) holds(t types.Type) bool {
	if t == nil {
		return false // a package name, a label
	}
	switch t := check.Deref(t).Underlying().(type) {
	case *types.Slice:
		return r.of(t.Elem())
	case *types.Map:
		return r.of(t.Elem())
	case *types.Struct:
		for i := 0; i < t.NumFields(); i++ {
			if t.Field(i).Name() == "Items" {
				return r.holds(t.Field(i).Type())
			}
		}
	}
	return false
}

// inspect walks body: every expression that is an object of the kind (or
// the parameter v holding one) is judged by where it is used.
func (r *kindReads) inspect(body ast.Node, v *types.Var) {
	var stack []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if e, ok := n.(ast.Expr); ok && r.why == "" && len(stack) > 0 {
			t := r.p.TypesInfo.TypeOf(e)
			switch {
			case v != nil:
				if id, ok := e.(*ast.Ident); ok && r.p.TypesInfo.Uses[id] == v {
					r.use(e, stack)
				}
			case r.of(t):
				r.use(e, stack)
			case r.holds(t):
				r.handed(e, stack)
			}
		}
		stack = append(stack, n)
		return true
	})
}

// identity are the fields of an object that never change, or say nothing
// of its content.
var identity = map[string]bool{
	"Name": true, "Namespace": true, "UID": true, "GenerateName": true, "CreationTimestamp": true,
	"SelfLink": true, "TypeMeta": true, "Kind": true, "APIVersion": true,
}

// getters are the metadata getters (metav1.Object) and the field each
// reads; "" for identity.
var getters = map[string]string{
	"GetLabels": "Labels", "GetAnnotations": "Annotations", "GetOwnerReferences": "OwnerReferences",
	"GetFinalizers": "Finalizers", "GetDeletionTimestamp": "DeletionTimestamp", "GetGeneration": "Generation",
	"GetDeletionGracePeriodSeconds": "DeletionGracePeriodSeconds",
	"GetName":                       "", "GetNamespace": "", "GetUID": "", "GetGenerateName": "", "GetCreationTimestamp": "",
	"GetSelfLink": "", "GetObjectKind": "", "GroupVersionKind": "", "GetObjectMeta": "ObjectMeta",
}

// use judges one use of an object of the kind, e, whose enclosing nodes
// are stack.
func (r *kindReads) use(e ast.Expr, stack []ast.Node) {
	p := r.p
	switch parent := stack[len(stack)-1].(type) {
	case *ast.SelectorExpr:
		if parent.X != e {
			return
		}
		sel := p.TypesInfo.Selections[parent]
		if sel == nil {
			return
		}
		if sel.Kind() == types.FieldVal {
			r.field(parent, stack[:len(stack)-1])
			return
		}
		name := parent.Sel.Name
		switch {
		case strings.HasPrefix(name, "Set") || name == "DeepCopyInto" || name == "DeepCopy":
			// A write, or a copy (itself of the kind, judged where used).
		case getterKnown(name):
			r.read(getters[name], parent)
		default:
			r.why = fmt.Sprintf("the reconciler calls %s on a %s (%s), whose reads vet cannot list", name, r.kind.Obj().Name(), p.at(parent.Pos()))
		}
	case *ast.CallExpr:
		for i, a := range parent.Args {
			if ast.Unparen(a) == e {
				r.argument(parent, i, e)
				return
			}
		}
	case *ast.AssignStmt, *ast.ValueSpec, *ast.ReturnStmt, *ast.CompositeLit, *ast.KeyValueExpr, *ast.SendStmt:
		if r.intoInterface(e, parent, stack) {
			r.why = fmt.Sprintf("a %s is held as an interface (%s): vet cannot list what is read of it", r.kind.Obj().Name(), p.at(e.Pos()))
		}
	}
}

func getterKnown(name string) bool { _, ok := getters[name]; return ok }

// field records the path sel starts, extended through the selectors
// around it while they select fields of a value (never through a
// pointer: the predicate must not dereference nil). A slice of structs
// that is only ranged over, its items' fields read, is recorded by those
// fields (fieldsOfItems).
func (r *kindReads) field(sel *ast.SelectorExpr, stack []ast.Node) {
	path, cur, i := r.chain(sel, stack)
	full := strings.TrimPrefix(strings.Join(path, "."), "ObjectMeta.")
	if rs, ok := stackAt(stack, i).(*ast.RangeStmt); ok && rs.X == cur {
		if elem, fields, ok := r.fieldsOfItems(rs); ok {
			r.read(full, sel)
			if r.items[full] == nil && !r.whole[full] {
				r.items[full] = &itemReads{elem: elem, fields: map[string]bool{}}
			}
			if it := r.items[full]; it != nil {
				for f := range fields {
					it.fields[f] = true
				}
			}
			return
		}
	}
	r.whole[full] = true
	delete(r.items, full)
	r.read(full, sel)
}

// chain is the path of field names from sel outwards, the outermost
// selector, and the index in stack of the node around it (-1: none).
func (r *kindReads) chain(sel *ast.SelectorExpr, stack []ast.Node) ([]string, ast.Expr, int) {
	path := []string{sel.Sel.Name}
	cur := ast.Expr(sel)
	i := len(stack) - 1
	for ; i >= 0; i-- {
		outer, ok := stack[i].(*ast.SelectorExpr)
		if !ok || outer.X != cur {
			break
		}
		if s := r.p.TypesInfo.Selections[outer]; s == nil || s.Kind() != types.FieldVal {
			break
		}
		if _, ptr := r.p.TypesInfo.TypeOf(cur).Underlying().(*types.Pointer); ptr {
			break
		}
		path = append(path, outer.Sel.Name)
		cur = outer
	}
	return path, cur, i
}

func stackAt(stack []ast.Node, i int) ast.Node {
	if i < 0 || i >= len(stack) {
		return nil
	}
	return stack[i]
}

// itemReads are the fields read of the items of a slice of structs.
type itemReads struct {
	elem   *types.Named
	fields map[string]bool
}

// fieldsOfItems are the fields read of the items a range statement walks,
// a slice of a named struct: each use of its value variable selecting a
// field path. Not ok when an item is used otherwise, or indexed.
func (r *kindReads) fieldsOfItems(rs *ast.RangeStmt) (*types.Named, map[string]bool, bool) {
	sl, ok := r.p.TypesInfo.TypeOf(rs.X).Underlying().(*types.Slice)
	if !ok {
		return nil, nil, false
	}
	elem, ok := types.Unalias(sl.Elem()).(*types.Named)
	if !ok || elem.Obj().Pkg() == nil {
		return nil, nil, false
	}
	if _, ok := elem.Underlying().(*types.Struct); !ok {
		return nil, nil, false
	}
	id, ok := rs.Value.(*ast.Ident)
	if !ok || rs.Value == nil {
		return nil, nil, false // items read by index, or not at all: whole
	}
	v, _ := r.p.TypesInfo.Defs[id].(*types.Var)
	if v == nil {
		return nil, nil, false
	}
	fields := map[string]bool{}
	ok = true
	var stack []ast.Node
	ast.Inspect(rs.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if use, isID := n.(*ast.Ident); isID && r.p.TypesInfo.Uses[use] == v {
			sel, isSel := stackAt(stack, len(stack)-1).(*ast.SelectorExpr)
			if s := r.p.TypesInfo.Selections[sel]; !isSel || s == nil || s.Kind() != types.FieldVal {
				ok = false
			} else {
				path, _, _ := r.chain(sel, stack[:len(stack)-1])
				fields[strings.Join(path, ".")] = true
			}
		}
		stack = append(stack, n)
		return true
	})
	if !ok || len(fields) == 0 {
		return nil, nil, false
	}
	return elem, fields, true
}

// read records a path read at n (field trims ObjectMeta.): nothing for
// identity fields; declined for what changes on every write.
func (r *kindReads) read(path string, n ast.Node) {
	first, _, _ := strings.Cut(path, ".")
	switch {
	case path == "" || identity[first]:
	case first == "ResourceVersion" || first == "ManagedFields" || path == "ObjectMeta" || path == "Status":
		r.why = fmt.Sprintf("the reconciler reads the %s of a %s (%s), which changes on every write: a predicate would pass them all",
			path, r.kind.Obj().Name(), r.p.at(n.Pos()))
	default:
		r.paths[path] = true
	}
}

// Functions known to read only these fields of the object they are
// handed ("" for none of its content), by package and name.
var knownReads = map[string]map[string]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1": {"GetControllerOf": "OwnerReferences", "GetControllerOfNoCopy": "OwnerReferences", "IsControlledBy": "OwnerReferences"},
	check.ControllerutilPkg: {"SetControllerReference": "OwnerReferences", "SetOwnerReference": "OwnerReferences", "HasControllerReference": "OwnerReferences",
		"HasOwnerReference": "OwnerReferences", "RemoveOwnerReference": "OwnerReferences", "RemoveControllerReference": "OwnerReferences",
		"ContainsFinalizer": "Finalizers", "AddFinalizer": "Finalizers", "RemoveFinalizer": "Finalizers",
		"CreateOrUpdate": "", "CreateOrPatch": ""},
	check.ControllerRuntimePkg: {"SetControllerReference": "OwnerReferences", "SetOwnerReference": "OwnerReferences"},
	check.ClientPkg:            {"ObjectKeyFromObject": ""},
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil": {"GVKForObject": ""},
	"k8s.io/klog/v2": {"KObj": "", "KObjs": ""},
}

// quietPkgs only log or report what they are handed.
var quietPkgs = map[string]bool{
	"fmt": true, "log": true, "log/slog": true, "errors": true, "github.com/go-logr/logr": true, "k8s.io/klog/v2": true,
	"k8s.io/client-go/tools/record": true, "k8s.io/client-go/tools/events": true,
}

// argument judges an object of the kind (or a list of them) handed to a
// call as its i-th argument.
func (r *kindReads) argument(call *ast.CallExpr, i int, e ast.Expr) {
	p := r.p
	if tv, ok := p.TypesInfo.Types[call.Fun]; ok && (tv.IsBuiltin() || tv.IsType()) {
		return // append, len; a conversion is judged where used
	}
	if flow.ClientMethod(p.TypesInfo, call) != "" || flow.IsStatusWriter(call.Fun) {
		return // a client's read fills it, its writes send it
	}
	fn := p.Callee(call)
	name := ""
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		name = sel.Sel.Name
	}
	var pkg *types.Package
	switch {
	case fn != nil:
		pkg, name = fn.Pkg(), fn.Name()
	case name != "":
		// A function held in a package's variable (ctrl.SetControllerReference).
		if v, ok := p.TypesInfo.Uses[ast.Unparen(call.Fun).(*ast.SelectorExpr).Sel].(*types.Var); ok && v.Pkg() != nil && v.Parent() == v.Pkg().Scope() {
			pkg = v.Pkg()
		}
	}
	if pkg != nil {
		if fields, ok := knownReads[pkg.Path()][name]; ok {
			r.read(fields, call)
			return
		}
		if quietPkgs[pkg.Path()] || check.IsBuilderPkg(pkg.Path()) || pkg.Path() == contract.RuntimePkg || contract.IsHelperPkg(pkg.Path()) || strings.Contains(pkg.Path(), "applyconfiguration") {
			return
		}
	}
	if fn != nil && fn.Pkg() == p.Pkg {
		sig := fn.Type().(*types.Signature)
		param := paramAt(sig, i)
		if param == nil || r.of(param.Type()) || r.holds(param.Type()) {
			return // read where the function is reached
		}
		if types.IsInterface(param.Type()) {
			r.followParam(fn.Origin(), i)
			return
		}
	}
	what := "a " + r.kind.Obj().Name()
	if r.holds(p.TypesInfo.TypeOf(e)) {
		what = "a list of " + r.kind.Obj().Name()
	}
	callee := name
	if callee == "" {
		callee = "a function value"
	}
	r.why = fmt.Sprintf("the reconciler hands %s to %s (%s), whose reads vet cannot list", what, callee, p.at(call.Pos()))
}

// paramAt is the parameter the i-th argument of a call of sig binds.
func paramAt(sig *types.Signature, i int) *types.Var {
	n := sig.Params().Len()
	switch {
	case i < n-1 || (i < n && !sig.Variadic()):
		return sig.Params().At(i)
	case sig.Variadic() && n > 0:
		return sig.Params().At(n - 1)
	}
	return nil
}

// followParam judges the uses of fn's i-th parameter, an interface that
// an object of the kind is handed in: its getters read, what it is
// handed to is judged in turn.
func (r *kindReads) followParam(fn *types.Func, i int) {
	fd := r.p.FuncDecl(fn)
	param := paramAt(fn.Type().(*types.Signature), i)
	if fd == nil || param == nil || fn.Type().(*types.Signature).Variadic() && i >= fn.Type().(*types.Signature).Params().Len()-1 {
		r.why = fmt.Sprintf("the reconciler hands a %s to %s, whose reads vet cannot list", r.kind.Obj().Name(), fn.Name())
		return
	}
	if r.params == nil {
		r.params = map[*types.Var]bool{}
	}
	if r.params[param] {
		return
	}
	r.params[param] = true
	r.inspect(fd.Body, param)
}

// intoInterface reports e, in an assignment, declaration, return,
// composite literal or send, stored where the static type is an
// interface.
func (r *kindReads) intoInterface(e ast.Expr, parent ast.Node, stack []ast.Node) bool {
	info := r.p.TypesInfo
	iface := func(t types.Type) bool { return t != nil && types.IsInterface(t) }
	switch parent := parent.(type) {
	case *ast.AssignStmt:
		for i, rhs := range parent.Rhs {
			if rhs == e && len(parent.Lhs) == len(parent.Rhs) {
				return iface(info.TypeOf(parent.Lhs[i]))
			}
		}
	case *ast.ValueSpec:
		for i, v := range parent.Values {
			if v == e && i < len(parent.Names) {
				return iface(info.TypeOf(parent.Names[i]))
			}
		}
	case *ast.ReturnStmt:
		for i := len(stack) - 2; i >= 0; i-- {
			var ft *ast.FuncType
			switch fn := stack[i].(type) {
			case *ast.FuncLit:
				ft = fn.Type
			case *ast.FuncDecl:
				ft = fn.Type
			default:
				continue
			}
			sig, ok := info.TypeOf(ft).(*types.Signature)
			if !ok {
				return true
			}
			for j, res := range parent.Results {
				if res == e && j < sig.Results().Len() {
					return iface(sig.Results().At(j).Type())
				}
			}
			return false
		}
	case *ast.KeyValueExpr:
		if parent.Value != e {
			return false
		}
		if id, ok := parent.Key.(*ast.Ident); ok {
			if f, ok := info.Uses[id].(*types.Var); ok && f.IsField() {
				return iface(f.Type())
			}
		}
		if len(stack) >= 2 {
			if lit, ok := stack[len(stack)-2].(*ast.CompositeLit); ok {
				return iface(elemType(info.TypeOf(lit)))
			}
		}
	case *ast.CompositeLit:
		t := info.TypeOf(parent)
		if st, ok := t.Underlying().(*types.Struct); ok {
			for i, el := range parent.Elts {
				if el == e && i < st.NumFields() {
					return iface(st.Field(i).Type())
				}
			}
			return false
		}
		return iface(elemType(t))
	case *ast.SendStmt:
		if ch, ok := info.TypeOf(parent.Chan).Underlying().(*types.Chan); ok && parent.Value == e {
			return iface(ch.Elem())
		}
	}
	return false
}

// elemType is the element type of a slice, array or map type.
func elemType(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	switch t := t.Underlying().(type) {
	case *types.Slice:
		return t.Elem()
	case *types.Array:
		return t.Elem()
	case *types.Map:
		return t.Elem()
	}
	return nil
}

// handed judges a list of the kind's objects: handed to a call it is an
// argument like an object; anywhere else its items are read where used.
func (r *kindReads) handed(e ast.Expr, stack []ast.Node) {
	call, ok := stack[len(stack)-1].(*ast.CallExpr)
	if !ok {
		return
	}
	for i, a := range call.Args {
		if ast.Unparen(a) == e {
			r.argument(call, i, e)
			return
		}
	}
}
