package driver

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet"
	"github.com/ssagen/ssagen/vet/internal/flow"
)

// The stubs follow the seam. When -fix gives a function field the tests
// replace (a seam) the helper's signature, every function literal the
// package's tests set it to gets that signature too, and its returns say
// what the stubbed Create meant, as the helper says it:
//
//	createRoleFn: func(context.Context, client.Object, ...client.CreateOption) error {
//		return apierrors.NewAlreadyExists(schema.GroupResource{}, "")
//	},
//
// becomes
//
//	createRoleFn: func(context.Context, client.Client, client.Object, *rbacv1ac.RoleApplyConfiguration, ...ssaensure.ApplyOption) (*rbacv1.Role, ssaensure.Result, error) {
//		return nil, ssaensure.Unchanged, nil
//	},
//
// nil becomes a creation (nil, Created, nil); any other error stays that
// error (nil, "", err). A stub that reads the object it was handed
// (obj.(*rbacv1.Role)) reads the one the apply configuration describes:
// `var obj client.Object = ensuretest.Object[rbacv1.Role](desired)` opens
// its body. The edits are checked with the fix: the package's build, go
// vet and its tests.

// ensuretestPath is the import path of the runtime's test kit.
const ensuretestPath = "github.com/ssagen/ssagen/ensure/ensuretest"

// stubEdits are the edits of the package's test files that make the
// stubs of f's seam follow it.
func stubEdits(f *finding, changed map[string][]byte) []edit {
	s := f.target.Seam
	if s == nil || len(s.Params) != 5 || len(s.Results) != 3 {
		return nil
	}
	return eachTestFile(f, changed, func(name string, src []byte) []edit {
		return followSeam(name, src, s)
	})
}

// followSeam are the edits of one test file for seam s.
func followSeam(name string, src []byte, s *vet.SeamInfo) []edit {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	var stubs []*ast.FuncLit
	updateErr := map[*ast.FuncLit]string{} // the error the literal's client injects into Update
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			for _, el := range n.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				k, ok := kv.Key.(*ast.Ident)
				fl, isLit := kv.Value.(*ast.FuncLit)
				if !ok || !isLit || k.Name != s.Field {
					continue
				}
				stubs = append(stubs, fl)
				if e := injectedUpdate(n, kv, src, off); e != "" {
					updateErr[fl] = e
				}
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if sel, ok := l.(*ast.SelectorExpr); ok && sel.Sel.Name == s.Field && i < len(n.Rhs) {
					if fl, ok := n.Rhs[i].(*ast.FuncLit); ok {
						stubs = append(stubs, fl)
					}
				}
			}
		}
		return true
	})
	if len(stubs) == 0 {
		return nil
	}
	im := newImports(file, off)
	var out []edit
	for _, fl := range stubs {
		e, ok := followStub(name, src, off, fl, s, im, updateErr[fl])
		if ok {
			out = append(out, e...)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return append(out, im.edits(name)...)
}

// followStub rewrites one stub; false when it is not a stub of the old
// signature (three parameters, an error result) whose returns it can
// carry over.
func followStub(name string, src []byte, off func(token.Pos) int, fl *ast.FuncLit, s *vet.SeamInfo, im *imports, updateErr string) ([]edit, bool) {
	params := fl.Type.Params.List
	if fl.Type.Results == nil || len(fl.Type.Results.List) != 1 || len(fl.Type.Results.List[0].Names) > 0 {
		return nil, false
	}
	var names []string // ctx, obj, opts; "" when unnamed
	for _, p := range params {
		if len(p.Names) == 0 {
			names = append(names, "")
		}
		for _, n := range p.Names {
			names = append(names, n.Name)
		}
	}
	if len(names) != 3 {
		return nil, false
	}
	typ := func(r vet.TypeRef) string {
		t := r.Name
		if r.Path != "" {
			t = im.name(r.Path, preferredName(r)) + "." + r.Name
		}
		if r.Pointer {
			t = "*" + t
		}
		return t
	}
	objName := names[1]
	usesObj := objName != "" && objName != "_" && flow.Mentions(fl.Body, objName)
	var ps []string
	for i, r := range s.Params {
		t := typ(r)
		if i == len(s.Params)-1 {
			t = "..." + t
		}
		if names[0] != "" {
			n := "_"
			switch {
			case i == 0:
				n = names[0]
			case i == 3 && usesObj:
				n = "desired"
			}
			t = n + " " + t
		}
		ps = append(ps, t)
	}
	var rs []string
	for _, r := range s.Results {
		rs = append(rs, typ(r))
	}
	rt := im.name(s.Runtime, contract.RuntimeAlias)
	var out []edit
	out = append(out, edit{file: name, start: off(fl.Type.Pos()), end: off(fl.Type.End()),
		text: []byte("func(" + strings.Join(ps, ", ") + ") (" + strings.Join(rs, ", ") + ")")})
	if usesObj {
		obj := s.Object
		decode := "var " + objName + " " + typ(s.Params[2]) + " = " + im.name(ensuretestPath, "ensuretest") + ".Object[" + typ(vet.TypeRef{Path: obj.Path, Pkg: obj.Pkg, Name: obj.Name}) + "](desired)"
		out = append(out, edit{file: name, start: off(fl.Body.Lbrace) + 1, end: off(fl.Body.Lbrace) + 1, text: []byte("\n" + decode)})
	}
	returns, ok := stubReturns(name, src, off, fl, rt, updateErr)
	return append(out, returns...), ok
}

// stubReturns are the edits of the stub's returns: the Create's error
// becomes the helper's three results (nil: created; AlreadyExists:
// unchanged, or the injected Update's error as a failed change).
func stubReturns(name string, src []byte, off func(token.Pos) int, fl *ast.FuncLit, rt, updateErr string) ([]edit, bool) {
	var out []edit
	ok := true
	ast.Inspect(fl.Body, func(n ast.Node) bool {
		if _, lit := n.(*ast.FuncLit); lit {
			return false
		}
		ret, isRet := n.(*ast.ReturnStmt)
		if !isRet {
			return true
		}
		if len(ret.Results) != 1 {
			ok = false
			return false
		}
		r := ast.Unparen(ret.Results[0])
		text := `nil, "", ` + string(src[off(r.Pos()):off(r.End())])
		switch {
		case flow.IsNil(r):
			text = "nil, " + rt + ".Created, nil"
		case isAlreadyExists(r) && updateErr != "":
			// The object existed and the Update the code made then
			// failed: now the one apply fails to change it.
			text = `nil, "", ` + rt + ".NewUpdateError(" + updateErr + ")"
		case isAlreadyExists(r):
			text = "nil, " + rt + ".Unchanged, nil"
		}
		out = append(out, edit{file: name, start: off(r.Pos()), end: off(r.End()), text: []byte(text)})
		return false
	})
	return out, ok
}

// injectedUpdate is the error the other fields of lit (a struct literal
// that sets the stub kv) inject into the fake client's Update —
// `client: fake.NewClientBuilder().WithInterceptorFuncs(interceptor.Funcs{
// Update: func(...) error { return errors.New("...") }})` — as the text
// of the returned expression; "" when there is none, or it returns nil.
func injectedUpdate(lit *ast.CompositeLit, kv *ast.KeyValueExpr, src []byte, off func(token.Pos) int) string {
	found := ""
	for _, el := range lit.Elts {
		if el == ast.Expr(kv) {
			continue
		}
		ast.Inspect(el, func(n ast.Node) bool {
			funcs, ok := n.(*ast.CompositeLit)
			if !ok || found != "" {
				return found == ""
			}
			if sel, ok := funcs.Type.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Funcs" {
				return true
			}
			for _, e := range funcs.Elts {
				f, ok := e.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				if k, ok := f.Key.(*ast.Ident); !ok || k.Name != "Update" {
					continue
				}
				fl, ok := f.Value.(*ast.FuncLit)
				if !ok || len(fl.Body.List) != 1 {
					continue
				}
				if ret, ok := fl.Body.List[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 && !flow.IsNil(ast.Unparen(ret.Results[0])) {
					found = string(src[off(ret.Results[0].Pos()):off(ret.Results[0].End())])
				}
			}
			return false
		})
	}
	return found
}

// isAlreadyExists: apierrors.NewAlreadyExists(...), under any name.
func isAlreadyExists(e ast.Expr) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "NewAlreadyExists"
}

