package ensure_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	corev1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
	"github.com/ssagen/ssagen/internal/testenv"
)

// TestPrune: the children an owner no longer wants are deleted, one
// DELETE each, from a read of the cache; nothing when nothing is to be
// pruned; never an object the owner does not control.
func TestPrune(t *testing.T) {
	e, ctx := setup(t)
	cache := ensure.WithCache(ensure.NewSkipCache())
	var last client.Object
	for _, name := range []string{"keep", "drop-1", "drop-2"} {
		obj, _, err := corev1ensure.EnsureConfigMap(ctx, e.c, e.owner, corev1ac.ConfigMap(name, "default").WithData(map[string]string{"k": "v"}), cache)
		if err != nil {
			t.Fatal(err)
		}
		last = obj
	}
	// Not ours: another owner's child, and a ConfigMap nobody owns.
	other := &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: "p2"}}
	if err := e.direct.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	if _, _, err := corev1ensure.EnsureConfigMap(ctx, e.c, other, corev1ac.ConfigMap("theirs", "default"), cache); err != nil {
		t.Fatal(err)
	}
	loose := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "loose", Namespace: "default"}}
	if err := e.direct.Create(ctx, loose); err != nil {
		t.Fatal(err)
	}
	e.synced(t, ctx, loose)
	e.synced(t, ctx, last)

	keep := []client.ObjectKey{{Namespace: "default", Name: "keep"}}
	before := e.counter.Snapshot()
	n, err := ensure.Prune(ctx, e.c, e.owner, &corev1.ConfigMapList{}, keep, client.InNamespace("default"))
	if err != nil || n != 2 {
		t.Fatalf("prune: %d %v", n, err)
	}
	if got := e.counter.Since(before); testenv.Total(got, "DELETE 200") != 2 || writes(got) != 2 {
		t.Fatalf("pruning two children took %s, want two DELETEs", testenv.String(got))
	}
	for _, name := range []string{"keep", "theirs", "loose"} {
		if err := e.direct.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, &corev1.ConfigMap{}); err != nil {
			t.Errorf("%s was pruned: %v", name, err)
		}
	}
	for _, name := range []string{"drop-1", "drop-2"} {
		for i := 0; i < 200; i++ {
			if err := e.c.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, &corev1.ConfigMap{}); apierrors.IsNotFound(err) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	before = e.counter.Snapshot()
	for i := 0; i < 5; i++ {
		if n, err := ensure.Prune(ctx, e.c, e.owner, &corev1.ConfigMapList{}, keep, client.InNamespace("default")); err != nil || n != 0 {
			t.Fatalf("prune again: %d %v", n, err)
		}
	}
	if got := e.counter.Since(before); len(got) != 0 {
		t.Fatalf("5 prunes with nothing to prune sent %s", testenv.String(got))
	}
}

// TestPruneOnFakeClient: the same call in a reconciler's unit test.
func TestPruneOnFakeClient(t *testing.T) {
	ctx := context.Background()
	owner := fakeOwner()
	c := fake.NewClientBuilder().WithScheme(fakeScheme(t)).WithObjects(owner).Build()
	cache := ensure.WithCache(ensure.NewSkipCache())
	for _, name := range []string{"keep", "drop"} {
		if _, _, err := corev1ensure.EnsureConfigMap(ctx, c, owner, corev1ac.ConfigMap(name, "default"), cache); err != nil {
			t.Fatal(err)
		}
	}
	n, err := ensure.Prune(ctx, c, owner, &corev1.ConfigMapList{}, []client.ObjectKey{{Namespace: "default", Name: "keep"}})
	if err != nil || n != 1 {
		t.Fatalf("prune: %d %v", n, err)
	}
	var list corev1.ConfigMapList
	if err := c.List(ctx, &list); err != nil || len(list.Items) != 1 || list.Items[0].Name != "keep" {
		t.Fatalf("left: %v %v", err, list.Items)
	}
}
