package generator_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ssagen/ssagen/generator"
	"github.com/ssagen/ssagen/generator/output"
)

// TestEnsureKindsAlone: --ensure-kinds with no input package is a whole
// command. For kinds whose apply configurations client-go ships, it
// writes their helpers and the shared schema only — no builders nobody
// asked for — and the tree builds.
func TestEnsureKindsAlone(t *testing.T) {
	out, err := os.MkdirTemp(".", "zzensurekinds")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	cfg := generator.Config{
		EnsureKinds: []string{"k8s.io/api/rbac/v1.Role", "k8s.io/api/rbac/v1.RoleBinding", "k8s.io/api/core/v1.ServiceAccount"},
		OutputDir:   out,
		OutputPkg:   module + "/generator/" + filepath.Base(out),
	}
	trees, err := generator.Render(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, tr := range trees {
		for _, f := range tr.Files {
			rel, _ := filepath.Rel(tr.Dir, filepath.Join(tr.Dir, f.Path))
			files = append(files, filepath.ToSlash(rel))
			if strings.HasSuffix(f.Path, "ensure.go") && !strings.Contains(string(f.Content), `"k8s.io/client-go/applyconfigurations/`) {
				t.Errorf("%s does not use client-go's apply configurations:\n%s", f.Path, f.Content)
			}
		}
	}
	sort.Strings(files)
	want := []string{"core/v1/ensure/ensure.go", "internal/convert.go", "internal/internal.go", "rbac/v1/ensure/ensure.go", "utils.go"}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("wrote %v, want %v", files, want)
	}
	if err := generator.Generate(cfg, output.Disk{Dir: generator.OutputDir(cfg)}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "vet", "./"+filepath.Base(out)+"/...")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the helpers do not build: %v\n%s", err, b)
	}
}

// TestSkipsForeignPackages: a pattern that also matches packages with no
// kind and no +groupName (protobuf messages, helpers) skips them, as
// controller-gen does, and says so once; a package of shared types that
// a kind imports is still generated.
func TestSkipsForeignPackages(t *testing.T) {
	files, log := renderedPaths(t, "./testdata/foreign/...", "foreign-out")
	joined := strings.Join(files, " ")
	if strings.Contains(joined, "pb/") || !strings.Contains(joined, "shared/size.go") || !strings.Contains(joined, "v1/widget.go") {
		t.Errorf("wrote %v: want widget and size, nothing of pb", files)
	}
	if got := log; strings.Count(got, "skipped") != 1 || !strings.Contains(got, "skipped 1 package(s)") || !strings.Contains(got, "testdata/foreign/pb") {
		t.Errorf("log: %q", got)
	}
}

// TestEnsureKindWithoutApplyConfigurations: --ensure-kinds alone for a
// kind whose module ships no apply configurations generates the builders
// of that kind and of what it reaches — not of the package's other kinds
// — and its helpers. In the controller-gen layout (no --output-dir) the
// run has no tree to put them in: the error says every way out.
func TestEnsureKindWithoutApplyConfigurations(t *testing.T) {
	pkg := module + "/generator/testdata/oracle/clusterscope"
	var log strings.Builder
	cfg := generator.Config{EnsureKinds: []string{pkg + ".Gizmo"}, OutputDir: "testdata/gizmo", OutputPkg: module + "/generator/testdata/gizmo", Log: &log}
	trees, err := generator.Render(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, tr := range trees {
		for _, f := range tr.Files {
			files = append(files, f.Path)
		}
	}
	want := []string{"internal/convert.go", "internal/internal.go", "oracle/clusterscope/ensure/ensure.go", "oracle/clusterscope/gizmo.go", "oracle/clusterscope/spec.go", "oracle/clusterscope/zz_generated.convert.go", "utils.go"}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("wrote %v, want %v (Gizmo and what it reaches, not Thing or Status)", files, want)
	}
	if !strings.Contains(log.String(), "generating builders of what the run reaches in 1 package(s) whose modules ship no apply configurations this module can build: "+pkg) {
		t.Errorf("-v does not say what was generated and why:\n%s", log.String())
	}

	// The layout of a Kubebuilder project generated with --ssa: an API
	// package marked +kubebuilder:ac:generate=true, no --output-dir.
	_, err = generator.Render(generator.Config{Packages: []string{"./testdata/layout/v1"}, EnsureKinds: []string{pkg + ".Gizmo"}})
	if err == nil {
		t.Fatal("no error in the controller-gen layout")
	}
	for _, want := range []string{"has no apply configuration", "pass --output-dir, and ssagen generates the builders", "--external-applyconfigurations=" + pkg + ":", "require a version of its module that ships them"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestFollowsSharedTypes: a package of shared types of the same module
// that the patterns leave out (testdata/foreign/shared, which the API
// imports) is followed and generated in the same tree, as controller-gen
// follows it, instead of "has no apply configuration".
func TestFollowsSharedTypes(t *testing.T) {
	files, log := renderedPaths(t, "./testdata/foreign/api/v1", "sharedout")
	joined := strings.Join(files, " ")
	if !strings.Contains(joined, "shared/size.go") || !strings.Contains(joined, "v1/widget.go") {
		t.Errorf("wrote %v: want the widget and the shared size", files)
	}
	if !strings.Contains(log, "followed 1 package(s) of shared types the input uses: "+module+"/generator/testdata/foreign/shared") {
		t.Errorf("log: %q", log)
	}
}

// TestMetadataSettersKept runs the metasetters golden's own test: on a
// kind with root fields named Labels and Finalizers, WithLabels and
// WithFinalizers set metadata's, and WithLabelsField2 /
// WithFinalizersField the root fields.
func TestMetadataSettersKept(t *testing.T) {
	out, err := exec.Command("go", "test", "-count=1", "./testdata/metasetters/want/...").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestUnsignedShapes runs the unsigned golden's own test: every unsigned
// shape is decoded, converted by the generated type converter and
// extracted by the generated Extract without a panic — uint64, which
// structured-merge-diff's reflection cannot read, through the object's
// JSON — and a value past int64 is an error naming its field.
func TestUnsignedShapes(t *testing.T) {
	out, err := exec.Command("go", "test", "-count=1", "./testdata/unsigned/want/...").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// renderedPaths renders pattern into testdata/<out> in memory and returns
// the paths of the files and what was logged.
func renderedPaths(t *testing.T, pattern, out string) ([]string, string) {
	t.Helper()
	var log strings.Builder
	trees, err := generator.Render(generator.Config{
		Packages:  []string{pattern},
		OutputDir: "testdata/" + out,
		OutputPkg: module + "/generator/testdata/" + out,
		Log:       &log,
	})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, tr := range trees {
		for _, f := range tr.Files {
			files = append(files, f.Path)
		}
	}
	return files, log.String()
}
