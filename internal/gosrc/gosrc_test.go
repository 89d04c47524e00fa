package gosrc

import (
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
