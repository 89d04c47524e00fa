// Package flow is the analyzer ssagen vet's checks require to see across
// functions: for each function of a package it summarises what the
// function does through a controller-runtime client — itself, or in the
// functions it calls — and exports the summary as a fact, the way
// golang.org/x/tools' printf pass marks printf wrappers, so that a
// package's callers see it too.
//
// A check reads the summaries through the analyzer's result (Result.Of):
// a RetryOnConflict whose retried function calls a method that Gets and
// Updates, an Update of a parameter whose caller read the object from the
// cache, an object a function returns from a Get.
//
// Summaries are made for the packages of the module being analysed only
// (a module without a version: the main module, a workspace's, a GOPATH
// tree's), never for its dependencies', so that every driver — ssagen vet,
// go vet -vettool, golangci-lint, gopls — sees the same ones whether or
// not it has the dependencies' syntax.
package flow

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/objectpath"
)

// Analyzer computes the package's summaries, exports them as facts and
// returns them, with those of the packages it imports, as a *Result.
var Analyzer = &analysis.Analyzer{
	Name:       "ssagenflow",
	Doc:        "what each function does through a controller-runtime client, itself or in the functions it calls (facts for ssagen vet's checks)",
	Run:        run,
	FactTypes:  []analysis.Fact{new(Summary)},
	ResultType: reflect.TypeFor[*Result](),
}

// Summary is what a function does through a controller-runtime client,
// itself or in the functions of its module it calls (closures in its
// body included).
type Summary struct {
	// Gets: it reads an object with a client's Get.
	Gets bool
	// Updates: it writes an object with a client's Update, of the object
	// or of its status.
	Updates bool
	// UpdatesParams are its parameters (0 the first; a method's receiver
	// is not counted) whose object it writes with a client's Update (the
	// object, not its status).
	UpdatesParams []int
	// UpdatesItems are its parameters — a slice, or a list with Items —
	// whose items it writes with a client's Update (&items[i], a range
	// over them).
	UpdatesItems []int
	// ReturnsRead are its results (0 the first) that hold an object it
	// read with Get.
	ReturnsRead []int
	// ReturnsBuilt are its results that hold an object it built from a
	// composite literal, never read and with no resourceVersion set: a
	// constructor of a desired object.
	ReturnsBuilt []int
	// ReturnsListed are its results that hold the items of a list it
	// filled with List (return list.Items).
	ReturnsListed []int
	// Fresh are its parameters that hand it an object (a pointer to a
	// struct, an interface), in order, each with the reason its effect on
	// a fresh object is not its effect on the live one ("" when it is:
	// Fresh.Why).
	Fresh []FreshParam
	// Reads are its parameters that hand it an object, in order, each
	// with the fields it reads of the object (reads.go).
	Reads []ParamReads
	// Is names the apimachinery predicate it is on its first parameter
	// (return apierrors.IsAlreadyExists(err): "IsAlreadyExists"), a
	// module's own name for it.
	Is string
}

// FreshParam is a parameter of a Summary's Fresh.
type FreshParam struct {
	Index int
	Why   string
}

// FreshOf is the reason of parameter i, and whether it hands an object.
func (s *Summary) FreshOf(i int) (string, bool) {
	for _, p := range s.Fresh {
		if p.Index == i {
			return p.Why, true
		}
	}
	return "", false
}

// AFact marks Summary as a fact.
func (*Summary) AFact() {}

func (s *Summary) String() string {
	var parts []string
	if s.Gets {
		parts = append(parts, "gets")
	}
	if s.Updates {
		parts = append(parts, "updates")
	}
	for _, f := range []struct {
		label string
		v     []int
	}{{"updates params", s.UpdatesParams}, {"updates items of params", s.UpdatesItems}, {"returns read", s.ReturnsRead}, {"returns built", s.ReturnsBuilt}, {"returns listed", s.ReturnsListed}} {
		if len(f.v) > 0 {
			parts = append(parts, fmt.Sprintf("%s %v", f.label, f.v))
		}
	}
	if s.Is != "" {
		parts = append(parts, "is "+s.Is)
	}
	return strings.Join(parts, ", ")
}

func (s *Summary) zero() bool {
	return !s.Gets && !s.Updates && len(s.UpdatesParams) == 0 && len(s.UpdatesItems) == 0 && len(s.ReturnsRead) == 0 && len(s.ReturnsBuilt) == 0 && len(s.ReturnsListed) == 0 && len(s.Fresh) == 0 && len(s.Reads) == 0 && s.Is == ""
}

