package generator_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ssagen/ssagen/generator"
	"github.com/ssagen/ssagen/generator/load"
)

// renderWith renders cfg with the first load forced to l (LoaderExport:
// go/packages over the build cache's export data; LoaderSource: every
// dependency type-checked from source, what a cold build cache gets).
func renderWith(t *testing.T, l load.Loader, cfg generator.Config) ([]generator.Tree, error) {
	t.Helper()
	return generator.Render(generator.WithLoader(cfg, l))
}

// sameRender checks the two loaders give byte-identical trees, or the
// same error, and so does the source loader with the dependencies' types
// cached in cache (a run that writes the entry, then one that reads it).
func sameRender(t *testing.T, cache string, cfg generator.Config) {
	t.Helper()
	t.Setenv("SSAGEN_CACHE", "off")
	a, errA := renderWith(t, load.LoaderExport, cfg)
	b, errB := renderWith(t, load.LoaderSource, cfg)
	sameTrees(t, "export data", "source", a, b, errA, errB)
	t.Setenv("SSAGEN_CACHE", cache)
	for _, run := range []string{"source, writing the cache", "source, reading the cache"} {
		c, errC := renderWith(t, load.LoaderSource, cfg)
		sameTrees(t, "source", run, b, c, errB, errC)
	}
}

// sameTrees checks two renders (what and with name them) are the same.
func sameTrees(t *testing.T, what, with string, a, b []generator.Tree, errA, errB error) {
	t.Helper()
	if (errA == nil) != (errB == nil) || (errA != nil && errA.Error() != errB.Error()) {
		t.Fatalf("errors differ:\n%s: %v\n%s: %v", what, errA, with, errB)
	}
	if len(a) != len(b) {
		t.Fatalf("%d trees from %s, %d from %s", len(a), what, len(b), with)
	}
	files := 0
	for i := range a {
		if a[i].Dir != b[i].Dir || len(a[i].Files) != len(b[i].Files) {
			t.Fatalf("tree %d: %s (%d files) from %s, %s (%d files) from %s", i, a[i].Dir, len(a[i].Files), what, b[i].Dir, len(b[i].Files), with)
		}
		for j := range a[i].Files {
			fa, fb := a[i].Files[j], b[i].Files[j]
			if fa.Path != fb.Path || !bytes.Equal(fa.Content, fb.Content) {
				t.Errorf("%s differs between %s and %s", fa.Path, what, with)
			}
			files++
		}
	}
	if errA == nil && files == 0 {
		t.Fatal("nothing rendered")
	}
}

// TestSourceLoaderSameOutput: the loader of every run, from source, gives
// the same bytes as the export-data loader, with and without ssagen's
// cache of the dependencies' types — on every golden scenario, the
// example with its --ensure-kinds, all of k8s.io/api in
// applyconfiguration-gen's mode — and the same errors, positions
// included, on every bad input.
func TestSourceLoaderSameOutput(t *testing.T) {
	cache := t.TempDir()
	defer func() {
		if ents, _ := os.ReadDir(cache); len(ents) == 0 {
			t.Error("no run wrote the dependencies' cache")
		}
	}()
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			cfg := scenarioConfig(s.name, s.packages, s.external)
			cfg.Ensure = s.ensure
			sameRender(t, cache, cfg)
		})
	}
	t.Run("example", func(t *testing.T) {
		sameRender(t, cache, generator.Config{Dir: "..", Packages: []string{"./examples/api/..."}, OutputDir: t.TempDir(), OutputPkg: "example.com/out", Ensure: true,
			EnsureKinds: []string{"k8s.io/api/rbac/v1.Role", "k8s.io/api/core/v1.Pod", "k8s.io/api/apps/v1.Deployment"}})
	})
	t.Run("k8s.io/api", func(t *testing.T) {
		if testing.Short() {
			t.Skip("all of k8s.io/api, twice")
		}
		sameRender(t, cache, generator.Config{Packages: []string{"k8s.io/api/..."}, OutputDir: t.TempDir(), OutputPkg: "example.com/out",
			Compat: "applyconfiguration-gen", External: "k8s.io/apimachinery/pkg/apis/meta/v1:k8s.io/client-go/applyconfigurations/meta/v1"})
	})
	bad, err := filepath.Glob("testdata/bad/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range bad {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		t.Run(dir, func(t *testing.T) {
			sameRender(t, cache, generator.Config{Packages: []string{"./" + dir + "/..."}, OutputDir: t.TempDir(), OutputPkg: "example.com/out"})
		})
	}
}
