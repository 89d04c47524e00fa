package driver

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"

	"github.com/ssagen/ssagen/vet/internal/flow"
)

// The tests follow the write. A package's tests often inject errors into
// the writes a function makes through controller-runtime's interceptor:
//
//	fake.NewClientBuilder().WithInterceptorFuncs(interceptor.Funcs{
//		Create: func(context.Context, client.WithWatch, client.Object, ...client.CreateOption) error {
//			return errors.New("something went wrong")
//		},
//	}).Build()
//
// Once -fix turns the function's Create (or Update) into a helper's
// server-side apply, that write is a Patch: the injection no longer
// reaches it and the test loses its meaning. So the tests that call the
// function get the same injection on Patch, next to the one they had
// (which stays, for the function's other writes):
//
//	Patch: func(context.Context, client.WithWatch, client.Object, client.Patch, ...client.PatchOption) error {
//		return errors.New("something went wrong")
//	},
//
// A status write moves from SubResourceUpdate to SubResourcePatch the
// same way. An interceptor that already replaces Patch, replaces Create
// and Update differently (which of the two the apply stands for depends
// on the object being there), or hands the write on to its client (a
// decoration: a UID set, then client.Create), is left alone: if its test then
// fails, the check declines the fix and says why. What the edits do is
// checked like the fix itself: the package's build, go vet and its tests.

// injectionMove is the interceptor fields whose injection moves, and the
// field it moves to.
type injectionMove struct {
	from []string
	to   string
}

// interceptorPath is the import path of controller-runtime's interceptor.
const interceptorPath = "sigs.k8s.io/controller-runtime/pkg/client/interceptor"

// moves are, by the write a fix replaces, the interceptor fields whose
// injection moves, and the field the apply goes through.
var moves = map[bool]injectionMove{
	false: {[]string{"Create", "Update"}, "Patch"},
	true:  {[]string{"SubResourceUpdate"}, "SubResourcePatch"},
}

// testEdits are the edits of the package's test files that move the
// injections of the tests calling the function that holds f's site.
func testEdits(f *finding, changed map[string][]byte) []edit {
	fn := enclosingFunc(f)
	if fn == "" {
		return nil
	}
	return eachTestFile(f, changed, func(name string, src []byte) []edit {
		return moveInjections(name, src, fn, f.target.Status)
	})
}

// eachTestFile gathers the edits each makes of each _test.go file in the
// folder of f's package, as changed holds it (else as on disk), in name
// order.
func eachTestFile(f *finding, changed map[string][]byte, each func(name string, src []byte) []edit) []edit {
	var out []edit
	for _, name := range testFiles(f.pkg) {
		src, err := sourceOf(changed, name)
		if err != nil {
			continue
		}
		out = append(out, each(name, src)...)
	}
	return out
}

// enclosingFunc is the name of the function declaration f's site is in.
func enclosingFunc(f *finding) string {
	for _, file := range f.pkg.Syntax {
		if f.diag.Pos < file.FileStart || f.diag.Pos > file.FileEnd {
			continue
		}
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && fd.Pos() <= f.diag.Pos && f.diag.Pos < fd.End() {
				return fd.Name.Name
			}
		}
	}
	return ""
}

// moveInjections are the edits of one test file: in each function that
// calls fn, each interceptor.Funcs literal that replaces a write the
// apply stands for gets the same replacement on the apply's write.
func moveInjections(name string, src []byte, fn string, status bool) []edit {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	pkgName, ok := newImports(file, off).byPath[interceptorPath]
	if !ok {
		return nil
	}
	move := moves[status]
	var out []edit
	for _, d := range file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || !calls(fd.Body, fn) {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if ok && isSelector(lit.Type, pkgName, "Funcs") {
				if e, moved := moveInjection(name, src, off, lit, move, status); moved {
					out = append(out, e)
				}
			}
			return true
		})
	}
	return out
}

