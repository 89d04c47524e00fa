package generator_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ssagen/ssagen/generator"
	"github.com/ssagen/ssagen/generator/output"
)

var update = flag.Bool("update", false, "rewrite the goldens in testdata/<scenario>/want")

const module = "github.com/ssagen/ssagen"

// scenarios are golden tests: testdata/<name>/input is generated into
// testdata/<name>/want, which is compiled and, for some, exercised.
var scenarios = []struct {
	name     string
	packages []string
	external string
	ensure   bool
}{
	{name: "multiversion", packages: []string{"./testdata/multiversion/input/v1", "./testdata/multiversion/input/v2"}},
	{name: "genclient", packages: []string{"./testdata/genclient/input/core"}},
	{name: "legal", packages: []string{"./testdata/legal/input"}},
	{name: "shared", packages: []string{"./testdata/shared/input/..."}},
	{name: "names", packages: []string{"./testdata/names/input"}, ensure: true},
	{name: "metasetters", packages: []string{"./testdata/metasetters/input"}},
	{name: "unsigned", packages: []string{"./testdata/unsigned/input"}},
	{name: "unreachable", packages: []string{"./testdata/unreachable/input/api/v1"}},
	{name: "multigroup", packages: []string{"./testdata/multigroup/input/..."}, ensure: true},
	{name: "metatypes", packages: []string{"./testdata/metatypes/input"}, ensure: true},
	{name: "external", packages: []string{"./testdata/external/input"},
		external: module + "/generator/testdata/external/thirdparty:" + module + "/generator/testdata/external/thirdpartyac"},
}

func scenarioConfig(name string, packages []string, external string) generator.Config {
	return generator.Config{
		Packages:  packages,
		OutputDir: filepath.Join("testdata", name, "want"),
		OutputPkg: module + "/generator/testdata/" + name + "/want",
		External:  external,
	}
}

func TestGoldens(t *testing.T) {
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			cfg := scenarioConfig(s.name, s.packages, s.external)
			cfg.Ensure = s.ensure
			if *update {
				if err := generator.Generate(cfg, output.Disk{Dir: generator.OutputDir(cfg)}); err != nil {
					t.Fatal(err)
				}
			}
			var diff bytes.Buffer
			err := generator.Generate(cfg, output.Verify{Dir: cfg.OutputDir, Out: &diff})
			if errors.Is(err, output.ErrStale) {
				t.Fatalf("golden is stale (go test ./generator -update):\n%s", diff.String())
			}
			if err != nil {
				t.Fatal(err)
			}
			// Every golden compiles.
			out, err := exec.Command("go", "vet", "./"+filepath.ToSlash(cfg.OutputDir)+"/...").CombinedOutput()
			if err != nil {
				t.Fatalf("golden does not compile:\n%s", out)
			}
		})
	}
}

// TestExternalWithoutTheFlag: without the mapping, testdata/external/
// thirdparty — a package of this module, which the golden maps as if it
// were another module's — is followed as a package of shared types and
// generated in the tree, as controller-gen follows it.
func TestExternalWithoutTheFlag(t *testing.T) {
	cfg := scenarioConfig("external", []string{"./testdata/external/input"}, "")
	var mem output.Memory
	if err := generator.Generate(cfg, &mem); err != nil {
		t.Fatal(err)
	}
	found := false
	for path := range mem.Files {
		if strings.HasSuffix(path, "thirdparty/endpoint.go") {
			found = true
		}
	}
	if !found {
		t.Errorf("the shared package was not generated: %v", mem.Files)
	}
}