func (s *Summary) equal(o *Summary) bool {
	return s.Gets == o.Gets && s.Updates == o.Updates && slices.Equal(s.UpdatesParams, o.UpdatesParams) &&
		slices.Equal(s.UpdatesItems, o.UpdatesItems) && slices.Equal(s.ReturnsRead, o.ReturnsRead) &&
		slices.Equal(s.ReturnsBuilt, o.ReturnsBuilt) && slices.Equal(s.ReturnsListed, o.ReturnsListed) && slices.Equal(s.Fresh, o.Fresh)
}

// Result holds the summaries a pass can see: its package's, and the
// facts of the packages it imports.
type Result struct {
	byFunc map[*types.Func]*Summary
	// byPath holds the imported facts by package path, then object path,
	// for a driver whose import was type-checked apart from the package
	// the facts were computed on (ssagen vet's checks a module's
	// dependencies from source, its roots against their export data): the
	// same function, two objects.
	byPath map[string]map[objectpath.Path]*Summary
}

// Of is fn's summary, or nil when it does nothing a summary records (or
// is not a function of the analysed module).
func (r *Result) Of(fn *types.Func) *Summary {
	if r == nil || fn == nil {
		return nil
	}
	fn = fn.Origin()
	if s, ok := r.byFunc[fn]; ok {
		return s
	}
	// Only a package that has facts is worth an object path: most
	// callees are of packages that have none (the standard library,
	// client-go).
	if fn.Pkg() == nil || r.byPath[fn.Pkg().Path()] == nil {
		return nil
	}
	path, err := objectpath.For(fn)
	if err != nil {
		return nil
	}
	return r.byPath[fn.Pkg().Path()][path]
}

func run(pass *analysis.Pass) (any, error) {
	res := &Result{byFunc: map[*types.Func]*Summary{}, byPath: map[string]map[objectpath.Path]*Summary{}}
	// A package outside the analysed module has no summaries, and no
	// check reads its result.
	if !local(pass) {
		return res, nil
	}
	var enc objectpath.Encoder
	for _, f := range pass.AllObjectFacts() {
		fn, ok := f.Object.(*types.Func)
		if !ok {
			continue
		}
		res.byFunc[fn] = f.Fact.(*Summary)
		if path, err := enc.For(fn); err == nil {
			if res.byPath[fn.Pkg().Path()] == nil {
				res.byPath[fn.Pkg().Path()] = map[objectpath.Path]*Summary{}
			}
			res.byPath[fn.Pkg().Path()][path] = f.Fact.(*Summary)
		}
	}
	var funcs []*ast.FuncDecl
	for _, file := range pass.Files {
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && pass.TypesInfo.Defs[fd.Name] != nil {
				funcs = append(funcs, fd)
			}
		}
	}
	ctx := contextOf(pass, funcs, res)
	fresh := freshFacts(ctx, funcs)
	reads := readsFacts(ctx, funcs)
	// The summaries grow monotonically (flags set, indices added): go
	// over the package's functions until none changes. A package that
	// cannot reach the client has only Fresh facts.
	for changed, rounds := reachesClient(pass.Pkg), 0; changed && rounds < 20; rounds++ {
		changed = false
		for _, fd := range funcs {
			fn := pass.TypesInfo.Defs[fd.Name].(*types.Func)
			s := summarise(pass.TypesInfo, fd, res)
			if old := res.byFunc[fn]; (old == nil && !s.zero()) || (old != nil && !old.equal(s)) {
				res.byFunc[fn] = s
				changed = true
			}
		}
	}
	for _, fd := range funcs {
		fn := pass.TypesInfo.Defs[fd.Name].(*types.Func)
		s := res.byFunc[fn]
		if f, r, is := fresh[fn], reads[fn], predicate(pass.TypesInfo, fd); f != nil || r != nil || is != "" {
			if s == nil {
				s = &Summary{}
			}
			s.Fresh, s.Reads, s.Is = f, r, is
			res.byFunc[fn] = s
		}
		if s != nil && !s.zero() {
			pass.ExportObjectFact(fn, s)
		}
	}
	return res, nil
}