// moveInjection is the edit that gives the interceptor.Funcs literal lit
// the apply's function, a copy of the write's it replaces; not moved when
// lit sets the apply's already, names a function instead of a literal,
// has Create and Update functions that differ, or its function only
// passes the write on.
func moveInjection(name string, src []byte, off func(token.Pos) int, lit *ast.CompositeLit, move injectionMove, status bool) (edit, bool) {
	fields := map[string]*ast.FuncLit{}
	has := map[string]bool{}
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			return edit{}, false
		}
		key, ok := kv.Key.(*ast.Ident)
		if !ok {
			return edit{}, false
		}
		has[key.Name] = true
		if fl, ok := kv.Value.(*ast.FuncLit); ok {
			fields[key.Name] = fl
		}
	}
	if has[move.to] {
		return edit{}, false
	}
	var from *ast.FuncLit
	for _, k := range move.from {
		fl := fields[k]
		if fl == nil {
			if has[k] {
				return edit{}, false // a named function: its body is not ours to copy
			}
			continue
		}
		if from != nil && string(src[off(fl.Body.Pos()):off(fl.Body.End())]) != string(src[off(from.Body.Pos()):off(from.Body.End())]) {
			return edit{}, false // Create and Update differ: which one the apply is depends on the object
		}
		if from == nil {
			from = fl
		}
	}
	if from == nil || passesThrough(from) {
		return edit{}, false
	}
	params, ok := movedParams(src, off, from.Type.Params, status)
	if !ok {
		return edit{}, false
	}
	text := move.to + ": func(" + params + ") error " + string(src[off(from.Body.Pos()):off(from.Body.End())]) + ","
	at := off(lit.Rbrace)
	before := strings.TrimRight(string(src[off(lit.Lbrace)+1:at]), " \t\n")
	switch {
	case strings.HasSuffix(before, ","):
		text += "\n"
	case before == "":
	default:
		text = ", " + text
	}
	return edit{file: name, start: at, end: at, text: []byte(text)}, true
}

// movedParams are the parameters of the write's replacement, as written,
// for the apply's: a client.Patch before the options, whose type becomes
// the patch's (CreateOption, UpdateOption → PatchOption;
// SubResourceUpdateOption → SubResourcePatchOption).
func movedParams(src []byte, off func(token.Pos) int, params *ast.FieldList, status bool) (string, bool) {
	n := len(params.List)
	if n == 0 {
		return "", false
	}
	last := params.List[n-1]
	ell, ok := last.Type.(*ast.Ellipsis)
	if !ok || len(last.Names) > 1 {
		return "", false
	}
	sel, ok := ell.Elt.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	q, ok := sel.X.(*ast.Ident)
	if !ok {
		return "", false
	}
	opt := "PatchOption"
	if status {
		opt = "SubResourcePatchOption"
	}
	var parts []string
	for _, fld := range params.List[:n-1] {
		parts = append(parts, string(src[off(fld.Pos()):off(fld.End())]))
	}
	patch := q.Name + ".Patch"
	options := "..." + q.Name + "." + opt
	if len(last.Names) == 1 {
		patch = "_ " + patch
		options = last.Names[0].Name + " " + options
	}
	return strings.Join(append(parts, patch, options), ", "), true
}

// passesThrough reports a replacement that hands the write on to the
// client it is given (sets a UID, then calls client.Create(ctx, obj,
// opts...)): a decoration of that write, not an injection to move — on
// Patch it would turn the apply into a Create.
func passesThrough(fl *ast.FuncLit) bool {
	var names []string
	for _, f := range fl.Type.Params.List {
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
	}
	if len(names) < 2 {
		return false // unnamed: the body cannot reach the client
	}
	for _, n := range []string{names[1], names[len(names)-1]} { // the client, the options
		if n != "_" && flow.Mentions(fl.Body, n) {
			return true
		}
	}
	return false
}

// calls reports whether body calls a function or method named fn.
func calls(body *ast.BlockStmt, fn string) bool {
	return flow.Find(body, func(n ast.Node) bool { c, ok := n.(*ast.CallExpr); return ok && flow.CalledName(c) == fn })
}

// isSelector reports whether e is pkg.name.
func isSelector(e ast.Expr, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}
