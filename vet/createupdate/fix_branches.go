package check

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"sort"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet/internal/flow"
)

// The rewrite of `if err := c.Create(ctx, obj); err != nil { ... }` keeps
// every path the author wrote, each where the helper's result puts it:
//
//	if err := c.Create(ctx, obj); err != nil {
//		if !apierrors.IsAlreadyExists(err) {
//			return fmt.Errorf("creating %q: %w", obj.Name, err)   // failed
//		}
//		if err = c.Update(ctx, obj); err != nil { return ... }    // existed
//		log.Info("updated")
//		continue
//	} else {
//		log.Info("created")                                       // created
//	}
//
// becomes
//
//	if _, res, err := xensure.EnsureX(ctx, c, owner, obj); err != nil {
//		return fmt.Errorf("creating %q: %w", *obj.Name, err)
//	} else if res != ssaensure.Created {
//		log.Info("updated")
//		continue
//	} else {
//		log.Info("created")
//	}
//
// The write on the existing object and its own error check go: the one
// apply does both, and its error takes the first path. Reads of the
// object's name and namespace become reads of the apply configuration's;
// any other read declines the fix.

// branchEdits are the edits of that rewrite (the init's aside), with the
// name the result is bound to ("_" when no path needs it).
type branchRewrite struct {
	edits   []analysis.TextEdit
	removed []ast.Node
	res     string
	text    string // the new text, for the imports it needs
}

func (p *Pass) branchEdits(f *Fixer, in *literalIntent, create *ast.CallExpr, outer, check *ast.IfStmt) (*branchRewrite, string) {
	if _, negated := p.AlreadyExistsCheck(check.Cond); !negated || len(outer.Body.List) == 0 || outer.Body.List[0] != check || check.Init != nil || check.Else != nil {
		return nil, "the AlreadyExists check is not the first statement of the Create's error branch (if !apierrors.IsAlreadyExists(err) { return ... }): rewrite by hand (docs/vet.md)"
	}
	if !terminates(check.Body) {
		return nil, "the error path does not end the function or the loop iteration, so the AlreadyExists path and the other errors share code: rewrite by hand (docs/vet.md)"
	}
	if outer.Else != nil {
		if _, ok := outer.Else.(*ast.BlockStmt); !ok {
			return nil, "the Create's if has an else-if: rewrite by hand (docs/vet.md)"
		}
	}
	r := &branchRewrite{res: "_"}
	errCall, _ := p.AlreadyExistsCheck(check.Cond)
	errName := ""
	if id, ok := ast.Unparen(errCall.Args[0]).(*ast.Ident); ok {
		errName = id.Name
	}
	// The existing object's path: its write statements go, the rest stays.
	var rest, writes []ast.Stmt
	var updateFailed *ast.BlockStmt // the Update's own error path, kept
	for _, st := range outer.Body.List[1:] {
		writesIt := false
		for _, c := range Calls(st) {
			if p.WritesSameObject(c, create) {
				writesIt = true
			} else if m := p.ClientMethod(c); m != "" {
				return nil, fmt.Sprintf("the AlreadyExists path also calls %s (a read or a write of another object) before or after the Update: rewrite by hand (docs/vet.md)", m)
			}
		}
		if writesIt {
			if !writeOnly(st) {
				return nil, "the Update of the existing object is part of a larger statement: rewrite by hand (docs/vet.md)"
			}
			writes = append(writes, st)
			if b := updateErrorPath(st, errName); b != nil && updateFailed == nil {
				updateFailed = b
			}
		} else {
			rest = append(rest, st)
		}
	}
	if len(writes) == 0 {
		return nil, whyNoUpdate
	}
	kept := []ast.Node{check.Body}
	for _, st := range rest {
		kept = append(kept, st)
	}
	if outer.Else != nil {
		kept = append(kept, outer.Else)
	}
	reads, why := in.readEdits(p, kept)
	if why != "" {
		return nil, why
	}
	r.edits = append(r.edits, reads...)
	created := func() string { return f.Qualify(types.NewPackage(contract.RuntimePkg, "ensure"), "") + ".Created" }
	// Unwrap the check: its body becomes the error branch.
	// (from the check's line, so a comment after the outer brace stays).
	unwrap := p.unwrapIf(check)
	if updateFailed != nil {
		// The Update's failure keeps its own path: the apply's error says
		// whether it was changing an existing object.
		text, why := p.updatePathText(in, updateFailed)
		if why != "" {
			return nil, why
		}
		if text != p.blockText(check.Body) {
			unwrap.NewText = []byte("if " + f.Qualify(types.NewPackage(contract.RuntimePkg, "ensure"), "") + ".IsUpdateError(" + errName + ") {" + text + "}\n")
		}
	}
	r.edits = append(r.edits, unwrap)
	r.removed = append(r.removed, check.Cond)
	if len(rest) > 0 {
		r.res = "res"
		r.text = "} else if res != " + created() + " {"
		r.edits = append(r.edits, analysis.TextEdit{Pos: check.Body.Rbrace, End: check.Body.Rbrace + 1, NewText: []byte(r.text)})
		for _, st := range writes {
			r.edits = append(r.edits, deleteLine(p.Fset, st))
			r.removed = append(r.removed, st)
		}
	} else {
		// Only writes after the check: the branch ends with it.
		r.edits = append(r.edits, analysis.TextEdit{Pos: check.Body.Rbrace, End: outer.Body.Rbrace})
		for _, st := range writes {
			r.removed = append(r.removed, st)
		}
		if outer.Else != nil {
			// The else ran when the Create succeeded: now when the apply created.
			r.res = "res"
			r.text = "} else if res == " + created() + " "
			r.edits = append(r.edits, analysis.TextEdit{Pos: outer.Body.Rbrace, End: outer.Else.Pos(), NewText: []byte(r.text)})
		}
	}
	if r.res != "_" && flow.Mentions(outer, r.res) {
		return nil, "the name res is taken in this function: rewrite by hand (docs/vet.md)"
	}
	return r, ""
}

