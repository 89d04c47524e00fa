package createupdate

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/check"
)

// A seam is a function field a package writes objects through, which its
// tests replace (Kargo's `createRoleFn func(context.Context,
// client.Object, ...client.CreateOption) error`, set to r.client.Create
// by the constructor). -fix rewrites the seam with its sites:
//
//   - the field's type becomes the helper's signature, its default the
//     generated helper (the seam stays a seam);
//   - each write through it becomes a call of the field as the helper's
//     call would be, the client the default was bound to passed in;
//   - the tests' stubs of the field follow (the driver edits them: an
//     injected error stays that error, AlreadyExists becomes Unchanged,
//     nil becomes Created).
//
// All of it is one change: every site of the seam carries the edits of
// all of them, and when one cannot be rewritten, none is.
type seam struct {
	field  *types.Var
	helper *types.Func
	// client is the default's client, relative to the value the field is
	// read from: ".client" for r.createFn = r.client.Create.
	client string
	calls  []*ast.CallExpr // every call through the field
	edits  []analysis.TextEdit
	why    string // why the seam cannot be rewritten; "" when it can
}

// seamOf is the seam create writes through (nil when it is not a call of
// a function field).
func (p pass) seamOf(create *ast.CallExpr) *seam {
	sel, ok := ast.Unparen(create.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	v, ok := p.TypesInfo.Uses[sel.Sel].(*types.Var)
	if !ok || !v.IsField() {
		return nil
	}
	if p.seams == nil {
		p.seams = map[*types.Var]*seam{}
	}
	if s, ok := p.seams[v]; ok {
		return s
	}
	s := &seam{field: v}
	p.seams[v] = s
	s.why = p.readSeam(s)
	return s
}

// seamWhy is the reason a seam cannot be rewritten, as -fix says it.
func (s *seam) seamWhy(text string) string {
	return fmt.Sprintf("the object is written through the function field %s, a seam tests replace, which -fix cannot rewrite: %s; give the field the helper's signature with its helper as the default, change the tests that set it, and call it here by hand (docs/vet.md, \"Writes through a function field\")", text, s.why)
}

// readSeam finds the seam's calls and defaults and builds the edits of
// its field and defaults; it says why when the seam is not one -fix
// rewrites.
func (p pass) readSeam(s *seam) string {
	sig, ok := s.field.Type().Underlying().(*types.Signature)
	if !ok || !p.createSignature(sig) {
		return "its type is not func(context.Context, client.Object, ...client.CreateOption) error"
	}
	defs, decl, declFile, bad := p.seamUses(s)
	switch {
	case bad != "":
		return bad
	case decl == nil || len(decl.Names) != 1:
		return "its declaration is not in the package's code, or declares more than one field"
	case len(defs) == 0:
		return "it has no default in the package's code (a constructor setting it to a client's Create)"
	}
	if why := p.seamClient(s, defs); why != "" {
		return why
	}
	if why := p.seamHelper(s); why != "" {
		return why
	}
	p.seamEdits(s, defs, decl, declFile)
	return ""
}

// seamDef is a default of a seam: the value it is set to.
type seamDef struct {
	value  *ast.SelectorExpr // x.client.Create
	root   string            // the text of the value the field is set on ("r"), or "" in a literal
	fields map[string]string // in a composite literal: the text of each other field's value
	file   *ast.File
}

// seamUses finds the seam's calls (into s), its defaults and its
// declaration, or says why a use is none of them.
func (p pass) seamUses(s *seam) (defs []seamDef, decl *ast.Field, declFile *ast.File, bad string) {
	for _, file := range p.Files {
		if p.InTest(file) {
			continue
		}
		var stack []ast.Node
		ast.Inspect(file, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			if fl, ok := n.(*ast.Field); ok && slices.ContainsFunc(fl.Names, func(name *ast.Ident) bool { return p.TypesInfo.Defs[name] == s.field }) {
				decl, declFile = fl, file
			}
			if id, ok := n.(*ast.Ident); ok && p.TypesInfo.Uses[id] == s.field && bad == "" {
				var d *seamDef
				d, bad = p.seamUse(s, stack, file)
				if d != nil {
					defs = append(defs, *d)
				}
			}
			return true
		})
	}
	return defs, decl, declFile, bad
}

