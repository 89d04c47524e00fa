// Package generated_test exercises the committed example output against a
// real kube-apiserver: Extract must return exactly what one field manager
// applied, across list-map items, sets, maps and status conditions.
package generated_test

import (
	"context"
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	ac "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1"
	"github.com/ssagen/ssagen/internal/testenv"
)

func TestExtractOnRealAPIServer(t *testing.T) {
	cfg := testenv.Start(t)
	scheme := runtime.NewScheme()
	clientgoscheme.AddToScheme(scheme)
	platformv1alpha1.AddToScheme(scheme)
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// Two controllers share one Proxy (seed 001): each owns its listener,
	// and "routes" also adds a hostname to the gateway's listener.
	gateway := ac.Proxy("edge", "default").WithSpec(ac.ProxySpec().
		WithClassRef(corev1ac.LocalObjectReference().WithName("class-a")).
		WithListeners(ac.Listener().WithName("http").WithPort(80).WithHostnames("a.example.com")).
		WithFilters(map[string]ac.FilterApplyConfiguration{"auth": *ac.Filter().WithType("jwt")}).
		WithReplicas(2))
	routes := ac.Proxy("edge", "default").WithSpec(ac.ProxySpec().
		WithListeners(
			ac.Listener().WithName("http").WithPort(80).WithHostnames("b.example.com"),
			ac.Listener().WithName("https").WithPort(443).WithSecretName("tls")).
		WithRoutes(ac.Route().WithName("r1").WithMatches([]ac.MatchApplyConfiguration{*ac.Match().WithPath("/")})))
	for _, a := range []struct {
		manager string
		cfg     *ac.ProxyApplyConfiguration
	}{{"gateway", gateway}, {"routes", routes}} {
		if err := c.Apply(ctx, clone(t, a.cfg), client.FieldOwner(a.manager), client.ForceOwnership); err != nil {
			t.Fatalf("apply as %s: %v", a.manager, err)
		}
	}
	status := ac.Proxy("edge", "default").WithStatus(ac.ProxyStatus().
		WithConditions(metav1ac.Condition().WithType("Ready").WithStatus(metav1.ConditionTrue).
			WithReason("Programmed").WithMessage("ok").WithLastTransitionTime(metav1.Now().Rfc3339Copy())).
		WithAddresses("10.0.0.1"))
	// The same manager applies status: entries are kept per subresource.
	if err := testenv.ApplyStatus(ctx, c, clone(t, status), "gateway"); err != nil {
		t.Fatalf("status apply: %v", err)
	}

	var live platformv1alpha1.Proxy
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "edge"}, &live); err != nil {
		t.Fatal(err)
	}
	if n := len(live.Spec.Listeners); n != 2 {
		t.Fatalf("live object has %d listeners, want both managers' items", n)
	}
	if h := live.Spec.Listeners[0].Hostnames; len(h) != 2 {
		t.Fatalf("listener http has hostnames %v, want both managers' (a set)", h)
	}
	for _, want := range []struct {
		manager string
		cfg     *ac.ProxyApplyConfiguration
	}{{"gateway", gateway}, {"routes", routes}} {
		got, err := ac.ExtractProxy(&live, want.manager)
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, got, want.cfg)
	}
	got, err := ac.ExtractProxyStatus(&live, "gateway")
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, got, status)
}

// clone keeps the test's expectation intact: controller-runtime writes the
// apply response into the configuration it is given.
func clone(t *testing.T, in *ac.ProxyApplyConfiguration) *ac.ProxyApplyConfiguration {
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := &ac.ProxyApplyConfiguration{}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameJSON(t *testing.T, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("extracted:\n%s\nwant exactly what the manager applied:\n%s", g, w)
	}
}
