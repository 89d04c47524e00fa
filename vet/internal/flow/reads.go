package flow

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ssagen/ssagen/internal/contract"
)

// What code reads of objects of a kind: the fields a predicate must
// compare for the code to see every change it acts on (ssagen vet's
// owns-churning fix), and, per parameter, the facts that carry those reads
// across the packages of the module (Summary.Reads).

// FieldRead is a field path read of an object (Status.Phase, Labels); of
// a slice read item by item, the item type and the fields read of each.
type FieldRead struct {
	Path   string
	Elem   *types.Named
	Fields []string
}

// ParamReads are the field paths a function reads of the object a
// parameter hands it, or why they cannot be listed.
type ParamReads struct {
	Index int
	Paths []string
	Why   string
}

// ReadsOf is what the function reads of parameter i, and whether it
// hands an object.
func (s *Summary) ReadsOf(i int) (ParamReads, bool) {
	for _, p := range s.Reads {
		if p.Index == i {
			return p, true
		}
	}
	return ParamReads{}, false
}

// NewReads collects what code reads of the objects of kind (nil: only of
// the variables it is asked to follow). Inspect the bodies that handle
// them, then ask Fields.
func NewReads(ctx *Context, kind *types.Named) *Reads {
	return &Reads{ctx: ctx, kind: kind, paths: map[string]bool{}, items: map[string]*itemReads{}, whole: map[string]bool{}, params: map[*types.Var]bool{}}
}

// Fields lists the paths read, sorted, a slice only ranged over by the
// fields read of its items; or why they cannot be listed.
func (r *Reads) Fields() ([]FieldRead, string) {
	if r.why != "" {
		return nil, r.why
	}
	reads := make([]FieldRead, 0, len(r.paths))
	for path := range r.paths {
		fr := FieldRead{Path: path}
		if it := r.items[path]; it != nil && !r.whole[path] {
			fr.Elem = it.elem
			for f := range it.fields {
				fr.Fields = append(fr.Fields, f)
			}
			sort.Strings(fr.Fields)
		}
		reads = append(reads, fr)
	}
	sort.Slice(reads, func(i, j int) bool { return reads[i].Path < reads[j].Path })
	return reads, ""
}

// Inspect adds what body reads of objects of the kind.
func (r *Reads) Inspect(body ast.Node) { r.inspect(body, nil) }

// readsFacts are the Reads summaries of the package's functions: for each
// parameter that hands a function an object, the fields it reads of it —
// in its body, in the functions of the package it hands the object to,
// and by the facts of the module's other packages.
func readsFacts(ctx *Context, funcs []*ast.FuncDecl) map[*types.Func][]ParamReads {
	out := map[*types.Func][]ParamReads{}
	// The package's own functions' facts are made when first asked for
	// (a function in the making has none yet: a cycle reads nothing).
	inner := *ctx
	var of func(fn *types.Func) []ParamReads
	inner.Facts = func(fn *types.Func) *Summary {
		if fn != nil && ctx.Decl(fn.Origin()) != nil {
			return &Summary{Reads: of(fn.Origin())}
		}
		return ctx.Facts(fn)
	}
	making := map[*types.Func]bool{}
	of = func(fn *types.Func) []ParamReads {
		if prs, ok := out[fn]; ok || making[fn] {
			return prs
		}
		making[fn] = true
		fd := ctx.Decl(fn)
		var prs []ParamReads
		for i, v := range ParamVars(ctx.Info, fd) {
			if v == nil || !handsObject(v.Type()) && !isStruct(v.Type()) {
				continue
			}
			kind, _ := types.Unalias(Deref(v.Type())).(*types.Named)
			if types.IsInterface(v.Type()) {
				kind = nil
			}
			r := NewReads(&inner, kind)
			r.follow(v, fd.Body)
			pr := ParamReads{Index: i, Why: r.why}
			if r.why == "" {
				pr.Paths = slices.Sorted(maps.Keys(r.paths))
			}
			prs = append(prs, pr)
		}
		out[fn] = prs
		return prs
	}
	for _, fd := range funcs {
		of(ctx.Info.Defs[fd.Name].(*types.Func))
	}
	for fn, prs := range out {
		if prs == nil {
			delete(out, fn)
		}
	}
	return out
}

// isStruct reports a named struct type, handed by value (an object's
// status to a function that computes from it).
func isStruct(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	_, ok = n.Underlying().(*types.Struct)
	return ok
}

// Deref is the type a pointer type points to, or t.
func Deref(t types.Type) types.Type {
	if ptr, ok := t.(*types.Pointer); ok {
		return ptr.Elem()
	}
	return t
}

