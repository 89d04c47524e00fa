package ensure_test

import (
	"context"
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	"github.com/ssagen/ssagen/examples/generated/applyconfiguration"
	"github.com/ssagen/ssagen/internal/testenv"
)

const cleanup = "platform.ssagen.dev/cleanup"

// staleReader answers every Get with the copy it holds: a cache that has
// not seen the object's deletion yet.
type staleReader struct {
	client.Reader
	obj client.Object
}

func (s staleReader) Get(_ context.Context, _ client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	s.obj.(*platformv1alpha1.Project).DeepCopyInto(obj.(*platformv1alpha1.Project))
	return nil
}

// TestFinalizers: the controller's finalizer on its owner, by apply and
// by a tested JSON patch — one request when it changes something, none
// otherwise, no 409, other finalizers untouched, and a deleted owner never
// re-created.
func TestFinalizers(t *testing.T) {
	e, ctx := setup(t)
	// Another controller's finalizer, added with Update.
	other := "other.example.com/hold"
	live := &platformv1alpha1.Project{}
	if err := e.direct.Get(ctx, client.ObjectKeyFromObject(e.owner), live); err != nil {
		t.Fatal(err)
	}
	live.Finalizers = append(live.Finalizers, other)
	if err := e.direct.Update(ctx, live, client.FieldOwner("other-controller")); err != nil {
		t.Fatal(err)
	}
	e.synced(t, ctx, live)

	owner := live.DeepCopy()
	before := e.counter.Snapshot()
	if res, err := ensure.AddFinalizer(ctx, e.c, owner, cleanup); err != nil || res != ensure.Configured {
		t.Fatalf("add: %v %v", res, err)
	}
	// (The client's first write of the kind also asks discovery for its
	// REST mapping: GETs, once per client.)
	if got := e.counter.Since(before); writes(got) != 1 || testenv.Total(got, "PATCH 200") != 1 {
		t.Fatalf("adding took %s, want one apply", testenv.String(got))
	}
	if !slices.Equal(owner.Finalizers, []string{other, cleanup}) {
		t.Fatalf("finalizers after add: %v", owner.Finalizers)
	}
	e.synced(t, ctx, owner)
	before = e.counter.Snapshot()
	for i := 0; i < 5; i++ {
		if res, err := ensure.AddFinalizer(ctx, e.c, owner, cleanup); err != nil || res != ensure.Skipped {
			t.Fatalf("add again: %v %v", res, err)
		}
	}
	if got := e.counter.Since(before); len(got) != 0 {
		t.Fatalf("adding a present finalizer sent %s", testenv.String(got))
	}

	before = e.counter.Snapshot()
	if res, err := ensure.RemoveFinalizer(ctx, e.c, owner, cleanup); err != nil || res != ensure.Configured {
		t.Fatalf("remove: %v %v", res, err)
	}
	if got := e.counter.Since(before); testenv.Total(got, "") != 1 || testenv.Total(got, "PATCH 200") != 1 {
		t.Fatalf("removing took %s, want one patch and nothing else", testenv.String(got))
	}
	if !slices.Equal(owner.Finalizers, []string{other}) {
		t.Fatalf("finalizers after remove: %v (the other controller's must stay)", owner.Finalizers)
	}
	e.synced(t, ctx, owner)
	before = e.counter.Snapshot()
	if res, err := ensure.RemoveFinalizer(ctx, e.c, owner, cleanup); err != nil || res != ensure.Skipped {
		t.Fatalf("remove again: %v %v", res, err)
	}
	if got := e.counter.Since(before); len(got) != 0 {
		t.Fatalf("removing an absent finalizer sent %s", testenv.String(got))
	}

	t.Run("a finalizer this controller added with Update before it used apply", func(t *testing.T) {
		cur := &platformv1alpha1.Project{}
		if err := e.direct.Get(ctx, client.ObjectKeyFromObject(e.owner), cur); err != nil {
			t.Fatal(err)
		}
		cur.Finalizers = append([]string{cleanup}, cur.Finalizers...)
		if err := e.direct.Update(ctx, cur, client.FieldOwner(ensure.DefaultFieldManager)); err != nil {
			t.Fatal(err)
		}
		e.synced(t, ctx, cur)
		if res, err := ensure.RemoveFinalizer(ctx, e.c, cur, cleanup); err != nil || res != ensure.Configured || !slices.Equal(cur.Finalizers, []string{other}) {
			t.Fatalf("remove an Update-era finalizer: %v %v %v", res, err, cur.Finalizers)
		}
	})

	t.Run("a deleted owner is never re-created", func(t *testing.T) {
		gone := &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: "gone", Finalizers: []string{cleanup}}}
		if err := e.direct.Create(ctx, gone); err != nil {
			t.Fatal(err)
		}
		stale := gone.DeepCopy()
		if err := e.direct.Delete(ctx, gone); err != nil {
			t.Fatal(err)
		}
		e.synced(t, ctx, mustGet(t, ctx, e.direct, gone))
		// The last finalizer goes: the API server deletes the object.
		obj := stale.DeepCopy()
		if res, err := ensure.RemoveFinalizer(ctx, e.c, obj, cleanup); err != nil || res != ensure.Configured {
			t.Fatalf("remove the last finalizer: %v %v", res, err)
		}
		if err := e.direct.Get(ctx, client.ObjectKeyFromObject(gone), &platformv1alpha1.Project{}); !apierrors.IsNotFound(err) {
			t.Fatalf("the object outlived its last finalizer: %v", err)
		}
		// A cache that has not seen the deletion yet.
		staleClient, err := client.New(e.cfg, client.Options{Scheme: e.c.Scheme(), Cache: &client.CacheOptions{Reader: staleReader{obj: stale}}})
		if err != nil {
			t.Fatal(err)
		}
		if res, err := ensure.RemoveFinalizer(ctx, staleClient, stale.DeepCopy(), cleanup); err != nil || res != ensure.Skipped {
			t.Fatalf("remove from a stale cache: %v %v", res, err)
		}
		if _, err := ensure.AddFinalizer(ctx, staleClient, stale.DeepCopy(), "platform.ssagen.dev/another"); !apierrors.IsNotFound(err) {
			t.Fatalf("add on a deleted owner: %v, want NotFound", err)
		}
		if err := e.direct.Get(ctx, client.ObjectKeyFromObject(gone), &platformv1alpha1.Project{}); !apierrors.IsNotFound(err) {
			t.Fatalf("a finalizer write re-created the deleted owner: %v", err)
		}
	})
}

