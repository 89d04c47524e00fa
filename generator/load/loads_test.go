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
	count := func(cfg *packages.Config, patterns ...string) ([]*packages.Package, error) {
		calls++
		return packages.Load(cfg, patterns...)
	}
	u, err := Load(Config{Dir: "../..", Patterns: []string{"./examples/api/..."}, OutputPkg: "example.com/out",
		EnsureKinds: []string{"k8s.io/api/rbac/v1.Role", "k8s.io/api/apps/v1.Deployment"}, loadPackages: count})
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

// TestInputAlsoNamedByEnsureKinds: a package that is an input and holds a
// kind named by --ensure-kinds (ssagen generate --ensure-kinds
// k8s.io/api/core/v1.Service k8s.io/api/core/v1) stays an input.
func TestInputAlsoNamedByEnsureKinds(t *testing.T) {
	for _, pattern := range []string{"k8s.io/api/rbac/v1", "k8s.io/api/rbac/..."} {
		u, err := Load(Config{Dir: "../..", Patterns: []string{pattern}, OutputPkg: "example.com/out",
			EnsureKinds: []string{"k8s.io/api/rbac/v1.Role"}, CompatApplyconfigurationGen: true})
		if err != nil {
			t.Fatalf("%s: %v", pattern, err)
		}
		input := false
		for _, gv := range u.GroupVersions {
			input = input || (gv.PkgPath == "k8s.io/api/rbac/v1" && !gv.External && len(gv.Kinds()) > 0)
		}
		if !input {
			t.Errorf("%s: k8s.io/api/rbac/v1 is not an input", pattern)
		}
	}
}
