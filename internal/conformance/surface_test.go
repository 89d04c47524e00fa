package conformance

import (
	"fmt"
	"go/types"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

const self = "github.com/ssagen/ssagen/internal/conformance"

// pairs are ssagen's packages and the published ones they must match.
var pairs = []struct{ ours, theirs string }{
	{self + "/kube/core/v1", "k8s.io/client-go/applyconfigurations/core/v1"},
	{self + "/kube/rbac/v1", "k8s.io/client-go/applyconfigurations/rbac/v1"},
	{self + "/kube/storage/v1", "k8s.io/client-go/applyconfigurations/storage/v1"},
	{self + "/kube/apps/v1", "k8s.io/client-go/applyconfigurations/apps/v1"},
	{self + "/kube/batch/v1", "k8s.io/client-go/applyconfigurations/batch/v1"},
	{self + "/apiextensions/apiextensions/v1", "k8s.io/apiextensions-apiserver/pkg/client/applyconfiguration/apiextensions/v1"},
}

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
	for _, p := range pairs {
		t.Run(p.theirs, func(t *testing.T) {
			ours := surface(byPath[p.ours], func(path string) string {
				if theirs, ok := oursToTheirs[path]; ok {
					return theirs
				}
				return path
			})
			theirs := surface(byPath[p.theirs], func(path string) string { return path })
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

// surface lists a package's exported API as strings, one per declaration.
func surface(pkg *types.Package, mapPath func(string) string) map[string]bool {
	qual := func(p *types.Package) string { return mapPath(p.Path()) }
	out := map[string]bool{}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Func:
			out["func "+name+types.TypeString(obj.Type(), qual)] = true
		case *types.TypeName:
			out["type "+name] = true
			if st, ok := obj.Type().Underlying().(*types.Struct); ok {
				for i := 0; i < st.NumFields(); i++ {
					f := st.Field(i)
					out[fmt.Sprintf("field %s.%s %s `%s`", name, f.Name(), types.TypeString(f.Type(), qual), st.Tag(i))] = true
				}
			}
			for _, recv := range []types.Type{obj.Type(), types.NewPointer(obj.Type())} {
				ms := types.NewMethodSet(recv)
				for i := 0; i < ms.Len(); i++ {
					m := ms.At(i).Obj()
					if !m.Exported() {
						continue
					}
					out[fmt.Sprintf("method (%s).%s%s", types.TypeString(recv, qual), m.Name(), types.TypeString(m.Type(), qual))] = true
				}
			}
		case *types.Var, *types.Const:
			out["value "+name+" "+types.TypeString(obj.Type(), qual)] = true
		}
	}
	return out
}

func hasExtract(api map[string]bool) bool {
	for k := range api {
		if strings.HasPrefix(k, "func Extract") {
			return true
		}
	}
	return false
}
