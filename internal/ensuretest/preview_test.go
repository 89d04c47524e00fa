package ensure_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ssagen/ssagen/ensure"
	"github.com/ssagen/ssagen/examples/generated/applyconfiguration"
	corev1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
	"github.com/ssagen/ssagen/internal/testenv"
)

// TestPreview: a dry run says what an apply would change — added,
// changed and pruned fields — with one dry-run request, writes nothing,
// remembers nothing, and costs no request when the skip cache shows the
// intent applied.
func TestPreview(t *testing.T) {
	e, ctx := setup(t)
	cache := e.client()
	cm := func(data map[string]string) *corev1ac.ConfigMapApplyConfiguration {
		return corev1ac.ConfigMap("preview", "default").WithData(data)
	}
	var d ensure.Diff

	before := e.counter.Snapshot()
	_, res, err := corev1ensure.EnsureConfigMap(ctx, cache, e.owner, cm(map[string]string{"k": "v", "old": "x"}), ensure.Preview(&d))
	if err != nil || res != ensure.Created || !slices.Contains(d.Added, ".data.k") || !slices.Contains(d.Added, ".data.old") {
		t.Fatalf("preview of a create: %v %v %+v", res, err, d)
	}
	if got := e.counter.Since(before); writes(got) != 1 {
		t.Fatalf("preview of a create took %s, want one dry-run apply", testenv.String(got))
	}
	if err := e.direct.Get(ctx, client.ObjectKey{Namespace: "default", Name: "preview"}, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the preview created the object: %v", err)
	}

	obj, res, err := corev1ensure.EnsureConfigMap(ctx, cache, e.owner, cm(map[string]string{"k": "v", "old": "x"}))
	if err != nil || res != ensure.Created {
		t.Fatalf("create: %v %v", res, err)
	}
	e.synced(t, ctx, obj)
	before = e.counter.Snapshot()
	if _, res, err := corev1ensure.EnsureConfigMap(ctx, cache, e.owner, cm(map[string]string{"k": "v", "old": "x"}), ensure.Preview(&d)); err != nil || res != ensure.Skipped || !d.Empty() {
		t.Fatalf("preview of an applied intent: %v %v %+v", res, err, d)
	}
	if got := e.counter.Since(before); len(got) != 0 {
		t.Fatalf("preview of an applied intent sent %s", testenv.String(got))
	}

	before = e.counter.Snapshot()
	_, res, err = corev1ensure.EnsureConfigMap(ctx, cache, e.owner, cm(map[string]string{"k": "v2", "new": "y"}), ensure.Preview(&d))
	if err != nil || res != ensure.Configured {
		t.Fatalf("preview of a change: %v %v", res, err)
	}
	if !slices.Equal(d.Added, []string{".data.new"}) || !slices.Equal(d.Changed, []string{".data.k"}) || !slices.Equal(d.Removed, []string{".data.old"}) {
		t.Fatalf("preview of a change: %+v", d)
	}
	for _, line := range []string{`+ .data.new: "y"`, `~ .data.k: "v" -> "v2"`, `- .data.old: "x"`} {
		if !strings.Contains(d.Text, line) {
			t.Errorf("the preview's text lacks %q:\n%s", line, d.Text)
		}
	}
	if got := e.counter.Since(before); testenv.Total(got, "") != 1 || writes(got) != 1 {
		t.Fatalf("preview of a change took %s, want one dry-run apply", testenv.String(got))
	}
	var live corev1.ConfigMap
	if err := e.direct.Get(ctx, client.ObjectKey{Namespace: "default", Name: "preview"}, &live); err != nil || live.Data["k"] != "v" || live.Data["old"] != "x" {
		t.Fatalf("the preview changed the object: %v %v", err, live.Data)
	}
	// Nothing was remembered: the real apply of the same intent is sent.
	if _, res, err := corev1ensure.EnsureConfigMap(ctx, cache, e.owner, cm(map[string]string{"k": "v2", "new": "y"})); err != nil || res != ensure.Configured {
		t.Fatalf("apply after the preview: %v %v", res, err)
	}
	if err := e.direct.Get(ctx, client.ObjectKey{Namespace: "default", Name: "preview"}, &live); err != nil || live.Data["k"] != "v2" || live.Data["new"] != "y" || live.Data["old"] != "" {
		t.Fatalf("apply after the preview: %v %v", err, live.Data)
	}
}

