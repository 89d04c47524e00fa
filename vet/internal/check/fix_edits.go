package check

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"go/types"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/internal/contract"
)

// NewFixer starts the edits of a suggested fix in file, a file of the
// pass.
func (p *Pass) NewFixer(file *ast.File) *Fixer {
	return &Fixer{p: p, file: file, imports: map[string]string{}, added: map[string]string{}}
}

// Fixer builds the text edits of one suggested fix.
type Fixer struct {
	p       *Pass
	file    *ast.File
	imports map[string]string // path → name used in the new text
	added   map[string]string // path → name of imports to add
}

func (f *Fixer) Node(n ast.Node) string {
	var b bytes.Buffer
	printer.Fprint(&b, f.p.Fset, n)
	return b.String()
}

// Qualify returns the name to refer to pkg by in the file, adding an
// import when the file has none: the existing name; the contract's alias
// for the runtime and for helper packages; for others the path's last two
// elements and suffix (corev1ac).
func (f *Fixer) Qualify(pkg *types.Package, suffix string) string {
	if name, ok := f.imports[pkg.Path()]; ok {
		return name
	}
	for _, imp := range f.file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if path != pkg.Path() {
			continue
		}
		name := pkg.Name()
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "_" || name == "." {
			continue // not a name to refer to it by
		}
		f.imports[pkg.Path()] = name
		return name
	}
	base := contract.ImportName(pkg.Path(), pkg.Name(), suffix)
	name := base
	for i := 2; f.taken(name); i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	f.imports[pkg.Path()] = name
	f.added[pkg.Path()] = name
	return name
}

func (f *Fixer) taken(name string) bool {
	for _, n := range f.imports {
		if n == name {
			return true
		}
	}
	if f.p.Pkg.Scope().Lookup(name) != nil {
		return true
	}
	if scope := f.p.TypesInfo.Scopes[f.file]; scope != nil && scope.Lookup(name) != nil {
		return true
	}
	return false
}

// ClientArg is the text of the client to hand the helper: the receiver of
// the Create when it is a client, or its embedded client field (the
// kubebuilder reconciler embeds client.Client next to a Scheme field that
// hides the client's Scheme method).
func (f *Fixer) ClientArg(x ast.Expr, param types.Type) (string, bool) {
	t := f.p.TypesInfo.TypeOf(x)
	if t == nil {
		return "", false
	}
	param = f.p.localOr(param)
	if types.AssignableTo(t, param) {
		return f.Node(x), true
	}
	if s, ok := Deref(t).Underlying().(*types.Struct); ok {
		for i := 0; i < s.NumFields(); i++ {
			if fl := s.Field(i); fl.Embedded() && types.AssignableTo(fl.Type(), param) {
				return f.Node(x) + "." + fl.Name(), true
			}
		}
	}
	return "", false
}

// Fix is the suggested fix of edits, which remove the nodes removed and
// write newText, with the import edits they need.
func (f *Fixer) Fix(message string, edits []analysis.TextEdit, removed []ast.Node, newText string) ([]analysis.SuggestedFix, string) {
	return []analysis.SuggestedFix{{Message: message, TextEdits: append(edits, f.ImportEdits(removed, newText)...)}}, ""
}

// ImportEdits adds the imports the new text needs and deletes those only
// the replaced code used.
func (f *Fixer) ImportEdits(removed []ast.Node, newText string) []analysis.TextEdit {
	var edits []analysis.TextEdit
	paths := make([]string, 0, len(f.added))
	for path := range f.added {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	var add strings.Builder
	for _, path := range paths {
		if name := f.added[path]; name == path {
			fmt.Fprintf(&add, "\t%q\n", path) // the standard library's errors
		} else {
			fmt.Fprintf(&add, "\t%s %q\n", name, path)
		}
	}
	if add.Len() > 0 {
		var decl *ast.GenDecl
		for _, d := range f.file.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT && g.Lparen.IsValid() {
				decl = g
				break
			}
		}
		if decl != nil {
			edits = append(edits, analysis.TextEdit{Pos: decl.Rparen, End: decl.Rparen, NewText: []byte(add.String())})
		} else {
			edits = append(edits, analysis.TextEdit{Pos: f.file.Name.End(), End: f.file.Name.End(), NewText: []byte("\n\nimport (\n" + add.String() + ")")})
		}
	}
	// Imports whose every use is in replaced code go.
	uses := map[*types.PkgName]int{}
	for id, o := range f.p.TypesInfo.Uses {
		pn, ok := o.(*types.PkgName)
		if !ok || f.p.Fset.File(id.Pos()) != f.p.Fset.File(f.file.Pos()) || InAny(id, removed) {
			continue
		}
		uses[pn]++
	}
	for _, imp := range f.file.Imports {
		pn, _ := f.p.TypesInfo.Implicits[imp].(*types.PkgName)
		if imp.Name != nil {
			pn, _ = f.p.TypesInfo.Defs[imp.Name].(*types.PkgName)
		}
		if pn == nil || uses[pn] > 0 || imp.Name != nil && (imp.Name.Name == "_" || imp.Name.Name == ".") {
			continue
		}
		if strings.Contains(newText, pn.Name()+".") {
			continue
		}
		edits = append(edits, DeleteLine(f.p.Fset, imp))
	}
	return edits
}

// DeleteLine removes n with the indentation before it and the newline
// after it.
func DeleteLine(fset *token.FileSet, n ast.Node) analysis.TextEdit {
	tf := fset.File(n.Pos())
	start := tf.LineStart(tf.Line(n.Pos()))
	end := n.End()
	if line := tf.Line(n.End()); line < tf.LineCount() {
		end = tf.LineStart(line + 1)
	}
	return analysis.TextEdit{Pos: start, End: end}
}

func ContainsNode(outer, inner ast.Node) bool {
	return outer.Pos() <= inner.Pos() && inner.End() <= outer.End()
}

func InAny(n ast.Node, nodes []ast.Node) bool {
	for _, o := range nodes {
		if ContainsNode(o, n) {
			return true
		}
	}
	return false
}

// EnclosingBlock returns the block whose statement list holds s.
func EnclosingBlock(stack []ast.Node, s ast.Stmt) (*ast.BlockStmt, int) {
	for i := len(stack) - 1; i >= 0; i-- {
		if b, ok := stack[i].(*ast.BlockStmt); ok {
			for j, st := range b.List {
				if st == s {
					return b, j
				}
			}
		}
	}
	return nil, -1
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

// ReadSource is a file of the pass as it was loaded.
func (p *Pass) ReadSource(name string) ([]byte, error) {
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