// Reads collects what code reads of objects of one kind.
type Reads struct {
	ctx   *Context
	kind  *types.Named
	paths map[string]bool
	// items are the slice paths read only item by item, by the fields
	// read of each; whole are those read otherwise.
	items map[string]*itemReads
	whole map[string]bool
	why   string
	// params are the parameters and variables that an object of the
	// kind is handed to or held in, followed once each.
	params map[*types.Var]bool
}

func (r *Reads) name() string {
	if r.kind == nil {
		return "object"
	}
	return r.kind.Obj().Name()
}

// at is pos as a reason names it: the file's base name, line and column.
func (r *Reads) at(pos token.Pos) string {
	at := r.ctx.Fset.Position(pos)
	return fmt.Sprintf("%s:%d:%d", filepath.Base(at.Filename), at.Line, at.Column)
}

// IsBuilderPkg: controller-runtime's builder, or multicluster-runtime's,
// which wraps it with the same Owns.
func IsBuilderPkg(path string) bool {
	return path == controllerRuntimePkg+"/pkg/builder" || path == "sigs.k8s.io/multicluster-runtime/pkg/builder"
}

// follow inspects body once for v, which holds the object: every object
// of the kind in it when v is of the kind (a parameter of a function it
// is handed to), else v's own uses (an interface it is held in,
// meta.Accessor's answer).
func (r *Reads) follow(v *types.Var, body ast.Node) {
	if v == nil || body == nil || r.params[v] {
		return
	}
	r.params[v] = true
	if r.of(v.Type()) || r.holds(v.Type()) {
		r.inspect(body, nil)
		return
	}
	r.inspect(body, v)
}

// local is the variable of a function, e on the left of an assignment or
// a declaration, that an object is stored in; nil for anything else (a
// field, a package's variable, an index).
func (r *Reads) local(e ast.Node) *types.Var {
	id, ok := e.(*ast.Ident)
	if !ok {
		return nil
	}
	obj := r.ctx.Info.Defs[id]
	if obj == nil {
		obj = r.ctx.Info.Uses[id]
	}
	v, ok := obj.(*types.Var)
	if !ok || v.IsField() || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
		return nil
	}
	return v
}

// bodyOf is the body of the innermost function literal stack is in, or
// the body inspected (stack's root).
func bodyOf(stack []ast.Node) ast.Node {
	for i := len(stack) - 1; i > 0; i-- {
		if f, ok := stack[i].(*ast.FuncLit); ok {
			return f.Body
		}
	}
	if len(stack) == 0 {
		return nil
	}
	return stack[0]
}

// accessors answer the object they are handed, as another interface.
var accessors = map[string]bool{"k8s.io/apimachinery/pkg/api/meta.Accessor": true}

// of reports t as the kind, or a pointer to it.
func (r *Reads) of(t types.Type) bool {
	return t != nil && r.kind != nil && types.Identical(Deref(t), r.kind)
}