// unwrapIf is the edit that deletes an if's head, from the start of its
// line to its body's first statement (its line, when the body starts on
// the next), so that the body runs in its place; the closing brace is
// the caller's.
func (p *Pass) unwrapIf(ifs *ast.IfStmt) analysis.TextEdit {
	tf := p.Fset.File(ifs.Pos())
	end := ifs.Body.Lbrace + 1
	if l := tf.Line(ifs.Body.Lbrace); len(ifs.Body.List) > 0 && tf.Line(ifs.Body.List[0].Pos()) > l {
		end = tf.LineStart(l + 1)
	}
	return analysis.TextEdit{Pos: tf.LineStart(tf.Line(ifs.Pos())), End: end}
}

// updateErrorPath is the error path of `if err = c.Update(ctx, obj); err
// != nil { ... }` (err the name the AlreadyExists check reads), when it
// ends the function or the iteration; nil for any other write.
func updateErrorPath(st ast.Stmt, errName string) *ast.BlockStmt {
	s, ok := st.(*ast.IfStmt)
	if !ok || errName == "" || s.Else != nil || !terminates(s.Body) {
		return nil
	}
	as, ok := s.Init.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 || !isName(as.Lhs[0], errName) || !isName(flow.ComparedToNil(s.Cond, token.NEQ), errName) {
		return nil
	}
	return s.Body
}

// updatePathText is the text inside the braces of the Update's error
// path, its reads of the object turned into reads of the apply
// configuration.
func (p *Pass) updatePathText(in *literalIntent, b *ast.BlockStmt) (string, string) {
	edits, why := in.readEdits(p, []ast.Node{b})
	if why != "" {
		return "", why
	}
	src := p.blockText(b)
	from := b.Lbrace + 1
	sort.Slice(edits, func(i, j int) bool { return edits[i].Pos > edits[j].Pos })
	for _, e := range edits {
		i, j := int(e.Pos-from), int(e.End-from)
		src = src[:i] + string(e.NewText) + src[j:]
	}
	return src, ""
}

// blockText is the source between a block's braces.
func (p *Pass) blockText(b *ast.BlockStmt) string {
	tf := p.Fset.File(b.Pos())
	src, err := readSource(p, tf.Name())
	if err != nil {
		return ""
	}
	return string(src[tf.Offset(b.Lbrace)+1 : tf.Offset(b.Rbrace)])
}

// overlay holds the files the analysed packages were loaded with in
// place of those on disk (the edits of an earlier round of -fix): the
// text a fix moves is read from them. Set for the process, as the
// helpers are (UseOverlay).
var overlay struct {
	sync.Mutex
	files map[string][]byte
}

// UseOverlay sets the files the next analyses read in place of those on
// disk.
func UseOverlay(files map[string][]byte) {
	overlay.Lock()
	defer overlay.Unlock()
	overlay.files = files
}

// readSource is a file of the pass as it was loaded.
func readSource(p *Pass, name string) ([]byte, error) {
	overlay.Lock()
	b, ok := overlay.files[name]
	overlay.Unlock()
	if ok {
		return b, nil
	}
	if p.ReadFile != nil {
		return p.ReadFile(name)
	}
	return os.ReadFile(name)
}

// terminates: the block's last statement leaves it (return, continue,
// break, goto, panic).
func terminates(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	switch s := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt, *ast.BranchStmt:
		return true
	case *ast.ExprStmt:
		if c, ok := s.X.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return true
			}
		}
	}
	return false
}

