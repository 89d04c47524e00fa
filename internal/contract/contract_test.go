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
