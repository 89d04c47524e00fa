package kubebuilder

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/ssagen/ssagen/internal/contract"
)

// TestScaffoldImports renders each template the way createAPI does, for
// every shape of kind, and reads the Go it makes: the helpers' runtime is
// imported by the name generated code and vet's fixes use
// (contract.RuntimeAlias, issue 32), every package the code qualifies a
// name with is one it imports, and the helpers it calls are named as
// internal/contract names them.
func TestScaffoldImports(t *testing.T) {
	for _, shape := range []struct {
		child                   string
		namespaced, status, foo bool
	}{
		{"configmap", true, true, true},
		{"configmap", false, false, false},
		{"deployment", false, true, true},
		{"deployment", true, false, false},
	} {
		c := children[shape.child]
		d := data{Package: "controller", Kind: "Site", LowerKind: "site", Var: varName("Site"), Plural: "sites", GroupDomain: "web.example.com",
			Namespaced: shape.namespaced, Status: shape.status, Foo: shape.foo, Deployment: c.kind == "Deployment",
			ChildKind: c.kind, ChildPlural: c.plural, ChildLower: strings.ToLower(c.kind),
			ChildNamespace: `"default"`, ChildNamespaceTest: `"default"`,
			APIImport: "example.com/op/api/v1", APIAlias: "webv1",
			ACImport: "example.com/op/pkg/applyconfiguration/web/v1", ACAlias: "webv1ac",
			EnsureImport: contract.HelperPkg("example.com/op/pkg/applyconfiguration/web/v1"), EnsureAlias: contract.HelperAlias(contract.HelperPkg("example.com/op/pkg/applyconfiguration/web/v1")),
			ChildEnsureImport: contract.HelperPkg("example.com/op/pkg/applyconfiguration/core/v1"), ChildEnsureAlias: contract.HelperAlias(contract.HelperPkg("example.com/op/pkg/applyconfiguration/core/v1")),
			ConverterImport: "example.com/op/pkg/applyconfiguration", ConverterAlias: "applyconfiguration",
			RuntimeImport: contract.RuntimePkg, RuntimeAlias: contract.RuntimeAlias,
			EnsureStatus: contract.EnsureStatus("Site"), ChildEnsure: contract.Ensure(c.kind), ChildOwnedChanges: contract.OwnedChanges(c.kind),
		}
		for _, tm := range tmpl.Templates() {
			name := tm.Name()
			var b bytes.Buffer
			if err := tm.Execute(&b, d); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			src, err := format.Source(b.Bytes())
			if err != nil {
				t.Fatalf("%s %+v: does not parse: %v\n%s", name, shape, err, b.Bytes())
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, name, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			imported := map[string]bool{}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				local := p[strings.LastIndex(p, "/")+1:]
				if imp.Name != nil {
					local = imp.Name.Name
				}
				imported[local] = true
				if p == contract.RuntimePkg && local != contract.RuntimeAlias {
					t.Errorf("%s imports %s as %s, want %s", name, p, local, contract.RuntimeAlias)
				}
			}
			// A qualifier the file does not declare is a package name: it
			// must be one the file imports. (go/v4's suite_test.go declares
			// the package's k8sClient and cfg.)
			imported["k8sClient"], imported["cfg"] = true, true
			unresolved := map[*ast.Ident]bool{}
			for _, id := range f.Unresolved {
				unresolved[id] = true
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && unresolved[id] && !imported[id.Name] {
						t.Errorf("%s %+v: %s: %s.%s: %s is not imported", name, shape, fset.Position(id.Pos()), id.Name, sel.Sel.Name, id.Name)
					}
				}
				return true
			})
			if name == "controller.go.tmpl" {
				want := []string{d.ChildEnsureAlias + "." + contract.Ensure(c.kind) + "(", d.ChildEnsureAlias + "." + contract.OwnedChanges(c.kind) + "(", contract.RuntimeAlias + ".NewClient("}
				if shape.status {
					want = append(want, d.EnsureAlias+"."+contract.EnsureStatus("Site")+"(")
				}
				for _, w := range want {
					if !bytes.Contains(src, []byte(w)) {
						t.Errorf("%s %+v calls no %s", name, shape, w)
					}
				}
			}
		}
	}
}