// writeOnly: a statement that is the write and at most its error check
// (c.Update(...), err = c.Update(...), if err = c.Update(...); err !=
// nil { return ... }).
func writeOnly(st ast.Stmt) bool {
	switch s := st.(type) {
	case *ast.ExprStmt, *ast.AssignStmt:
		return true
	case *ast.IfStmt:
		return s.Init != nil && s.Else == nil && terminates(s.Body) && len(Calls(s.Cond)) == 0
	case *ast.ReturnStmt:
		return true
	}
	return false
}

// readEdits turn the reads of the object's name and namespace in the
// kept code into reads of the apply configuration the variable now holds
// (set by its constructor: never nil); any other read of the variable
// there declines the fix.
func (in *literalIntent) readEdits(p *Pass, kept []ast.Node) ([]analysis.TextEdit, string) {
	if in.variable == nil || in.keep {
		return nil, ""
	}
	setNS := in.setsMeta("Namespace")
	covered := map[*ast.Ident]bool{}
	var edits []analysis.TextEdit
	var bad string
	for _, k := range kept {
		ast.Inspect(k, func(n ast.Node) bool {
			if bad != "" {
				return false
			}
			var sel *ast.SelectorExpr
			call := false
			switch n := n.(type) {
			case *ast.CallExpr:
				if s, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok && len(n.Args) == 0 && (s.Sel.Name == "GetName" || s.Sel.Name == "GetNamespace") {
					sel, call = s, true
				}
			case *ast.SelectorExpr:
				sel = n
			}
			if sel == nil {
				return true
			}
			id, ok := ast.Unparen(sel.X).(*ast.Ident)
			if !ok || p.TypesInfo.Uses[id] != in.variable || covered[id] {
				return true
			}
			field := sel.Sel.Name
			if call {
				field = field[len("Get"):]
			}
			if field != "Name" && !(field == "Namespace" && setNS) {
				bad = fmt.Sprintf("the code kept after the write reads %s.%s, which the apply configuration does not carry as the object did: read it from the value the literal sets (docs/vet.md, \"Reads of the object\")", id.Name, sel.Sel.Name)
				return false
			}
			covered[id] = true
			end := sel.End()
			if call {
				end = n.End()
			}
			edits = append(edits, analysis.TextEdit{Pos: n.Pos(), End: end, NewText: []byte("*" + id.Name + "." + field)})
			return false
		})
	}
	if bad != "" {
		return nil, bad
	}
	for _, k := range kept {
		ast.Inspect(k, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && p.TypesInfo.Uses[id] == in.variable && !covered[id] && bad == "" {
				bad = fmt.Sprintf("the code kept after the write uses %s itself, which becomes an apply configuration: rewrite by hand (docs/vet.md, \"Reads of the object\")", id.Name)
			}
			return bad == ""
		})
	}
	if bad != "" {
		return nil, bad
	}
	return edits, ""
}

// setsMeta reports whether the literal (every element, for a range) sets
// metadata.<key>.
func (in *literalIntent) setsMeta(key string) bool {
	lits := in.elems
	if lits == nil {
		lits = []*ast.CompositeLit{in.lit}
	}
	for _, lit := range lits {
		if !metaKey(lit, key) {
			return false
		}
	}
	return len(lits) > 0
}

func metaKey(lit *ast.CompositeLit, key string) bool {
	if lit == nil {
		return false
	}
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "ObjectMeta" {
			meta, ok := ast.Unparen(kv.Value).(*ast.CompositeLit)
			if !ok {
				return false
			}
			for _, m := range meta.Elts {
				if mkv, ok := m.(*ast.KeyValueExpr); ok {
					if mk, ok := mkv.Key.(*ast.Ident); ok && mk.Name == key {
						return true
					}
				}
			}
		}
	}
	return false
}

// WritesSameObject reports a write call whose arguments include the
// object the create created.
func (p *Pass) WritesSameObject(c, create *ast.CallExpr) bool {
	if !p.IsWriteCall(c) || len(create.Args) < 2 {
		return false
	}
	v := p.ObjectVar(create.Args[len(create.Args)-1])
	if v == nil {
		return false
	}
	for _, a := range c.Args {
		if p.ObjectVar(a) == v {
			return true
		}
	}
	return false
}

// AlreadyExistsCheck finds apierrors.IsAlreadyExists(x) in a condition.
func (p *Pass) AlreadyExistsCheck(cond ast.Expr) (*ast.CallExpr, bool) {
	var found *ast.CallExpr
	negated := false
	var walk func(e ast.Expr, neg bool)
	walk = func(e ast.Expr, neg bool) {
		switch e := ast.Unparen(e).(type) {
		case *ast.UnaryExpr:
			if e.Op == token.NOT {
				walk(e.X, !neg)
			}
		case *ast.BinaryExpr:
			walk(e.X, neg)
			walk(e.Y, neg)
		case *ast.CallExpr:
			if found == nil && p.IsPkgFunc(e, APIErrorsPkg, "IsAlreadyExists") && len(e.Args) == 1 {
				found, negated = e, neg
			}
		}
	}
	walk(cond, false)
	return found, negated
}
