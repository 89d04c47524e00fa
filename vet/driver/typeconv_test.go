package driver

import (
	"go/format"
	"sort"
	"strings"
	"testing"
)

// TestWithConverters: each fake client builder chain that ends in Build()
// gets the generated tree's type converter first, then client-go's and the
// deduced one, over the scheme it is built with (client-go's when it names
// none), and the imports they need, in a chain or a variable it is kept in
// for more; a builder that escapes, is never built, already sets converters
// or an object tracker, or takes its scheme from a call, is left alone.
func TestWithConverters(t *testing.T) {
	const head = "package x\n\nimport (\n\t\"testing\"\n\n\t\"sigs.k8s.io/controller-runtime/pkg/client/fake\"\n)\n\n"
	const conv = ".WithTypeConverters(ssa.NewTypeConverter(%s), clientgoapplyconfigurations.NewTypeConverter(%s), managedfields.NewDeducedTypeConverter())"
	for _, c := range []struct {
		name, body string
		want       string // the chain after the edit, "" for no edit
	}{
		{"scheme", "c := fake.NewClientBuilder().WithScheme(testScheme).WithObjects(o).Build()",
			"fake.NewClientBuilder().WithScheme(testScheme)" + strings.ReplaceAll(conv, "%s", "testScheme") + ".WithObjects(o).Build()"},
		{"selector scheme", "c := fake.NewClientBuilder().WithScheme(s.scheme).Build()",
			"fake.NewClientBuilder().WithScheme(s.scheme)" + strings.ReplaceAll(conv, "%s", "s.scheme") + ".Build()"},
		{"no scheme", "c := fake.NewClientBuilder().Build()",
			"fake.NewClientBuilder()" + strings.ReplaceAll(conv, "%s", "clientgoscheme.Scheme") + ".Build()"},
		{"kept in a variable", "b := fake.NewClientBuilder().WithScheme(s).WithObjects(o)\nc := b.Build()",
			"fake.NewClientBuilder().WithScheme(s)" + strings.ReplaceAll(conv, "%s", "s") + ".WithObjects(o)"},
		{"kept, then more", "b := fake.NewClientBuilder().WithScheme(s)\nc := b.WithObjects(o).Build()",
			"fake.NewClientBuilder().WithScheme(s)" + strings.ReplaceAll(conv, "%s", "s")},
		{"kept, then a tracker", "b := fake.NewClientBuilder().WithScheme(s)\nc := b.WithObjectTracker(tr).Build()", ""},
		{"kept, then the scheme", "b := fake.NewClientBuilder()\nc := b.WithScheme(s).Build()", ""},
		{"escapes", "b := fake.NewClientBuilder().WithScheme(s)\nc := build(b)", ""},
		{"never built", "b := fake.NewClientBuilder().WithScheme(s)\nc := b", ""},
		{"converters set", "c := fake.NewClientBuilder().WithTypeConverters(tc).Build()", ""},
		{"tracker", "c := fake.NewClientBuilder().WithObjectTracker(tr).Build()", ""},
		{"scheme from a call", "c := fake.NewClientBuilder().WithScheme(newScheme()).Build()", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := head + "func TestX(t *testing.T) {\n" + c.body + "\n_ = c\n}\n"
			edits := withConverters("x_test.go", []byte(src), "example.com/op/internal/ssa")
			if c.want == "" {
				if len(edits) != 0 {
					t.Fatalf("edits %q, want none", edits[0].text)
				}
				return
			}
			sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
			out := src
			for _, e := range edits {
				out = out[:e.start] + string(e.text) + out[e.end:]
			}
			b, err := format.Source([]byte(out))
			if err != nil {
				t.Fatalf("the edited test does not parse: %v\n%s", err, out)
			}
			out = string(b)
			if !strings.Contains(out, c.want) {
				t.Errorf("edited test lacks\n%s\n in:\n%s", c.want, out)
			}
			for _, imp := range []string{`"example.com/op/internal/ssa"`, `"k8s.io/client-go/applyconfigurations"`, `"k8s.io/apimachinery/pkg/util/managedfields"`} {
				if !strings.Contains(out, imp) {
					t.Errorf("edited test does not import %s:\n%s", imp, out)
				}
			}
		})
	}
}