// predicate names the apimachinery error predicate fd is, when its body
// is return apierrors.IsX(p) of its only parameter p (Summary.Is).
func predicate(info *types.Info, fd *ast.FuncDecl) string {
	if params := ParamVars(info, fd); len(params) == 1 && params[0] != nil && len(fd.Body.List) == 1 {
		if ret, ok := fd.Body.List[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
			if call, ok := ast.Unparen(ret.Results[0]).(*ast.CallExpr); ok && len(call.Args) == 1 && ObjectVar(info, call.Args[0]) == params[0] {
				if fn := Callee(info, call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "k8s.io/apimachinery/pkg/api/errors" && strings.HasPrefix(fn.Name(), "Is") {
					return fn.Name()
				}
			}
		}
	}
	return ""
}

// freshFacts are the Fresh summaries of the package's functions: for each
// parameter that hands a function an object, why its effect on a fresh
// object is not its effect on the live one.
func freshFacts(ctx *Context, funcs []*ast.FuncDecl) map[*types.Func][]FreshParam {
	out := map[*types.Func][]FreshParam{}
	for _, fd := range funcs {
		fn := ctx.Info.Defs[fd.Name].(*types.Func)
		for i, v := range ParamVars(ctx.Info, fd) {
			if v == nil || !handsObject(v.Type()) {
				continue
			}
			out[fn] = append(out[fn], FreshParam{i, NewFresh(ctx, v, nil, token.NoPos).Why(fd.Body.List)})
		}
	}
	return out
}

// contextOf is the Context of the package's functions, with the facts
// known of the module's other packages.
func contextOf(pass *analysis.Pass, funcs []*ast.FuncDecl, known *Result) *Context {
	decls := map[*types.Func]*ast.FuncDecl{}
	for _, fd := range funcs {
		decls[pass.TypesInfo.Defs[fd.Name].(*types.Func)] = fd
	}
	return &Context{Info: pass.TypesInfo, Fset: pass.Fset, Pkg: pass.Pkg,
		Decl: func(fn *types.Func) *ast.FuncDecl { return decls[fn] }, Facts: known.Of}
}

// handsObject reports a parameter type through which a function reaches
// an object: a pointer to a struct, or an interface.
func handsObject(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		_, ok := u.Elem().Underlying().(*types.Struct)
		return ok
	case *types.Interface:
		return !u.Empty()
	}
	return false
}

// local reports a package of the module being analysed: one without a
// module version (the main module, a workspace module, a GOPATH tree),
// not the standard library — which has no module path, and no dot in its
// first path element, where a main module may have none (module
// operator).
func local(pass *analysis.Pass) bool {
	if pass.Module != nil && pass.Module.Version != "" {
		return false
	}
	if pass.Module != nil && pass.Module.Path != "" {
		return true
	}
	first, _, _ := strings.Cut(pass.Pkg.Path(), "/")
	return strings.Contains(first, ".")
}

// reachesClient reports whether pkg imports controller-runtime's client or
// a client-go typed client (ClientsetMethod's), directly or through other
// packages: nothing else can call them.
func reachesClient(pkg *types.Package) bool {
	seen := map[*types.Package]bool{}
	var walk func(*types.Package) bool
	walk = func(p *types.Package) bool {
		if seen[p] {
			return false
		}
		seen[p] = true
		path := p.Path()
		return path == ClientPkg || strings.HasPrefix(path, "k8s.io/client-go/kubernetes/typed/") || strings.Contains(path, "/clientset/") ||
			slices.ContainsFunc(p.Imports(), walk)
	}
	return walk(pkg)
}

// summarise is fd's summary from its body and the summaries known so far.
func summarise(info *types.Info, fd *ast.FuncDecl, known *Result) *Summary {
	sig := info.Defs[fd.Name].(*types.Func).Type().(*types.Signature)
	m := &summariser{info: info, known: known, params: map[*types.Var]int{}, s: &Summary{}, updated: map[int]bool{}, items: map[int]bool{},
		read: map[*types.Var]bool{}, listed: map[*types.Var]bool{}, ranged: map[*types.Var]int{}}
	for i := 0; i < sig.Params().Len(); i++ {
		m.params[sig.Params().At(i)] = i
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.RangeStmt:
			if i, ok := m.paramSlice(n.X); ok && n.Value != nil {
				if v := ObjectVar(info, n.Value); v != nil {
					m.ranged[v] = i
				}
			}
		case *ast.AssignStmt:
			m.assign(n)
		case *ast.CallExpr:
			m.call(n)
		}
		return true
	})
	s := m.s
	s.UpdatesParams, s.UpdatesItems = sortedKeys(m.updated), sortedKeys(m.items)
	s.ReturnsRead = returnsRead(info, fd, m.read)
	s.ReturnsBuilt = returnsBuilt(info, fd, m.read)
	if len(m.listed) > 0 && fd.Type.Results != nil {
		s.ReturnsListed = resultsHolding(info, fd, func(e ast.Expr) bool {
			sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
			return ok && sel.Sel.Name == "Items" && m.listed[ObjectVar(info, sel.X)]
		})
	}
	return s
}

