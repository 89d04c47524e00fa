package emit

import (
	"testing"

	"github.com/ssagen/ssagen/generator/model"
)

// TestAliases: the spellings Kubernetes code uses, whatever the order the
// packages come in — metav1, <group><version> for API packages, the same
// with "ac" for apply configuration packages, a package without a group
// named from its path, never "core" — with clashes numbered in path order
// and no alias hiding a name the output declares.
func TestAliases(t *testing.T) {
	gv := func(group, version, pkg, out string, noGroup bool) *model.GroupVersion {
		return &model.GroupVersion{Group: group, Version: version, PkgPath: pkg, OutPkgPath: out, NoGroup: noGroup}
	}
	core := gv("", "v1", "k8s.io/api/core/v1", "example.com/op/ac/core/v1", false)
	apps := gv("apps", "v1", "example.com/op/api/apps/v1", "example.com/op/ac/apps/v1", false)
	shared := gv("", "v1", "example.com/op/common/v1", "example.com/op/ac/common/v1", true)
	clash := gv("apps.other.io", "v1", "example.com/other/apps/v1", "example.com/op/ac/appsother/v1", false)
	// A type of the output named like the alias a package would get.
	taken := gv("things", "v1", "example.com/op/api/things/v1", "example.com/op/ac/things/v1", false)
	widget := &model.Type{Name: model.TypeName{Pkg: taken.PkgPath, Name: "metav1"}}
	taken.Types = []*model.Type{widget}
	u := &model.Universe{Types: map[string]*model.Type{}, GroupVersions: []*model.GroupVersion{core, apps, shared, clash, taken}}
	for _, g := range u.GroupVersions {
		u.Types[g.PkgPath+".T"] = &model.Type{Name: model.TypeName{Pkg: g.PkgPath, Name: "T"}, ApplyConfig: &model.TypeName{Pkg: g.OutPkgPath, Name: "TApplyConfiguration"}}
	}
	a := NewAliases(u, []string{"k8s.io/apimachinery/pkg/apis/meta/v1", "k8s.io/client-go/applyconfigurations/rbac/v1", "sigs.k8s.io/controller-runtime/pkg/client"})
	want := map[string]string{
		"k8s.io/apimachinery/pkg/apis/meta/v1":         "metav12", // metav1 is a type's name in this run
		"k8s.io/api/core/v1":                           "corev1",
		"example.com/op/ac/core/v1":                    "corev1ac",
		"example.com/op/api/apps/v1":                   "appsv1",
		"example.com/op/ac/apps/v1":                    "appsv1ac",
		"example.com/op/common/v1":                     "commonv1",
		"example.com/op/ac/common/v1":                  "commonv1ac",
		"example.com/other/apps/v1":                    "appsv12",
		"example.com/op/ac/appsother/v1":               "appsv1ac2",
		"k8s.io/client-go/applyconfigurations/rbac/v1": "rbacv1ac",
		"sigs.k8s.io/controller-runtime/pkg/client":    "client",
		"example.com/op/api/things/v1":                 "thingsv1",
		"example.com/op/ac/things/v1":                  "thingsv1ac",
	}
	for p, w := range want {
		if a[p] != w {
			t.Errorf("%s: alias %q, want %q", p, a[p], w)
		}
	}
	// The same universe in another order gives the same aliases.
	u.GroupVersions = []*model.GroupVersion{taken, clash, shared, apps, core}
	b := NewAliases(u, []string{"sigs.k8s.io/controller-runtime/pkg/client", "k8s.io/client-go/applyconfigurations/rbac/v1", "k8s.io/apimachinery/pkg/apis/meta/v1"})
	for p := range want {
		if a[p] != b[p] {
			t.Errorf("%s: %q, then %q in another order", p, a[p], b[p])
		}
	}
}