// TestDeterministic renders the example twice and in a fresh process
// order; the bytes must be identical.
func TestDeterministic(t *testing.T) {
	cfg := scenarioConfig("genclient", scenarios[1].packages, "")
	var a, b output.Memory
	if err := generator.Generate(cfg, &a); err != nil {
		t.Fatal(err)
	}
	if err := generator.Generate(cfg, &b); err != nil {
		t.Fatal(err)
	}
	if len(a.Files) == 0 || len(a.Files) != len(b.Files) {
		t.Fatalf("file counts %d and %d", len(a.Files), len(b.Files))
	}
	for p, c := range a.Files {
		if !bytes.Equal(c, b.Files[p]) {
			t.Errorf("%s differs between runs", p)
		}
		for _, bad := range []string{"/root/", "/home/", "/tmp/", "2026", time.Now().Format("2006")} {
			if bytes.Contains(c, []byte(bad)) {
				t.Errorf("%s contains %q: output must not depend on the machine or the date", p, bad)
			}
		}
	}
}

// TestSecondRunTouchesNothing writes a tree, then checks a second run with
// unchanged input writes no file, and that stale ssagen files are deleted
// while files without ssagen's header are left alone.
func TestSecondRunTouchesNothing(t *testing.T) {
	dir := t.TempDir()
	cfg := scenarioConfig("genclient", scenarios[1].packages, "")
	cfg.OutputDir, cfg.OutputPkg = dir, "example.com/out"
	var log bytes.Buffer
	if err := generator.Generate(cfg, output.Disk{Dir: dir, Log: &log}); err != nil {
		t.Fatal(err)
	}
	first := strings.Count(log.String(), "wrote ")
	if first == 0 {
		t.Fatal("first run wrote nothing")
	}
	stale := filepath.Join(dir, "input", "core", "stale.go")
	mine := filepath.Join(dir, "input", "core", "handwritten.go")
	os.WriteFile(stale, []byte("// Code generated by ssagen. DO NOT EDIT.\n\npackage core\n"), 0o644)
	os.WriteFile(mine, []byte("package core\n"), 0o644)
	mtimes := modTimes(t, dir)
	log.Reset()
	if err := generator.Generate(cfg, output.Disk{Dir: dir, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(log.String()); got != "deleted "+stale {
		t.Fatalf("second run did %q, want only the stale file deleted", got)
	}
	for p, m := range modTimes(t, dir) {
		if !m.Equal(mtimes[p]) {
			t.Errorf("%s was rewritten", p)
		}
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a file without ssagen's header was deleted: %v", err)
	}
}

func modTimes(t *testing.T, dir string) map[string]time.Time {
	out := map[string]time.Time{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			out[p] = info.ModTime()
		}
		return nil
	})
	return out
}

