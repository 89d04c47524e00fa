package vettest

import (
	"bytes"
	"flag"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"sort"
	"strconv"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/ast/astutil"
)

// update rewrites the fixtures' .golden files from the fixes the
// analyzer suggests (go test ./vet/... -update); review them by eye
// before committing.
var update = flag.Bool("update", false, "rewrite the fixtures' .golden files from the suggested fixes")

// writeGoldens applies every suggested fix of results to its file and
// writes the outcome, gofmt'd, to the file's .golden.
func writeGoldens(t *testing.T, results []*analysistest.Result) {
	t.Helper()
	type edit struct {
		start, end int
		text       []byte
	}
	byFile := map[string][]edit{}
	for _, r := range results {
		if r.Pass == nil {
			continue // the analysis failed; Run reported why
		}
		fset := r.Pass.Fset
		for _, d := range r.Diagnostics {
			for _, sf := range d.SuggestedFixes {
				for _, e := range sf.TextEdits {
					f := fset.File(e.Pos)
					end := e.End
					if !end.IsValid() {
						end = e.Pos
					}
					byFile[f.Name()] = append(byFile[f.Name()], edit{f.Offset(e.Pos), f.Offset(end), e.NewText})
				}
			}
		}
	}
	for name, edits := range byFile {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
		var out bytes.Buffer
		at := 0
		for i, e := range edits {
			if i > 0 && e.start == edits[i-1].start && e.end == edits[i-1].end && bytes.Equal(e.text, edits[i-1].text) {
				continue // the same edit in two fixes (a seam's, which all its sites carry)
			}
			if e.start < at {
				if e.start == e.end && len(e.text) == 0 {
					continue
				}
				t.Fatalf("%s: overlapping edits at offset %d", name, e.start)
			}
			out.Write(src[at:e.start])
			out.Write(e.text)
			at = e.end
		}
		out.Write(src[at:])
		// As analysistest reads the fixed file: without the imports the
		// fixes left unused (each fix alone sees another site's use).
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, out.Bytes(), parser.ParseComments)
		if err != nil {
			t.Fatalf("%s: the fixed file does not parse: %v", name, err)
		}
		for _, imp := range slices.Clone(f.Imports) {
			if path, _ := strconv.Unquote(imp.Path.Value); (imp.Name == nil || imp.Name.Name != "_") && !astutil.UsesImport(f, path) {
				astutil.DeleteNamedImport(fset, f, imp.Name.String(), path)
			}
		}
		var formatted bytes.Buffer
		if err := format.Node(&formatted, fset, f); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name+".golden", formatted.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
