package generator_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"

	"github.com/ssagen/ssagen/internal/testenv"
)

// FuzzOracle writes random API packages — named structs, slices and maps,
// recursion, inline embeds, pointers, merge markers right and wrong — and
// runs each through the oracle and ssagen (agree): any disagreement fails.
// `make fuzz` runs it with one worker, as each worker starts an API server.
func FuzzOracle(f *testing.F) {
	cg := os.Getenv("SSAGEN_ORACLE")
	if cg == "" {
		f.Skip("SSAGEN_ORACLE is not set (make fuzz builds controller-gen and sets it)")
	}
	cfg := testenv.Start(f)
	crds, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		f.Fatal(err)
	}
	dir := filepath.Join("testdata", "fuzzout", fmt.Sprintf("p%d", os.Getpid()))
	f.Cleanup(func() { os.RemoveAll(filepath.Dir(dir)) })
	for _, seed := range [][]byte{
		{3, 2, 6, 0, 4, 6, 1, 5, 1, 2, 7, 8},
		{1, 1, 6, 0, 9, 9, 2},
		{4, 3, 3, 3, 4, 4, 5, 6, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0},
		{2, 10, 11, 12, 13, 1, 0, 3},
		{2, 0, 1, 0, 3, 1, 2, 0}, // an embedded named slice with ",inline": found by this fuzzer
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src := randomAPI(data)
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "types.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if t.Failed() {
				t.Logf("the API:\n%s", src)
			}
		}()
		agree(t, cg, crds, "./"+filepath.ToSlash(dir))
	})
}

// randomAPI renders a package from fuzz bytes: types T0..Tn (structs, or
// named slices and maps of other types), each field with a random type and
// sometimes a merge marker, and a kind Thing whose spec is T0.
func randomAPI(data []byte) string {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	n := next()%4 + 1
	var typ func(depth int) string
	typ = func(depth int) string {
		if depth > 3 {
			return "string"
		}
		switch next() % 9 {
		case 0:
			return "string"
		case 1:
			return "int32"
		case 2:
			return "*" + typ(depth+1)
		case 3:
			return "[]" + typ(depth+1)
		case 4:
			return "map[string]" + typ(depth+1)
		case 5, 6:
			return fmt.Sprintf("T%d", next()%n)
		case 7:
			return "bool"
		default:
			return "metav1.Time"
		}
	}
	markers := []string{"", "", "", "+listType=atomic", "+listType=set", "+listType=map\n\t// +listMapKey=f0",
		"+mapType=atomic", "+structType=atomic", "+optional"}
	var b strings.Builder
	b.WriteString("// +groupName=fuzz.example.com\npackage fuzz\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\n")
	for i := 0; i < n; i++ {
		switch next() % 6 {
		case 0:
			fmt.Fprintf(&b, "type T%d []%s\n\n", i, typ(1))
			continue
		case 1:
			fmt.Fprintf(&b, "type T%d map[string]%s\n\n", i, typ(1))
			continue
		}
		fmt.Fprintf(&b, "type T%d struct {\n", i)
		if next()%4 == 0 {
			fmt.Fprintf(&b, "\tT%d `json:\",inline\"`\n", next()%n)
		}
		for j := 0; j < next()%4+1; j++ {
			if m := markers[next()%len(markers)]; m != "" {
				fmt.Fprintf(&b, "\t// %s\n", m)
			}
			fmt.Fprintf(&b, "\tF%d %s `json:\"f%d,omitempty\"`\n", j, typ(0), j)
		}
		b.WriteString("}\n\n")
	}
	b.WriteString("// +kubebuilder:object:root=true\n\n// Thing is a kind.\ntype Thing struct {\n" +
		"\tmetav1.TypeMeta   `json:\",inline\"`\n\tmetav1.ObjectMeta `json:\"metadata,omitempty\"`\n\tSpec T0 `json:\"spec,omitempty\"`\n}\n")
	return b.String()
}