// TestBadInput is the catalogue of input errors: each is reported with
// file:line:col, what is wrong and a fix, and nothing is written.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name     string
		packages []string
		outDir   string // default: a temp dir
		want     []string
	}{
		{"compile", []string{"./testdata/bad/compile"}, "", []string{"testdata/bad/compile/types.go:7:4: undefined: Undefined", "fix: make the package compile"}},
		{"noroot", []string{"./testdata/bad/noroot"}, "", []string{"testdata/bad/noroot/types.go:2:1: package", "has types but no root kind, and neither has any other input package: looked for +kubebuilder:object:root and +genclient"}},
		{"unsupported", []string{"./testdata/bad/unsupported"}, "", []string{
			"types.go:7:2: Spec.C has type chan int, which cannot be serialised",
			"types.go:8:2: Spec.F has type func()",
			"types.go:9:2: Spec.X has type complex128",
			"types.go:10:2: Spec.I has type interface{}",
			"fix: use a type that has a JSON form"}},
		{"listmapkey_missing", []string{"./testdata/bad/listmapkey_missing"}, "", []string{`types.go:9:2: +listMapKey=nme on Spec.Items: Item has no field with JSON name "nme"`, "fix: name one of the JSON fields of Item: name"}},
		{"listmapkey_optional", []string{"./testdata/bad/listmapkey_optional"}, "", []string{"+listMapKey=name on Spec.Items names optional field Item.Name"}},
		{"listmap_scalars", []string{"./testdata/bad/listmap_scalars"}, "", []string{"types.go:9:2: +listType=map on Spec.Names, whose items are not structs", "fix: use +listType=set"}},
		{"contradicting", []string{"./testdata/bad/contradicting"}, "", []string{"Spec.Items has +listMapKey but +listType=set", "+mapType=atomic on Spec.List, which is not a map"}},
		{"marker_syntax", []string{"./testdata/bad/marker_syntax"}, "", []string{"types.go:7:2: invalid marker +kubebuilder:validation:MaxLength", "fix: fix the marker's syntax"}},
		{"generic", []string{"./testdata/bad/generic"}, "", []string{"types.go:8:2: Spec.Box uses generic type", "fix: use a concrete type"}},
		{"nogroup", []string{"./testdata/bad/nogroup"}, "", []string{"testdata/bad/nogroup/types.go:1:1: package", "has no +groupName marker", "fix: add `// +groupName=<group>`"}},
		{"dupgv", []string{"./testdata/bad/dupgv/dup1/v1", "./testdata/bad/dupgv/dup2/v1"}, "", []string{`both declare group "bad.example.com" version "v1"`}},
		{"ambiguous", []string{"./testdata/bad/ambiguous"}, "", []string{
			`types.go:7:2: Spec: JSON field "name" is declared 2 times at the same depth, so encoding/json writes none of them: A.Name at types.go:7:2, B.Name at types.go:11:2`,
			`types.go:11:2: Spec: JSON field "name"`}},
		{"mapkeys", []string{"./testdata/bad/mapkeys"}, "", []string{"types.go:7:2: Spec.Ints is a map with int keys", "types.go:8:2: Spec.Bools is a map with bool keys", "fix: use a string"}},
		{"crdtags", []string{"./testdata/bad/crdtags"}, "", []string{
			"types.go:7:2: Spec.Untagged has no json tag", "fix: add a tag such as `json:\"untagged,omitempty\"`",
			"types.go:8:2: Spec.Nameless has a json tag without a name: controller-gen inlines such a field",
			"types.go:9:2: Spec has an unexported field",
			"types.go:10:2: Spec.Float has a float64", "--allow-dangerous-types"}},
		{"setstructs", []string{"./testdata/bad/setstructs"}, "", []string{
			"types.go:17:2: +listType=set on Spec.Set, whose items are not scalars",
			"types.go:20:2: +listMapKey=ref on Spec.ByRef names Item.Ref, which is not a scalar"}},
		{"array", []string{"./testdata/bad/array"}, "", []string{"types.go:7:2: Spec.Pair has array type [2]string", "fix: use a slice"}},
		{"anyfield", []string{"./testdata/bad/anyfield"}, "", []string{"types.go:8:2: Spec.Value has type any, which cannot be serialised", "apiextensionsv1.JSON"}},
		{"inlinecycle", []string{"./testdata/bad/inlinecycle"}, "", []string{"types.go:11:3: Link inlines itself through Link → Node → Link", "types.go:16:3: Node inlines itself through Node → Link → Node", "fix: give one of the embeds a JSON name"}},
		{"unexported", []string{"./testdata/bad/unexported"}, "", []string{"types.go:12:2: Spec has an unexported field", "fix: export the field, or tag it `json:\"-\"`"}},
		{"recursivelist", []string{"./testdata/bad/recursivelist"}, "", []string{"types.go:20:6: Nested holds Nested, which holds itself: controller-gen writes the inner Nested without a list of items", "fix: bound the nesting"}},
		{"recursivestruct", []string{"./testdata/bad/recursivestruct"}, "", []string{"types.go:8:2: Spec.Next holds Spec, which holds itself: controller-gen writes the inner Spec without a type, which the API server refuses"}},
		{"dupkind", []string{"./testdata/bad/dupkind"}, "", []string{"types.go:15:6: Thing redeclared in this block (other declaration at types.go:10:6)"}},
		{"badscope", []string{"./testdata/bad/badscope"}, "", []string{"types.go:14:6: +kubebuilder:resource:scope=Galaxy on Thing: the scope is Namespaced or Cluster"}},
		{"output_in_input", []string{"./testdata/multiversion/input/v1"}, "testdata/multiversion/input/v1/out", []string{"is inside input package"}},
		{"output_in_modcache", []string{"./testdata/multiversion/input/v1"}, filepath.Join(goEnv(t, "GOMODCACHE"), "x"), []string{"is inside the module cache"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			outDir := dir
			if c.outDir != "" {
				outDir = c.outDir
			}
			sentinel := filepath.Join(dir, "sentinel.go")
			os.WriteFile(sentinel, []byte("// Code generated by ssagen. DO NOT EDIT.\n\npackage x\n"), 0o644)
			cfg := generator.Config{Packages: c.packages, OutputDir: outDir, OutputPkg: "example.com/out"}
			err := generator.Generate(cfg, output.Disk{Dir: generator.OutputDir(cfg)})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%s", w, err)
				}
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("the output folder was touched: %v", entries)
			}
			if _, err := os.Stat(filepath.Join(generator.OutputDir(cfg))); c.outDir != "" && err == nil && c.name != "output_in_input" {
				t.Errorf("output folder %s was created", c.outDir)
			}
		})
	}
}

