package gosrc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

func TestQualifiers(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "a.go", "package a\nimport (\"fmt\"; s \"strings\")\nvar x = s.ToUpper(fmt.Sprint(1)).y\nfunc (r T) M() { r.f() }\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	got := Qualifiers(f)
	for _, want := range []string{"fmt", "s", "r"} {
		if !got[want] {
			t.Errorf("%s not found in %v", want, got)
		}
	}
	if got["strings"] || got["y"] || len(got) != 3 {
		t.Errorf("got %v, want fmt, s and r only", got)
	}
}

func TestParents(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "a.go", "package a\nvar x = f(y).z\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	parents := Parents(f)
	var call *ast.CallExpr
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			call = c
		}
		return true
	})
	sel, ok := parents[call].(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "z" {
		t.Fatalf("the call's parent is %T, want the selector .z", parents[call])
	}
	if arg := call.Args[0]; parents[arg] != call {
		t.Errorf("the argument's parent is %T, want the call", parents[arg])
	}
	if _, ok := parents[f]; ok {
		t.Errorf("the root has a parent")
	}
}
