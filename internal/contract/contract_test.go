package contract

import "testing"

func TestNames(t *testing.T) {
	for _, c := range []struct{ pkg, alias string }{
		{"example.com/op/pkg/ac/core/v1/ensure", "corev1ensure"},
		{"example.com/op/pkg/ac/api/v1alpha1/ensure", "apiv1alpha1ensure"},
		{"example.com/op/pkg/ac/gateway.networking/v1/ensure", "gatewaynetworkingv1ensure"},
	} {
		if got := HelperAlias(c.pkg); got != c.alias {
			t.Errorf("HelperAlias(%s) = %s, want %s", c.pkg, got, c.alias)
		}
		if !IsHelperPkg(c.pkg) {
			t.Errorf("%s is not a helper package", c.pkg)
		}
	}
	if IsHelperPkg(RuntimePkg) {
		t.Error("the runtime counts as a helper package")
	}
	if HelperPkg("example.com/ac/core/v1") != "example.com/ac/core/v1/ensure" || Ensure("Pod") != "EnsurePod" || EnsureStatus("Pod") != "EnsurePodStatus" || OwnedChanges("Pod") != "OwnedPodChanges" {
		t.Error("helper names changed: generated code and vet would disagree")
	}
}

func TestOwnedChangesKind(t *testing.T) {
	for name, want := range map[string]string{"OwnedPodChanges": "Pod", "OwnedChanges": "", "OwnedPod": "", "PodChanges": ""} {
		kind, ok := OwnedChangesKind(name)
		if kind != want || ok != (want != "") {
			t.Errorf("OwnedChangesKind(%s) = %q %v, want %q", name, kind, ok, want)
		}
	}
}

func TestImportName(t *testing.T) {
	for _, c := range []struct{ path, name, suffix, want string }{
		{RuntimePkg, "ensure", "", RuntimeAlias},
		{"example.com/op/internal/ssa/core/v1/ensure", "ensure", "", "corev1ensure"},
		{"example.com/op/internal/ssa/core/v1", "v1", "ac", "corev1ac"},
		{"k8s.io/api/rbac/v1beta1", "v1beta1", "", "rbacv1beta1"},
		{"sigs.k8s.io/gateway-api/apis/v1", "v1", "", "apisv1"},
		{"example.com/op/internal/ssa", "ssa", "", "ssa"},
		{"k8s.io/client-go/applyconfigurations", "applyconfigurations", "", "applyconfigurations"},
		{"example.com/my-api/v1", "v1", "", "myapiv1"},
	} {
		if got := ImportName(c.path, c.name, c.suffix); got != c.want {
			t.Errorf("ImportName(%q, %q, %q) = %q, want %q", c.path, c.name, c.suffix, got, c.want)
		}
	}
}