func goEnv(t *testing.T, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestAllErrorsAtOnce checks that one run reports the problems of every
// input package, sorted by position.
func TestAllErrorsAtOnce(t *testing.T) {
	cfg := generator.Config{Packages: []string{"./testdata/bad/unsupported", "./testdata/bad/listmap_scalars"}, OutputDir: t.TempDir(), OutputPkg: "example.com/out"}
	err := generator.Generate(cfg, &output.Memory{})
	if err == nil {
		t.Fatal("no error")
	}
	lines := []string{}
	for _, l := range strings.Split(err.Error(), "\n") {
		if !strings.HasPrefix(l, "\t") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 5 {
		t.Fatalf("want 5 errors, got %d:\n%s", len(lines), err)
	}
	wantOrder := []string{"listmap_scalars/types.go:9:2", "unsupported/types.go:7:2", "unsupported/types.go:8:2", "unsupported/types.go:9:2", "unsupported/types.go:10:2"}
	for i, w := range wantOrder {
		if !strings.Contains(lines[i], w) {
			t.Errorf("error %d is %q, want %s: errors are sorted by file, line and column", i, lines[i], w)
		}
	}
}

// TestGoldenBehaviour runs the tests that live beside the goldens (go test
// skips testdata folders on its own): Extract on a two-version tree, and
// the builders and schema of legal-but-tricky constructs.
func TestGoldenBehaviour(t *testing.T) {
	out, err := exec.Command("go", "test", "-count=1", "./testdata/multiversion/want/", "./testdata/legal/want/").CombinedOutput()
	if err != nil {
		t.Fatalf("%s", out)
	}
}

// TestOneRootDecision: a kind's scope, plural and subresources are the
// same whether its package is an input or its kind is named by
// --ensure-kinds (a 403 at run time once came from the two disagreeing).
func TestOneRootDecision(t *testing.T) {
	const pkg = module + "/generator/testdata/oracle/clusterscope"
	roots := func(cfg generator.Config) map[string]string {
		cfg.OutputDir, cfg.OutputPkg = t.TempDir(), "example.com/out"
		u, err := generator.Load(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, gv := range u.GroupVersions {
			if gv.PkgPath != pkg {
				continue
			}
			for _, k := range gv.Kinds() {
				out[k.Name.Name] = fmt.Sprintf("group=%s namespaced=%v plural=%s subresources=%v", gv.Group, k.Root.Namespaced, k.Root.Plural, k.Root.Subresources)
			}
		}
		return out
	}
	asInput := roots(generator.Config{Packages: []string{"./testdata/oracle/clusterscope"}})
	// --ensure-kinds needs the kinds' apply configurations: generate them
	// into the module first, as a third party would ship them.
	out := filepath.Join("testdata", "rootout")
	t.Cleanup(func() { os.RemoveAll(out) })
	gen := generator.Config{Packages: []string{"./testdata/oracle/clusterscope"}, OutputDir: out, OutputPkg: module + "/generator/testdata/rootout"}
	if err := generator.Generate(gen, output.Disk{Dir: generator.OutputDir(gen)}); err != nil {
		t.Fatal(err)
	}
	asEnsureKind := roots(generator.Config{Packages: []string{"./testdata/oracle/aliases"}, EnsureKinds: []string{pkg + ".Gizmo", pkg + ".Thing"},
		External: pkg + ":" + module + "/generator/testdata/rootout/oracle/clusterscope"})
	want := map[string]string{
		"Gizmo": "group=oracle.example.com namespaced=false plural=gizmoz subresources=[]",
		"Thing": "group=oracle.example.com namespaced=true plural=things subresources=[status]",
	}
	for k, w := range want {
		if asInput[k] != w || asEnsureKind[k] != w {
			t.Errorf("%s: as an input %q, through --ensure-kinds %q; want %q", k, asInput[k], asEnsureKind[k], w)
		}
	}
}

// TestBeforeDeepCopy: a kind whose DeepCopy methods controller-gen has
// not generated yet fails to load, and loads with BeforeDeepCopy (the
// Kubebuilder plugin's create api), with its apply configuration; any
// other type error still fails.
func TestBeforeDeepCopy(t *testing.T) {
	cfg := generator.Config{Packages: []string{"./testdata/nodeepcopy"}, OutputDir: t.TempDir(), OutputPkg: "example.com/out"}
	if _, err := generator.Render(cfg); err == nil || !strings.Contains(err.Error(), "missing method DeepCopyObject") {
		t.Fatalf("without BeforeDeepCopy: %v", err)
	}
	cfg.BeforeDeepCopy = true
	trees, err := generator.Render(cfg)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tr := range trees {
		for _, f := range tr.Files {
			found = found || strings.Contains(string(f.Content), "func (b *SiteApplyConfiguration) WithSpec(")
		}
	}
	if !found {
		t.Errorf("no Site apply configuration rendered")
	}
	cfg.Packages = []string{"./testdata/bad/compile"}
	if _, err := generator.Render(cfg); err == nil || !strings.Contains(err.Error(), "undefined: Undefined") {
		t.Errorf("another type error with BeforeDeepCopy: %v", err)
	}
}

// TestUnreachableTypes: rules apply to what the kinds use (issue 36). In a
// package the API imports for one string type, a struct without json tags
// that no kind uses is generated as encoding/json writes it, and one that
// breaks a builder rule is left out, with what uses it, each with a
// warning that names the rule — never an error for the whole API.
func TestUnreachableTypes(t *testing.T) {
	var warnings strings.Builder
	cfg := scenarioConfig("unreachable", []string{"./testdata/unreachable/input/api/v1"}, "")
	cfg.Warnings = &warnings
	if _, err := generator.Render(cfg); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Broken is left out of the output: no kind uses it, and +listType=map on Broken.Items without +listMapKey",
		"UsesBroken is left out of the output: no kind uses it, and it uses a type left out",
	} {
		if !strings.Contains(warnings.String(), want) {
			t.Errorf("no warning %q in:\n%s", want, warnings.String())
		}
	}
	if n := strings.Count(warnings.String(), "warning: "); n != 2 {
		t.Errorf("%d warnings, want 2:\n%s", n, warnings.String())
	}
	// The same rule on a type a kind uses is an error: bad/listmapkey_missing.
}