// summariser is summarise's state over one function's body.
type summariser struct {
	info           *types.Info
	known          *Result
	params         map[*types.Var]int
	s              *Summary
	updated, items map[int]bool        // parameters Updated, parameters whose items are
	read, listed   map[*types.Var]bool // locals a Get filled, or a call's read result; lists a List filled
	ranged         map[*types.Var]int  // range values over a slice parameter: its index
}

// paramSlice: e is a parameter, or its Items (a list).
func (m *summariser) paramSlice(e ast.Expr) (int, bool) {
	e = ast.Unparen(e)
	if sel, ok := e.(*ast.SelectorExpr); ok && sel.Sel.Name == "Items" {
		e = sel.X
	}
	i, ok := m.params[ObjectVar(m.info, e)]
	return i, ok
}

// itemOf: e is &param[i], param[i], or a range value over param.
func (m *summariser) itemOf(e ast.Expr) (int, bool) {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok {
		e = ast.Unparen(u.X)
	}
	if ix, ok := e.(*ast.IndexExpr); ok {
		return m.paramSlice(ix.X)
	}
	i, ok := m.ranged[ObjectVar(m.info, e)]
	return i, ok
}

// assign follows an assignment: item := &param[i] makes item one of
// param's items; x, err := r.get(ctx) makes x hold what get read.
func (m *summariser) assign(n *ast.AssignStmt) {
	for k, l := range n.Lhs {
		if len(n.Rhs) == len(n.Lhs) {
			if i, ok := m.itemOf(n.Rhs[k]); ok {
				if v := ObjectVar(m.info, l); v != nil {
					m.ranged[v] = i
				}
			}
		}
	}
	if len(n.Rhs) != 1 {
		return
	}
	if c, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr); ok {
		if cs := m.known.Of(Callee(m.info, c)); cs != nil {
			for _, j := range cs.ReturnsRead {
				if j < len(n.Lhs) {
					m.mark(m.read, n.Lhs[j])
				}
			}
		}
	}
}

// call follows a call: a client's or a clientset's read and write, or
// a function of the module with its summary.
func (m *summariser) call(n *ast.CallExpr) {
	info, s := m.info, m.s
	switch ClientsetMethod(info, n) {
	case "Get":
		s.Gets = true
		return
	case "Update", "UpdateStatus":
		s.Updates = true
		if ClientsetMethod(info, n) == "Update" && len(n.Args) > 1 {
			if i, ok := m.params[ObjectVar(info, n.Args[1])]; ok {
				m.updated[i] = true
			}
		}
		return
	}
	switch ClientMethod(info, n) {
	case "Get":
		s.Gets = true
		if len(n.Args) > 2 {
			m.mark(m.read, n.Args[2])
		}
		return
	case "List":
		if len(n.Args) > 1 {
			m.mark(m.listed, n.Args[1])
		}
		return
	case "Update":
		s.Updates = true
		if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok && !IsStatusWriter(sel.X) && len(n.Args) > 1 {
			m.update(n.Args[1])
		}
		return
	}
	cs := m.known.Of(Callee(info, n))
	if cs == nil {
		return
	}
	s.Gets = s.Gets || cs.Gets
	s.Updates = s.Updates || cs.Updates
	for _, j := range cs.UpdatesParams {
		if j < len(n.Args) {
			m.update(n.Args[j])
		}
	}
	for _, j := range cs.UpdatesItems {
		if j < len(n.Args) {
			if i, ok := m.params[ObjectVar(info, n.Args[j])]; ok {
				m.items[i] = true
			}
		}
	}
}

// update records an Update of e: a parameter, or an item of one.
func (m *summariser) update(e ast.Expr) {
	if i, ok := m.params[ObjectVar(m.info, e)]; ok {
		m.updated[i] = true
	} else if i, ok := m.itemOf(e); ok {
		m.items[i] = true
	}
}

