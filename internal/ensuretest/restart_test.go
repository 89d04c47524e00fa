package ensure_test

import (
	"fmt"
	"testing"

	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ssagen/ssagen/ensure"
	corev1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
	"github.com/ssagen/ssagen/internal/testenv"
)

// TestFirstResyncAfterRestart: a restarted controller (an empty skip cache)
// sends nothing for children that are as desired, decided from the
// informer's copy and this manager's managedFields; it sends one apply for
// each child whose intent changed, and for one whose field another manager
// took over.
func TestFirstResyncAfterRestart(t *testing.T) {
	e, ctx := setup(t)
	const n = 20
	desired := func(i int, value string) *corev1ac.ConfigMapApplyConfiguration {
		return corev1ac.ConfigMap(fmt.Sprintf("restart-%d", i), "default").
			WithLabels(map[string]string{"app": "restart"}).
			WithData(map[string]string{"key": value})
	}
	first := e.client()
	for i := 0; i < n; i++ {
		obj, _, err := corev1ensure.EnsureConfigMap(ctx, first, e.owner, desired(i, "v1"))
		if err != nil {
			t.Fatal(err)
		}
		e.synced(t, ctx, obj)
	}

	// Another manager takes over our value of child 0 with a forced apply.
	takeover := desired(0, "theirs")
	if err := e.direct.Apply(ctx, takeover, client.FieldOwner("intruder"), client.ForceOwnership); err != nil {
		t.Fatal(err)
	}
	live, _ := e.liveLabels(t, ctx, "restart-0")
	e.synced(t, ctx, live)

	restarted := e.client()
	before := e.counter.Snapshot()
	skipped := 0
	for i := 1; i < n; i++ {
		_, res, err := corev1ensure.EnsureConfigMap(ctx, restarted, e.owner, desired(i, "v1"))
		if err != nil {
			t.Fatal(err)
		}
		if res == ensure.Skipped {
			skipped++
		}
	}
	if got := firstSight(e.counter.Since(before), n-1); len(got) != 0 || skipped != n-1 {
		t.Fatalf("first resync after a restart of %d unchanged children: %d skipped, requests %v; want all skipped, none sent", n-1, skipped, got)
	}

	// The taken-over child is not as desired: one apply takes it back.
	before = e.counter.Snapshot()
	if _, res, err := corev1ensure.EnsureConfigMap(ctx, restarted, e.owner, desired(0, "v1")); err != nil || res != ensure.Configured {
		t.Fatalf("taken-over child: %v, %v; want configured", res, err)
	}
	if got := firstSight(e.counter.Since(before), 1); testenv.Total(got, "PATCH") != 1 || testenv.Total(got, "") != 1 {
		t.Fatalf("taken-over child sent %v; want one PATCH", got)
	}

	// A changed intent after a restart is sent.
	before = e.counter.Snapshot()
	if _, res, err := corev1ensure.EnsureConfigMap(ctx, e.c, e.owner, desired(1, "v2")); err != nil || res != ensure.Configured {
		t.Fatalf("changed intent: %v, %v; want configured", res, err)
	}
	if got := e.counter.Since(before); testenv.Total(got, "PATCH") != 1 {
		t.Fatalf("changed intent sent %v; want one PATCH", got)
	}
	// A field dropped from the intent after a restart is sent (to prune it).
	before = e.counter.Snapshot()
	fewer := corev1ac.ConfigMap("restart-2", "default").WithData(map[string]string{"key": "v1"})
	if _, res, err := corev1ensure.EnsureConfigMap(ctx, e.c, e.owner, fewer); err != nil || res != ensure.Configured {
		t.Fatalf("dropped label: %v, %v; want configured", res, err)
	}
	if got := e.counter.Since(before); testenv.Total(got, "PATCH") != 1 {
		t.Fatalf("dropped label sent %v; want one PATCH", got)
	}
}