// seamUse is the use of the seam's field at the top of stack: a call
// (added to s), a default, or why it is neither.
func (p pass) seamUse(s *seam, stack []ast.Node, file *ast.File) (*seamDef, string) {
	notCreate := func(n ast.Node) string {
		return fmt.Sprintf("%s is set to something other than a client's Create (%s)", s.field.Name(), p.Fset.Position(n.Pos()))
	}
	switch pn := stack[len(stack)-2].(type) {
	case *ast.KeyValueExpr: // reconciler{createFn: c.Create}
		lit, _ := stack[len(stack)-3].(*ast.CompositeLit)
		value, ok := ast.Unparen(pn.Value).(*ast.SelectorExpr)
		if lit == nil || !ok {
			return nil, notCreate(pn)
		}
		d := &seamDef{value: value, fields: map[string]string{}, file: file}
		for _, el := range lit.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok && kv != pn {
					d.fields[types.ExprString(kv.Value)] = k.Name
				}
			}
		}
		return d, ""
	case *ast.SelectorExpr:
		grand := stack[len(stack)-3]
		if c, ok := grand.(*ast.CallExpr); ok && c.Fun == pn {
			s.calls = append(s.calls, c)
			return nil, ""
		}
		if as, ok := grand.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) && as.Tok == token.ASSIGN {
			if i := slices.Index(as.Lhs, ast.Expr(pn)); i >= 0 {
				value, ok := ast.Unparen(as.Rhs[i]).(*ast.SelectorExpr)
				if !ok {
					return nil, notCreate(as)
				}
				return &seamDef{value: value, root: types.ExprString(pn.X), file: file}, ""
			}
		}
		return nil, fmt.Sprintf("%s is used other than called or set (%s)", s.field.Name(), p.Fset.Position(pn.Pos()))
	}
	return nil, ""
}

// seamClient sets the seam's client from its defaults, relative to the
// value the field is read from, or says why they bind none or several.
func (p pass) seamClient(s *seam, defs []seamDef) string {
	for _, d := range defs {
		m := d.value
		if m.Sel.Name != "Create" || !types.Identical(p.TypesInfo.TypeOf(m), s.field.Type()) {
			return fmt.Sprintf("its default %s is not a client's Create", types.ExprString(m))
		}
		x := types.ExprString(m.X)
		var rel string
		switch {
		case d.root != "" && strings.HasPrefix(x, d.root+"."):
			rel = x[len(d.root):]
		case d.root == "" && d.fields[x] != "":
			rel = "." + d.fields[x]
		default:
			return fmt.Sprintf("the client of its default %s is not a field of the value the field is set on", types.ExprString(m))
		}
		if s.client != "" && s.client != rel {
			return "its defaults bind different clients"
		}
		s.client = rel
	}
	return ""
}

// seamHelper sets the one helper of the kind the seam's calls write, or
// says why there is none.
func (p pass) seamHelper(s *seam) string {
	for _, c := range s.calls {
		if len(c.Args) != 2 {
			return fmt.Sprintf("it is called with options (%s)", p.Fset.Position(c.Pos()))
		}
		h := p.HelperFunc(p.TypesInfo.TypeOf(c.Args[1]))
		if h == nil {
			return fmt.Sprintf("the object it writes at %s has no helper (%s)", p.Fset.Position(c.Pos()), p.NoHelperFor(p.TypesInfo.TypeOf(c.Args[1])))
		}
		if s.helper != nil && s.helper != h {
			return fmt.Sprintf("it writes objects of more than one kind (%s and %s)", s.helper.Name(), h.Name())
		}
		s.helper = h
	}
	if s.helper == nil {
		return "it is never called"
	}
	return ""
}

// seamEdits are the edits of the field's type and its defaults.
func (p pass) seamEdits(s *seam, defs []seamDef, decl *ast.Field, declFile *ast.File) {
	f := p.NewFixer(declFile)
	hsig := s.helper.Type().(*types.Signature)
	qual := func(pkg *types.Package) string {
		suffix := ""
		if strings.Contains(pkg.Path(), "applyconfiguration") {
			suffix = "ac"
		}
		return f.Qualify(pkg, suffix)
	}
	var params, results []string
	for i := 0; i < hsig.Params().Len(); i++ {
		t := hsig.Params().At(i).Type()
		if hsig.Variadic() && i == hsig.Params().Len()-1 {
			params = append(params, "..."+types.TypeString(t.(*types.Slice).Elem(), qual))
			continue
		}
		params = append(params, types.TypeString(t, qual))
	}
	for i := 0; i < hsig.Results().Len(); i++ {
		results = append(results, types.TypeString(hsig.Results().At(i).Type(), qual))
	}
	typeText := "func(" + strings.Join(params, ", ") + ") (" + strings.Join(results, ", ") + ")"
	s.edits = append(s.edits, analysis.TextEdit{Pos: decl.Type.Pos(), End: decl.Type.End(), NewText: []byte(typeText)})
	fixers := map[*ast.File]*check.Fixer{declFile: f}
	files := []*ast.File{declFile}
	for _, d := range defs {
		df := fixers[d.file]
		if df == nil {
			df = p.NewFixer(d.file)
			fixers[d.file] = df
			files = append(files, d.file)
		}
		text := df.Qualify(s.helper.Pkg(), "") + "." + s.helper.Name()
		s.edits = append(s.edits, analysis.TextEdit{Pos: d.value.Pos(), End: d.value.End(), NewText: []byte(text)})
	}
	for _, file := range files {
		s.edits = append(s.edits, fixers[file].ImportEdits(nil, "")...)
	}
}

