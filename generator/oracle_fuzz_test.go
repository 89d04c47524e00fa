package generator_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"

	"github.com/ssagen/ssagen/internal/testenv"
)

// TestOracleRandom writes random API packages — named structs, slices and
// maps, recursion, inline embeds, pointers, merge markers right and wrong —
// and runs each through the oracle and ssagen (agree): any disagreement
// fails, with the seed and the source. `make test` checks a few graphs;
// `make fuzz` runs it for minutes (SSAGEN_ORACLE_GRAPHS, SSAGEN_ORACLE_FOR).
// It is not a native fuzz target: each graph runs two go list loads and an
// API server call, and go's fuzzing workers stall on that.
func TestOracleRandom(t *testing.T) {
	cg := os.Getenv("SSAGEN_ORACLE")
	if cg == "" {
		if os.Getenv("SSAGEN_REQUIRE_ENVTEST") != "" {
			t.Fatal("SSAGEN_ORACLE is not set")
		}
		t.Skip("SSAGEN_ORACLE is not set (make test builds controller-gen and sets it)")
	}
	graphs, _ := strconv.Atoi(os.Getenv("SSAGEN_ORACLE_GRAPHS"))
	if graphs == 0 {
		graphs = 8
	}
	budget, _ := time.ParseDuration(os.Getenv("SSAGEN_ORACLE_FOR"))
	seed, err := strconv.ParseUint(os.Getenv("SSAGEN_ORACLE_SEED"), 10, 64)
	if err != nil {
		seed = 1
	}
	cfg := testenv.Start(t)
	crds, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("testdata", "fuzzout", fmt.Sprintf("p%d", os.Getpid()))
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(dir)) })
	start, legal, n := time.Now(), 0, 0
	for ; n < graphs || (budget > 0 && time.Since(start) < budget); n++ {
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		data := make([]byte, 64)
		for i := range data {
			data[i] = byte(rng.IntN(256))
		}
		src := randomAPI(data)
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "types.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		ok := t.Run(fmt.Sprintf("seed%d-%d", seed, n), func(t *testing.T) {
			if agree(t, cg, crds, "./"+filepath.ToSlash(dir)) {
				legal++
			}
		})
		if !ok {
			t.Fatalf("graph %d of seed %d disagrees (SSAGEN_ORACLE_SEED=%d); the API:\n%s", n, seed, seed, src)
		}
	}
	t.Logf("%d random APIs (%d legal) agree with the oracle in %s: %.0f a minute", n, legal, time.Since(start).Round(time.Second), float64(n)/time.Since(start).Minutes())
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
			if depth == 0 {
				// A struct field of a named type by value could make the
				// struct contain itself, which does not compile.
				return fmt.Sprintf("*T%d", next()%n)
			}
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
			fmt.Fprintf(&b, "\t*T%d `json:\",inline\"`\n", next()%n)
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