// TestPreviewOnFakeClient: the fake client answers no dry run; the preview
// merges the intent into the cached object instead, and writes nothing.
func TestPreviewOnFakeClient(t *testing.T) {
	ctx := context.Background()
	owner := fakeOwner()
	s := fakeScheme(t)
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(owner).WithTypeConverters(applyconfiguration.NewTypeConverter(s)).Build()
	cache := ensure.NewClient(c)
	if _, _, err := corev1ensure.EnsureConfigMap(ctx, cache, owner, corev1ac.ConfigMap("p", "default").WithData(map[string]string{"k": "v"})); err != nil {
		t.Fatal(err)
	}
	var d ensure.Diff
	obj, res, err := corev1ensure.EnsureConfigMap(ctx, cache, owner, corev1ac.ConfigMap("p", "default").WithData(map[string]string{"k": "v2", "n": "y"}), ensure.Preview(&d))
	if err != nil || res != ensure.Configured || !slices.Equal(d.Changed, []string{".data.k"}) || !slices.Equal(d.Added, []string{".data.n"}) || obj.Data["k"] != "v" {
		t.Fatalf("preview on the fake client: %v %v %+v %v", res, err, d, obj.Data)
	}
	var live corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "p"}, &live); err != nil || live.Data["k"] != "v" {
		t.Fatalf("the preview wrote: %v %v", err, live.Data)
	}
}

// TestPreviewAfterRestartRemembersNothing: after a restart (an empty skip
// cache) a Preview of an applied intent is answered from the live object
// and its managedFields, with no request, and learns nothing from it: the
// cache stays empty. The real Ensure afterwards decides the same way, with
// no request, and remembers the object.
func TestPreviewAfterRestartRemembersNothing(t *testing.T) {
	e, ctx := setup(t)
	cm := func() *corev1ac.ConfigMapApplyConfiguration {
		return corev1ac.ConfigMap("restarted", "default").WithData(map[string]string{"k": "v"})
	}
	obj, _, err := corev1ensure.EnsureConfigMap(ctx, e.c, e.owner, cm())
	if err != nil {
		t.Fatal(err)
	}
	e.synced(t, ctx, obj)

	restarted := e.client()
	var d ensure.Diff
	before := e.counter.Snapshot()
	if _, res, err := corev1ensure.EnsureConfigMap(ctx, restarted, e.owner, cm(), ensure.Preview(&d)); err != nil || res != ensure.Skipped || !d.Empty() {
		t.Fatalf("preview of an applied intent after a restart: %v %v %+v", res, err, d)
	}
	if got := firstSight(e.counter.Since(before), 1); len(got) != 0 {
		t.Fatalf("the preview sent %s, want none", testenv.String(got))
	}
	if n := restarted.Remembered(); n != 0 {
		t.Fatalf("the preview left %d entries in the skip cache, want none", n)
	}
	if _, res, err := corev1ensure.EnsureConfigMap(ctx, restarted, e.owner, cm()); err != nil || res != ensure.Skipped {
		t.Fatalf("the real Ensure after the preview: %v %v", res, err)
	}
	// In strip mode the preview learned nothing, so the real Ensure reads
	// the ownership again: a second first sight.
	if got := firstSight(e.counter.Since(before), 2); len(got) != 0 {
		t.Fatalf("the real Ensure sent %s, want none", testenv.String(got))
	}
	if n := restarted.Remembered(); n != 1 {
		t.Fatalf("the real Ensure left %d entries in the skip cache, want 1", n)
	}
}