func writes(counts map[string]int) int {
	return testenv.Total(counts, "POST", "PUT", "PATCH", "DELETE")
}

func mustGet(t *testing.T, ctx context.Context, c client.Client, obj *platformv1alpha1.Project) *platformv1alpha1.Project {
	t.Helper()
	cur := &platformv1alpha1.Project{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), cur); err != nil {
		t.Fatal(err)
	}
	return cur
}

// TestFinalizersOnFakeClient: the same calls in a reconciler's unit test,
// with the fake client built as docs/ensure.md's recipe builds it: the
// generated type converter makes finalizers a set there as on a server
// (without it the fake client's deduced schema replaces the whole list).
func TestFinalizersOnFakeClient(t *testing.T) {
	ctx := context.Background()
	owner := fakeOwner()
	owner.Finalizers = []string{"other.example.com/hold"}
	s := fakeScheme(t)
	b, writes := countWrites(fake.NewClientBuilder().WithScheme(s).WithObjects(owner).
		WithTypeConverters(applyconfiguration.NewTypeConverter(s)))
	c := b.Build()
	obj := owner.DeepCopy()
	if res, err := ensure.AddFinalizer(ctx, c, obj, cleanup); err != nil || res != ensure.Configured || !slices.Equal(obj.Finalizers, []string{"other.example.com/hold", cleanup}) {
		t.Fatalf("add: %v %v %v", res, err, obj.Finalizers)
	}
	if res, err := ensure.AddFinalizer(ctx, c, obj, cleanup); err != nil || res != ensure.Skipped {
		t.Fatalf("add again: %v %v", res, err)
	}
	if res, err := ensure.RemoveFinalizer(ctx, c, obj, cleanup); err != nil || res != ensure.Configured || !slices.Equal(obj.Finalizers, []string{"other.example.com/hold"}) {
		t.Fatalf("remove: %v %v %v", res, err, obj.Finalizers)
	}
	if res, err := ensure.RemoveFinalizer(ctx, c, obj, cleanup); err != nil || res != ensure.Skipped {
		t.Fatalf("remove again: %v %v", res, err)
	}
	if n := writes.Load(); n != 2 {
		t.Fatalf("%d writes, want 2 (one add, one remove)", n)
	}
}
