package load

import (
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestTwoPackageLoads: a run — input packages, kinds of other modules
// (--ensure-kinds), the apply configurations of both — loads packages
// twice.
func TestTwoPackageLoads(t *testing.T) {
	calls := 0
	loadPackages = func(cfg *packages.Config, patterns ...string) ([]*packages.Package, error) {
		calls++
		return packages.Load(cfg, patterns...)
	}
	t.Cleanup(func() { loadPackages = packages.Load })
	u, err := Load(Config{Dir: "../..", Patterns: []string{"./examples/api/..."}, OutputPkg: "example.com/out",
		EnsureKinds: []string{"k8s.io/api/rbac/v1.Role", "k8s.io/api/apps/v1.Deployment"}})
	if err != nil {
		t.Fatal(err)
	}
	kinds := 0
	for _, gv := range u.GroupVersions {
		kinds += len(gv.Kinds())
	}
	if kinds != 5 {
		t.Errorf("%d kinds, want Project, Proxy, Sandbox, Role and Deployment", kinds)
	}
	if calls != 2 {
		t.Errorf("%d package loads, want 2", calls)
	}
}