// holds reports t as a slice, map or list of the kind's objects.
func (r *Reads) holds(t types.Type) bool {
	if t == nil {
		return false // a package name, a label
	}
	switch t := Deref(t).Underlying().(type) {
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
func (r *Reads) inspect(body ast.Node, v *types.Var) {
	var stack []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if e, ok := n.(ast.Expr); ok && r.why == "" && len(stack) > 0 {
			t := r.ctx.Info.TypeOf(e)
			switch {
			case v != nil:
				if id, ok := e.(*ast.Ident); ok && r.ctx.Info.Uses[id] == v {
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
func (r *Reads) use(e ast.Expr, stack []ast.Node) {
	p := r.ctx
	switch parent := stack[len(stack)-1].(type) {
	case *ast.SelectorExpr:
		if parent.X != e {
			return
		}
		sel := p.Info.Selections[parent]
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
			r.why = fmt.Sprintf("the reconciler calls %s on a %s (%s), whose reads vet cannot list", name, r.name(), r.at(parent.Pos()))
		}
	case *ast.CallExpr:
		if fn := Callee(p.Info, parent); fn != nil && fn.Pkg() != nil && accessors[fn.Pkg().Path()+"."+fn.Name()] && len(stack) > 1 {
			if _, v := r.intoInterface(parent, stack[len(stack)-2], stack[:len(stack)-1]); v != nil {
				r.follow(v, bodyOf(stack))
				return
			}
		}
		r.handed(e, stack)
	case *ast.AssignStmt, *ast.ValueSpec, *ast.ReturnStmt, *ast.CompositeLit, *ast.KeyValueExpr, *ast.SendStmt:
		iface, v := r.intoInterface(e, parent, stack)
		if !iface {
			return
		}
		if v != nil {
			r.follow(v, bodyOf(stack))
			return
		}
		r.why = fmt.Sprintf("a %s is held as an interface (%s): vet cannot list what is read of it", r.name(), r.at(e.Pos()))
	}
}

func getterKnown(name string) bool { _, ok := getters[name]; return ok }

// field records the path sel starts, extended through the selectors
// around it while they select fields of a value (never through a
// pointer: the predicate must not dereference nil). A slice of structs
// that is only ranged over, its items' fields read, is recorded by those
// fields (fieldsOfItems).
func (r *Reads) field(sel *ast.SelectorExpr, stack []ast.Node) {
	path, cur, i := r.chain(sel, stack)
	if sub, ok := r.handedField(cur, stack, i); ok {
		// A part of the object handed to a function whose facts list
		// what it reads of it (&pod.ObjectMeta to a labels helper).
		for _, p := range sub {
			r.read(strings.TrimPrefix(strings.Join(path, ".")+"."+p, "ObjectMeta."), sel)
		}
		return
	}
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

// handedField is what the function reads of cur, a field of the object
// (or its address) handed to it as an argument at stack[i], by its facts.
func (r *Reads) handedField(cur ast.Expr, stack []ast.Node, i int) ([]string, bool) {
	arg := cur
	if u, ok := stackAt(stack, i).(*ast.UnaryExpr); ok && u.Op == token.AND {
		arg, i = u, i-1
	}
	call, ok := stackAt(stack, i).(*ast.CallExpr)
	if !ok {
		return nil, false
	}
	s := r.ctx.Facts(Callee(r.ctx.Info, call))
	for j, a := range call.Args {
		if ast.Unparen(a) == arg && s != nil {
			pr, ok := s.ReadsOf(j)
			if !ok || pr.Why != "" {
				return nil, false
			}
			return pr.Paths, true
		}
	}
	return nil, false
}

// chain is the path of field names from sel outwards, the outermost
// selector, and the index in stack of the node around it (-1: none).
func (r *Reads) chain(sel *ast.SelectorExpr, stack []ast.Node) ([]string, ast.Expr, int) {
	path := []string{sel.Sel.Name}
	cur := ast.Expr(sel)
	i := len(stack) - 1
	for ; i >= 0; i-- {
		outer, ok := stack[i].(*ast.SelectorExpr)
		if !ok || outer.X != cur {
			break
		}
		if s := r.ctx.Info.Selections[outer]; s == nil || s.Kind() != types.FieldVal {
			break
		}
		if _, ptr := r.ctx.Info.TypeOf(cur).Underlying().(*types.Pointer); ptr {
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
func (r *Reads) fieldsOfItems(rs *ast.RangeStmt) (*types.Named, map[string]bool, bool) {
	sl, ok := r.ctx.Info.TypeOf(rs.X).Underlying().(*types.Slice)
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
	v, _ := r.ctx.Info.Defs[id].(*types.Var)
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
		if use, isID := n.(*ast.Ident); isID && r.ctx.Info.Uses[use] == v {
			sel, isSel := stackAt(stack, len(stack)-1).(*ast.SelectorExpr)
			if s := r.ctx.Info.Selections[sel]; !isSel || s == nil || s.Kind() != types.FieldVal {
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
func (r *Reads) read(path string, n ast.Node) {
	first, _, _ := strings.Cut(path, ".")
	switch {
	case path == "" || identity[first]:
	case first == "ResourceVersion" || first == "ManagedFields" || path == "ObjectMeta" || path == "Status":
		r.why = fmt.Sprintf("the reconciler reads the %s of a %s (%s), which changes on every write: a predicate would pass them all",
			path, r.name(), r.at(n.Pos()))
	default:
		r.paths[path] = true
	}
}

// Functions known to read only these fields of the object they are
// handed ("" for none of its content), by package and name.
var knownReads = map[string]map[string]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1": {"GetControllerOf": "OwnerReferences", "GetControllerOfNoCopy": "OwnerReferences", "IsControlledBy": "OwnerReferences"},
	controllerutilPkg: {"SetControllerReference": "OwnerReferences", "SetOwnerReference": "OwnerReferences", "HasControllerReference": "OwnerReferences",
		"HasOwnerReference": "OwnerReferences", "RemoveOwnerReference": "OwnerReferences", "RemoveControllerReference": "OwnerReferences",
		"ContainsFinalizer": "Finalizers", "AddFinalizer": "Finalizers", "RemoveFinalizer": "Finalizers",
		"CreateOrUpdate": "", "CreateOrPatch": ""},
	controllerRuntimePkg: {"SetControllerReference": "OwnerReferences", "SetOwnerReference": "OwnerReferences"},
	// A patch's base is diffed with what the code changed, never judged.
	ClientPkg: {"ObjectKeyFromObject": "", "MergeFrom": "", "StrategicMergeFrom": "", "MergeFromWithOptions": ""},
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
func (r *Reads) argument(call *ast.CallExpr, i int, e ast.Expr) {
	p := r.ctx
	if tv, ok := p.Info.Types[call.Fun]; ok && (tv.IsBuiltin() || tv.IsType()) {
		return // append, len; a conversion is judged where used
	}
	if ClientMethod(p.Info, call) != "" || IsStatusWriter(call.Fun) {
		return // a client's read fills it, its writes send it
	}
	fn := Callee(p.Info, call)
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
		if v, ok := p.Info.Uses[ast.Unparen(call.Fun).(*ast.SelectorExpr).Sel].(*types.Var); ok && v.Pkg() != nil && v.Parent() == v.Pkg().Scope() {
			pkg = v.Pkg()
		}
	}
	if pkg != nil {
		if fields, ok := knownReads[pkg.Path()][name]; ok {
			r.read(fields, call)
			return
		}
		if quietPkgs[pkg.Path()] || IsBuilderPkg(pkg.Path()) || pkg.Path() == contract.RuntimePkg || contract.IsHelperPkg(pkg.Path()) || strings.Contains(pkg.Path(), "applyconfiguration") {
			return
		}
	}
	if fn != nil {
		// A function of the module: what its facts say it reads of the
		// parameter (made once per function, so a chain of calls is not
		// walked again for each caller).
		if s := p.Facts(fn); s != nil {
			if pr, ok := s.ReadsOf(i); ok {
				if pr.Why != "" {
					r.why = pr.Why
				}
				for _, path := range pr.Paths {
					r.read(path, call)
				}
				return
			}
		}
	}
	if fn != nil && fn.Pkg() == p.Pkg {
		// A function of the package with no facts yet (in the making, a
		// cycle), or handed a list: followed with its parameter.
		param := paramAt(fn.Origin().Type().(*types.Signature), i)
		if fd := p.Decl(fn.Origin()); fd != nil && param != nil && (r.of(param.Type()) || r.holds(param.Type()) || types.IsInterface(param.Type())) {
			r.follow(param, fd.Body)
			return
		}
	}
	what := "a " + r.name()
	if r.holds(p.Info.TypeOf(e)) {
		what = "a list of " + r.name()
	}
	callee := name
	if callee == "" {
		callee = "a function value"
	}
	r.why = fmt.Sprintf("the reconciler hands %s to %s (%s), whose reads vet cannot list", what, callee, r.at(call.Pos()))
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

// intoInterface reports e, in an assignment, declaration, return,
// composite literal or send, stored where the static type is an
// interface.
func (r *Reads) intoInterface(e ast.Expr, parent ast.Node, stack []ast.Node) (bool, *types.Var) {
	info := r.ctx.Info
	iface := func(t types.Type) bool { return t != nil && types.IsInterface(t) }
	switch parent := parent.(type) {
	case *ast.AssignStmt:
		for i, rhs := range parent.Rhs {
			if rhs == e && i < len(parent.Lhs) { // the first of a call's results
				return iface(info.TypeOf(parent.Lhs[i])), r.local(parent.Lhs[i])
			}
		}
	case *ast.ValueSpec:
		for i, v := range parent.Values {
			if v == e && i < len(parent.Names) {
				return iface(info.TypeOf(parent.Names[i])), r.local(parent.Names[i])
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
				return true, nil
			}
			for j, res := range parent.Results {
				if res == e && j < sig.Results().Len() {
					return iface(sig.Results().At(j).Type()), nil
				}
			}
			return false, nil
		}
	case *ast.KeyValueExpr:
		if parent.Value != e {
			return false, nil
		}
		if id, ok := parent.Key.(*ast.Ident); ok {
			if f, ok := info.Uses[id].(*types.Var); ok && f.IsField() {
				return iface(f.Type()), nil
			}
		}
		if len(stack) >= 2 {
			if lit, ok := stack[len(stack)-2].(*ast.CompositeLit); ok {
				return iface(elemType(info.TypeOf(lit))), nil
			}
		}
	case *ast.CompositeLit:
		t := info.TypeOf(parent)
		if st, ok := t.Underlying().(*types.Struct); ok {
			for i, el := range parent.Elts {
				if el == e && i < st.NumFields() {
					return iface(st.Field(i).Type()), nil
				}
			}
			return false, nil
		}
		return iface(elemType(t)), nil
	case *ast.SendStmt:
		if ch, ok := info.TypeOf(parent.Chan).Underlying().(*types.Chan); ok && parent.Value == e {
			return iface(ch.Elem()), nil
		}
	}
	return false, nil
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
func (r *Reads) handed(e ast.Expr, stack []ast.Node) {
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
