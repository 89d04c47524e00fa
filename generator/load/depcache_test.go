package load

import (
	"go/types"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"
)

// TestDepCacheKey: what the key of the dependencies' cache holds. A
// package of a module in the module cache is kept, under a key that
// changes when one of its files does; a replaced module's, the main
// module's, and any package importing one that is not kept, are not
// kept; SSAGEN_CACHE=off keeps nothing.
func TestDepCacheKey(t *testing.T) {
	t.Setenv("SSAGEN_CACHE", t.TempDir())
	modDir := filepath.Join(t.TempDir(), "m.example@v1.0.0")
	if err := os.MkdirAll(filepath.Join(modDir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(modDir, "a", "a.go")
	if err := os.WriteFile(file, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mod := &packages.Module{Path: "m.example", Version: "v1.0.0", Dir: modDir}
	pkg := func(path string, m *packages.Module, imports ...string) *listed {
		return &listed{ImportPath: path, Name: filepath.Base(path), Dir: filepath.Join(modDir, "a"), GoFiles: []string{"a.go"}, Module: m, DepOnly: true, Imports: imports}
	}
	list := func(extra ...*listed) []*listed {
		return append([]*listed{pkg("m.example/a", mod)}, extra...)
	}
	c := openDepCache(nil, list())
	if c == nil || !c.cacheable[0] {
		t.Fatal("a package of a module in the module cache is not kept")
	}
	if again := openDepCache(nil, list()); again.file != c.file {
		t.Error("the same files give another key")
	}
	if other := openDepCache([]string{"-tags=x"}, list()); other.file == c.file {
		t.Error("other build flags give the same key")
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(file, later, later); err != nil {
		t.Fatal(err)
	}
	if changed := openDepCache(nil, list()); changed.file == c.file {
		t.Error("a changed file gives the same key")
	}
	for name, p := range map[string]*listed{
		"replaced":    pkg("m.example/b", &packages.Module{Path: "m.example", Version: "v1.0.0", Dir: modDir, Replace: &packages.Module{Path: "../m"}}),
		"main module": pkg("m.example/b", &packages.Module{Path: "m.example", Dir: modDir, Main: true}),
	} {
		user := pkg("m.example/c", mod, p.ImportPath)
		c := openDepCache(nil, list(p, user))
		if c.cacheable[1] || c.cacheable[2] {
			t.Errorf("%s: kept %v (the package, then one importing it)", name, c.cacheable[1:])
		}
	}
	t.Setenv("SSAGEN_CACHE", "off")
	if openDepCache(nil, list()) != nil {
		t.Error("SSAGEN_CACHE=off keeps a cache")
	}
}

// TestDepCacheRoundTrip: a run writes the entry of its dependencies, and
// the next run with the same dependencies reads it back whole: every
// package the first checked, with the imports its declarations use.
func TestDepCacheRoundTrip(t *testing.T) {
	t.Setenv("SSAGEN_CACHE", t.TempDir())
	cfg := Config{Dir: "../..", Patterns: []string{"./examples/api/..."}, OutputPkg: "example.com/out"}
	if _, err := Load(cfg); err != nil {
		t.Fatal(err)
	}
	set := newPackageSet(cfg)
	list, err := goList(set.cfg, true, cfg.Patterns)
	if err != nil {
		t.Fatal(err)
	}
	c := openDepCache(nil, list)
	read := map[string]*types.Package{}
	had, ok := c.read(set.cfg.Fset, read)
	if !ok || len(had) == 0 {
		t.Fatalf("no entry read back (%v, %d packages)", ok, len(had))
	}
	if meta := read["k8s.io/apimachinery/pkg/apis/meta/v1"]; meta == nil || meta.Scope().Lookup("ObjectMeta") == nil {
		t.Errorf("meta/v1 not read back whole (%d packages read)", len(had))
	}
	if _, ok := had["net/http"]; ok {
		t.Error("net/http is in the entry: only what declarations reach is checked")
	}
	if _, err := Load(cfg); err != nil {
		t.Fatalf("a run reading the entry: %v", err)
	}
}
