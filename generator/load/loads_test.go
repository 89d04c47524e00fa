package load

import (
	"slices"
	"strings"
	"testing"

	"github.com/ssagen/ssagen/generator/model"
)

// TestEachPackageLoadedOnce: whatever a run finds it needs — shared types
// the patterns left out, a package of --ensure-kinds to vendor, rounds
// that vendor what the last found unusable — it loads the input once and
// the apply configurations of other modules at most once per path, and
// parses the packages it adds, as packageSet's comment says. Both first
// loads are run.
func TestEachPackageLoadedOnce(t *testing.T) {
	const gen = "github.com/ssagen/ssagen/generator/testdata"
	const ac = "k8s.io/client-go/applyconfigurations/"
	cases := []struct {
		name     string
		cfg      Config
		want     []string // the load lines: what, then the paths
		vendored string   // a package added to the inputs, which must be generated
	}{
		{name: "plain", cfg: Config{Patterns: []string{"./examples/api/..."}},
			want: []string{"roots ./examples/api/...", "applyconfigurations " + ac + "core/v1 " + ac + "meta/v1 " + ac + "rbac/v1"}},
		{name: "shared types", cfg: Config{Patterns: []string{"./generator/testdata/foreign/api/v1"}},
			want: []string{"roots ./generator/testdata/foreign/api/v1", "applyconfigurations " + ac + "meta/v1"}, vendored: gen + "/foreign/shared"},
		{name: "kinds of k8s.io/api", cfg: Config{Patterns: []string{"./examples/api/..."}, Ensure: true,
			EnsureKinds: []string{"k8s.io/api/rbac/v1.Role", "k8s.io/api/apps/v1.Deployment"}},
			want: []string{"roots ./examples/api/... k8s.io/api/apps/v1 k8s.io/api/rbac/v1",
				"applyconfigurations " + ac + "apps/v1 " + ac + "core/v1 " + ac + "meta/v1 " + ac + "rbac/v1"}},
		{name: "a kind to vendor", cfg: Config{EnsureKinds: []string{gen + "/oracle/clusterscope.Gizmo"}},
			want: []string{"roots " + gen + "/oracle/clusterscope", "applyconfigurations " + ac + "meta/v1"}, vendored: gen + "/oracle/clusterscope"},
		{name: "rounds: meta/v1 types without client-go's", cfg: Config{Patterns: []string{"./generator/testdata/metatypes/input"}, Ensure: true},
			want: []string{"roots ./generator/testdata/metatypes/input", "applyconfigurations " + ac + "meta/v1"}, vendored: "k8s.io/apimachinery/pkg/apis/meta/v1"},
	}
	for _, c := range cases {
		for _, loader := range []Loader{LoaderExport, LoaderSource} {
			var loads []string
			cfg := c.cfg
			cfg.Dir, cfg.OutputPkg, cfg.Loader, cfg.loads = "../..", "example.com/out", loader, &loads
			u, err := Load(cfg)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			seen := map[string]bool{}
			for _, l := range loads {
				for _, p := range strings.Fields(l)[1:] {
					if seen[p] {
						t.Errorf("%s (loader %d): %s loaded twice: %q", c.name, loader, p, loads)
					}
					seen[p] = true
				}
			}
			if !slices.Equal(loads, c.want) {
				t.Errorf("%s (loader %d): loads\n%q\nwant\n%q", c.name, loader, loads, c.want)
			}
			if c.vendored != "" && !slices.ContainsFunc(u.GroupVersions, func(gv *model.GroupVersion) bool { return gv.PkgPath == c.vendored && !gv.External }) {
				t.Errorf("%s (loader %d): %s not generated", c.name, loader, c.vendored)
			}
		}
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
