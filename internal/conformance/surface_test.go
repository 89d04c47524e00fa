package conformance

import (
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/ssagen/ssagen/internal/apisurface"
)

const self = "github.com/ssagen/ssagen/internal/conformance"

// pairs are ssagen's packages and the published ones they must match:
// every group/version generated into kube/ (all of k8s.io/api that
// client-go publishes), and apiextensions-apiserver's.
var pairs = func() []struct{ ours, theirs string } {
	out := []struct{ ours, theirs string }{
		{self + "/apiextensions/apiextensions/v1", "k8s.io/apiextensions-apiserver/pkg/client/applyconfiguration/apiextensions/v1"},
		{self + "/aggregator/apiregistration/v1", "k8s.io/kube-aggregator/pkg/client/applyconfiguration/apiregistration/v1"},
		{self + "/aggregator/apiregistration/v1beta1", "k8s.io/kube-aggregator/pkg/client/applyconfiguration/apiregistration/v1beta1"},
	}
	groups, err := os.ReadDir("kube")
	if err != nil {
		panic(err)
	}
	for _, g := range groups {
		if !g.IsDir() || g.Name() == "internal" {
			continue
		}
		versions, err := os.ReadDir(filepath.Join("kube", g.Name()))
		if err != nil {
			panic(err)
		}
		for _, v := range versions {
			if v.IsDir() {
				gv := g.Name() + "/" + v.Name()
				out = append(out, struct{ ours, theirs string }{self + "/kube/" + gv, "k8s.io/client-go/applyconfigurations/" + gv})
			}
		}
	}
	return out
}()

// oursToTheirs maps each of ssagen's packages to the published one, for
// references between them (apps/v1 uses core/v1's PodTemplateSpec).
var oursToTheirs = func() map[string]string {
	m := map[string]string{}
	for _, p := range pairs {
		m[p.ours] = p.theirs
	}
	return m
}()

// TestExportedSurface compares every exported type, field, method and
// function of each pair, with package paths of ours mapped to theirs.
func TestExportedSurface(t *testing.T) {
	var paths []string
	for _, p := range pairs {
		paths = append(paths, p.ours, p.theirs)
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes}, paths...)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*types.Package{}
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			t.Fatalf("%s: %v", p.PkgPath, p.Errors)
		}
		byPath[p.PkgPath] = p.Types
	}
	if len(pairs) < 50 {
		t.Fatalf("only %d packages to compare", len(pairs))
	}
	for _, p := range pairs {
		t.Run(p.theirs, func(t *testing.T) {
			ours := apisurface.Of(byPath[p.ours], func(path string) string {
				if theirs, ok := oursToTheirs[path]; ok {
					return theirs
				}
				return path
			})
			theirs := apisurface.Of(byPath[p.theirs], func(path string) string { return path })
			var missing, extra []string
			for k := range theirs {
				if !ours[k] {
					missing = append(missing, k)
				}
			}
			for k := range ours {
				if !theirs[k] {
					extra = append(extra, k)
				}
			}
			// Packages generated without an OpenAPI schema have no Extract
			// functions; ssagen derives the schema, so it always has them.
			if !hasExtract(theirs) {
				kept := extra[:0]
				for _, e := range extra {
					if !strings.HasPrefix(e, "func Extract") {
						kept = append(kept, e)
					}
				}
				extra = kept
			}
			// The converters (zz_generated.convert.go) are ssagen's own
			// addition: From<Type>(in *T), StatusFrom<Kind>, From<Kind>Embedded.
			kept := extra[:0]
			for _, e := range extra {
				if !apisurface.Converter.MatchString(e) {
					kept = append(kept, e)
				}
			}
			extra = kept
			missing, extra = withoutScaleQuirk(p.ours, missing), withoutScaleQuirk(p.ours, extra)
			sort.Strings(missing)
			sort.Strings(extra)
			for _, m := range missing {
				t.Errorf("missing in ssagen's output: %s", m)
			}
			for _, e := range extra {
				t.Errorf("not in applyconfiguration-gen's output: %s", e)
			}
			counts := map[string]int{}
			for k := range theirs {
				counts[strings.SplitN(k, " ", 2)[0]]++
			}
			t.Logf("matched %d types, %d fields, %d methods, %d functions", counts["type"], counts["field"], counts["method"], counts["func"])
		})
	}
}

// scaleQuirk matches the declarations of one deliberate difference (the
// README's table): where a kind's +genclient:method=ApplyScale names an
// input type of its own package (apps/v1beta2, extensions/v1beta1),
// applyconfiguration-gen walks a copy of the kind under the input's name,
// never reaches ScaleSpec and ScaleStatus, and keeps them raw structs in
// ScaleApplyConfiguration; ssagen gives them apply configurations.
var scaleQuirk = regexp.MustCompile(`ScaleApplyConfiguration\)?\.(Spec |Status |WithSpecfunc|WithStatusfunc)|Scale(Spec|Status)ApplyConfiguration|^func Scale(Spec|Status)func`)

func withoutScaleQuirk(pkg string, diffs []string) []string {
	if !strings.HasSuffix(pkg, "/apps/v1beta2") && !strings.HasSuffix(pkg, "/extensions/v1beta1") {
		return diffs
	}
	kept := diffs[:0]
	for _, d := range diffs {
		if !scaleQuirk.MatchString(d) {
			kept = append(kept, d)
		}
	}
	return kept
}

func hasExtract(api map[string]bool) bool {
	for k := range api {
		if strings.HasPrefix(k, "func Extract") {
			return true
		}
	}
	return false
}