// preferredName is the name a package is imported by when the test file
// does not import it yet: as -fix names it in the code it rewrites.
func preferredName(r vet.TypeRef) string {
	suffix := ""
	if strings.Contains(r.Path, "applyconfiguration") {
		suffix = "ac"
	}
	return contract.ImportName(r.Path, r.Pkg, suffix)
}

// imports are a test file's imports, and those the stubs add.
type imports struct {
	byPath map[string]string // path → name in the file
	taken  map[string]bool
	added  []string // paths, in order
	decl   *ast.GenDecl
	file   *ast.File
	off    func(token.Pos) int
}

func newImports(file *ast.File, off func(token.Pos) int) *imports {
	im := &imports{byPath: map[string]string{}, taken: map[string]bool{}, file: file, off: off}
	for _, spec := range file.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		n := path[strings.LastIndex(path, "/")+1:] // the package's name, as a rule
		if spec.Name != nil {
			n = spec.Name.Name
		}
		if n == "_" || n == "." {
			continue
		}
		im.byPath[path] = n
		im.taken[n] = true
	}
	for _, d := range file.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT && g.Lparen.IsValid() {
			im.decl = g
			break
		}
	}
	return im
}

// name is what path is referred to by in the file, importing it as
// preferred (or preferred2, ...) when it is not imported.
func (im *imports) name(path, preferred string) string {
	if n, ok := im.byPath[path]; ok {
		return n
	}
	n := preferred
	for i := 2; im.taken[n]; i++ {
		n = preferred + strconv.Itoa(i)
	}
	im.byPath[path] = n
	im.taken[n] = true
	im.added = append(im.added, path)
	return n
}

// edits add the imports the stubs use.
func (im *imports) edits(name string) []edit {
	if len(im.added) == 0 {
		return nil
	}
	var b strings.Builder
	for _, path := range im.added {
		b.WriteString("\t" + im.byPath[path] + " " + strconv.Quote(path) + "\n")
	}
	if im.decl != nil {
		at := im.off(im.decl.Rparen)
		return []edit{{file: name, start: at, end: at, text: []byte(b.String())}}
	}
	at := im.off(im.file.Name.End())
	return []edit{{file: name, start: at, end: at, text: []byte("\n\nimport (\n" + b.String() + ")")}}
}