// mark puts the variable e names in set.
func (m *summariser) mark(set map[*types.Var]bool, e ast.Expr) {
	if v := ObjectVar(m.info, e); v != nil {
		set[v] = true
	}
}

// returnsBuilt are the results of fd that every return statement fills
// with an object built from a composite literal in fd (&T{...} returned,
// or a local assigned one and never read into) or, on an error path,
// nil — none when fd sets a resourceVersion anywhere.
func returnsBuilt(info *types.Info, fd *ast.FuncDecl, read map[*types.Var]bool) []int {
	if fd.Type.Results == nil {
		return nil
	}
	if SetsField(fd.Body, "ResourceVersion") {
		return nil
	}
	built := map[*types.Var]bool{}
	ast.Inspect(fd.Body, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.AssignStmt:
			for i, l := range m.Lhs {
				if v := ObjectVar(info, l); v != nil && i < len(m.Rhs) && len(m.Lhs) == len(m.Rhs) && IsLiteral(m.Rhs[i]) {
					built[v] = true
				}
			}
		case *ast.ValueSpec:
			for i, name := range m.Names {
				if v, ok := info.Defs[name].(*types.Var); ok && i < len(m.Values) && IsLiteral(m.Values[i]) {
					built[v] = true
				}
			}
		}
		return true
	})
	for v := range read {
		delete(built, v)
	}
	return resultsHolding(info, fd, func(e ast.Expr) bool {
		v := ObjectVar(info, e)
		return (v != nil && built[v]) || (v == nil && IsLiteral(e))
	})
}

// SetsField reports a body that sets field anywhere: the field or its
// setter (SetResourceVersion) named, a key of a literal.
func SetsField(body *ast.BlockStmt, field string) bool {
	return body != nil && Find(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			return n.Sel.Name == field || n.Sel.Name == "Set"+field
		case *ast.KeyValueExpr:
			id, ok := n.Key.(*ast.Ident)
			return ok && id.Name == field
		}
		return false
	})
}

// IsLiteral reports a composite literal, or its address.
func IsLiteral(e ast.Expr) bool {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	_, ok := e.(*ast.CompositeLit)
	return ok
}

// returnsRead are the results of fd that every return statement fills
// with an object read (a local in read) or, on an error path, nil — and
// at least one with the object.
func returnsRead(info *types.Info, fd *ast.FuncDecl, read map[*types.Var]bool) []int {
	if len(read) == 0 || fd.Type.Results == nil {
		return nil
	}
	return resultsHolding(info, fd, func(e ast.Expr) bool {
		v := ObjectVar(info, e)
		return v != nil && read[v]
	})
}

// resultsHolding are the results of fd, objects, that every return
// statement fills with an expression object accepts or, on an error
// path, nil — and at least one with an accepted one.
func resultsHolding(info *types.Info, fd *ast.FuncDecl, object func(ast.Expr) bool) []int {
	n := fd.Type.Results.NumFields()
	holds := make([]int, n)   // returns that hold an object or nil, per result
	objects := make([]int, n) // returns that hold an object, per result
	returns := 0
	ast.Inspect(fd.Body, func(m ast.Node) bool {
		if _, ok := m.(*ast.FuncLit); ok {
			return false
		}
		ret, ok := m.(*ast.ReturnStmt)
		if !ok || len(ret.Results) != n {
			return true
		}
		returns++
		for i, e := range ret.Results {
			if object(e) {
				holds[i]++
				objects[i]++
			} else if id, ok := ast.Unparen(e).(*ast.Ident); ok && id.Name == "nil" {
				holds[i]++ // an error path
			}
		}
		return true
	})
	var out []int
	for i, h := range holds {
		if h == returns && objects[i] > 0 && isObjectResult(info, fd, i) {
			out = append(out, i)
		}
	}
	return out
}

// isObjectResult reports whether fd's result i is a pointer to a struct
// (an object), so that a result always nil is not taken for one.
func isObjectResult(info *types.Info, fd *ast.FuncDecl, i int) bool {
	sig := info.Defs[fd.Name].(*types.Func).Type().(*types.Signature)
	if i >= sig.Results().Len() {
		return false
	}
	t := sig.Results().At(i).Type()
	if sl, ok := t.Underlying().(*types.Slice); ok {
		t = sl.Elem() // items
	} else if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	} else {
		return false
	}
	_, ok := t.Underlying().(*types.Struct)
	return ok
}

func sortedKeys(m map[int]bool) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}