// createSignature: func(context.Context, client.Object, ...client.CreateOption) error.
func (p pass) createSignature(sig *types.Signature) bool {
	if sig.Params().Len() != 3 || !sig.Variadic() || sig.Results().Len() != 1 {
		return false
	}
	is := func(t types.Type, path, name string) bool {
		if a, ok := t.(*types.Alias); ok && a.Obj().Pkg() != nil && a.Obj().Pkg().Path() == path && a.Obj().Name() == name {
			return true // client.Object, an alias of cache/api's since controller-runtime v0.25
		}
		if pkg := p.Imported(path); pkg != nil {
			if o, ok := pkg.Scope().Lookup(name).(*types.TypeName); ok && types.Identical(t, o.Type()) {
				return true
			}
		}
		n, ok := types.Unalias(t).(*types.Named)
		return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == path && n.Obj().Name() == name
	}
	opts, ok := sig.Params().At(2).Type().(*types.Slice)
	return ok && is(sig.Params().At(0).Type(), "context", "Context") &&
		is(sig.Params().At(1).Type(), check.ClientPkg, "Object") &&
		is(opts.Elem(), check.ClientPkg, "CreateOption") &&
		types.Identical(sig.Results().At(0).Type(), types.Universe.Lookup("error").Type())
}

// seamInfo is what the driver needs of s for the tests' stubs.
func (s *seam) info() *check.SeamInfo {
	ref := func(t types.Type) check.TypeRef {
		r := check.TypeRef{}
		if ptr, ok := t.(*types.Pointer); ok {
			r.Pointer, t = true, ptr.Elem()
		}
		if sl, ok := t.(*types.Slice); ok {
			t = sl.Elem()
		}
		switch t := t.(type) {
		case *types.TypeParam:
			r.Name = t.String()
		case interface{ Obj() *types.TypeName }: // a named type, or an alias (client.Object, as the package spells it)
			r.Name = t.Obj().Name()
			if pkg := t.Obj().Pkg(); pkg != nil {
				r.Path, r.Pkg = pkg.Path(), pkg.Name()
			}
		default:
			r.Name = t.String()
		}
		return r
	}
	sig := s.helper.Type().(*types.Signature)
	in := &check.SeamInfo{Field: s.field.Name(), Runtime: contract.RuntimePkg}
	for i := 0; i < sig.Params().Len(); i++ {
		in.Params = append(in.Params, ref(sig.Params().At(i).Type()))
	}
	for i := 0; i < sig.Results().Len(); i++ {
		in.Results = append(in.Results, ref(sig.Results().At(i).Type()))
	}
	in.Object = in.Results[0]
	return in
}

// seamSite is a finding at a write through a seam, held until every site
// of the seam is known.
type seamSite struct {
	d check.Finding
	s *seam
}

// flushSeams reports the findings held at seams: each carries the edits
// of the whole seam (its field, its defaults, every site) when every
// site has its fix, and none otherwise, saying which site stands in the
// way.
func (p pass) flushSeams() {
	bySeam := map[*seam][]*seamSite{}
	var order []*seam
	for _, h := range p.held {
		if _, ok := bySeam[h.s]; !ok {
			order = append(order, h.s)
		}
		bySeam[h.s] = append(bySeam[h.s], h)
	}
	sort.Slice(order, func(i, j int) bool { return order[i].field.Pos() < order[j].field.Pos() })
	for _, s := range order {
		sites := bySeam[s]
		why := ""
		reported := map[token.Pos]bool{}
		for _, h := range sites {
			reported[h.d.Pos] = true
			if len(h.d.SuggestedFixes) == 0 && why == "" {
				why = fmt.Sprintf("the write through %s at %s is not rewritten (%s)", s.field.Name(), p.Fset.Position(h.d.Pos), h.d.Target.Why)
			}
		}
		for _, c := range s.calls {
			if !reported[c.Pos()] && why == "" {
				why = fmt.Sprintf("%s is also called at %s, which is not a write -fix rewrites", s.field.Name(), p.Fset.Position(c.Pos()))
			}
		}
		var edits []analysis.TextEdit
		if why == "" {
			edits = append(edits, s.edits...)
			for _, h := range sites {
				edits = append(edits, h.d.SuggestedFixes[0].TextEdits...)
			}
		}
		for _, h := range sites {
			d := h.d
			if why != "" {
				if len(d.SuggestedFixes) > 0 {
					d.SuggestedFixes = nil
					d = check.WithWhy(d, "the function field "+s.field.Name()+" is rewritten with all its writes, and "+why)
				}
			} else {
				d.SuggestedFixes = []analysis.SuggestedFix{{Message: d.SuggestedFixes[0].Message + ", through the function field " + s.field.Name() + " given the helper's signature", TextEdits: edits}}
				d.Target.Seam = s.info()
			}
			p.ReportFinding(d)
		}
	}
	p.held = nil
}
