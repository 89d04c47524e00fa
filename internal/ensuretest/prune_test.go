package ensure_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	corev1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
	rbacv1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"
	"github.com/ssagen/ssagen/internal/testenv"
)

// TestPrune: the children an owner no longer wants are deleted, one
// DELETE each, from a read of the cache; nothing when nothing is to be
// pruned; never an object the owner does not control.
func TestPrune(t *testing.T) {
	e, ctx := setup(t)
	cache := e.client()
	var last client.Object
	for _, name := range []string{"keep", "drop-1", "drop-2"} {
		obj, _, err := corev1ensure.EnsureConfigMap(ctx, cache, e.owner, corev1ac.ConfigMap(name, "default").WithData(map[string]string{"k": "v"}))
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
	if _, _, err := corev1ensure.EnsureConfigMap(ctx, cache, other, corev1ac.ConfigMap("theirs", "default")); err != nil {
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
	cache := ensure.NewClient(c)
	for _, name := range []string{"keep", "drop"} {
		if _, _, err := corev1ensure.EnsureConfigMap(ctx, cache, owner, corev1ac.ConfigMap(name, "default")); err != nil {
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

// waitCache waits until the cache answers get with ok.
func waitCache(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if ok() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the cache never showed %s", what)
}

// TestClusterScopedChildrenOfNamespacedOwner: a namespaced Sandbox owns
// ClusterRoles through OwnerLabels. They are pruned like referenced
// children, and deleted with the owner by Finalize: one DELETE each, one
// patch for the finalizer, none when nothing is to do; another owner's
// and an unlabelled ClusterRole are never touched.
func TestClusterScopedChildrenOfNamespacedOwner(t *testing.T) {
	e, ctx := setup(t)
	cache := e.client()
	newSandbox := func(name string) *platformv1alpha1.Sandbox {
		s := &platformv1alpha1.Sandbox{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: platformv1alpha1.SandboxSpec{PodTemplate: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}}}
		if err := e.direct.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	owner, other := newSandbox("s1"), newSandbox("s2")
	role := func(name string) *rbacv1ac.ClusterRoleApplyConfiguration {
		return rbacv1ac.ClusterRole(name).WithRules(rbacv1ac.PolicyRule().WithAPIGroups("").WithResources("nodes").WithVerbs("get"))
	}

	_, _, err := rbacv1ensure.EnsureClusterRole(ctx, cache, owner, role("s1-read"))
	if !errors.Is(err, ensure.ErrClusterScopedChild) || !strings.Contains(err.Error(), "ensure.OwnerLabels()") {
		t.Fatalf("without OwnerLabels: %v, want ErrClusterScopedChild naming the option", err)
	}
	var last client.Object
	for _, name := range []string{"s1-read", "s1-old", "s1-older"} {
		obj, res, err := rbacv1ensure.EnsureClusterRole(ctx, cache, owner, role(name).WithLabels(map[string]string{"team": "a"}), ensure.OwnerLabels())
		if err != nil || res != ensure.Created {
			t.Fatalf("%s: %v %v", name, res, err)
		}
		if obj.Labels[ensure.OwnerUIDLabel] != string(owner.UID) || obj.Labels["team"] != "a" ||
			obj.Annotations[ensure.OwnerAnnotation] != "Sandbox.platform.ssagen.dev/default/s1" || len(obj.OwnerReferences) != 0 {
			t.Fatalf("%s: labels %v, annotations %v, references %v", name, obj.Labels, obj.Annotations, obj.OwnerReferences)
		}
		if name == "s1-read" {
			// The check below reads s1-read from the informer cache.
			e.synced(t, ctx, obj)
		}
		last = obj
	}
	theirs, _, err := rbacv1ensure.EnsureClusterRole(ctx, cache, other, role("s2-read"), ensure.OwnerLabels())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := rbacv1ensure.EnsureClusterRole(ctx, e.c, other, role("s1-read"), ensure.OwnerLabels()); !errors.Is(err, ensure.ErrAlreadyControlled) {
		t.Fatalf("another owner taking s1-read: %v, want ErrAlreadyControlled", err)
	}
	loose := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "loose"}}
	if err := e.direct.Create(ctx, loose); err != nil {
		t.Fatal(err)
	}
	e.synced(t, ctx, last)
	e.synced(t, ctx, theirs)
	e.synced(t, ctx, loose)

	// Steady state: the same intent sends nothing.
	before := e.counter.Snapshot()
	if _, res, err := rbacv1ensure.EnsureClusterRole(ctx, cache, owner, role("s1-read").WithLabels(map[string]string{"team": "a"}), ensure.OwnerLabels()); err != nil || res != ensure.Skipped {
		t.Fatalf("again: %v %v", res, err)
	}
	if got := e.counter.Since(before); len(got) != 0 {
		t.Fatalf("an unchanged labelled child sent %s", testenv.String(got))
	}

	// Prune: the two no longer wanted, one DELETE each.
	before = e.counter.Snapshot()
	n, err := ensure.Prune(ctx, e.c, owner, &rbacv1.ClusterRoleList{}, []client.ObjectKey{{Name: "s1-read"}})
	if err != nil || n != 2 {
		t.Fatalf("prune: %d %v", n, err)
	}
	if got := e.counter.Since(before); testenv.Total(got, "DELETE 200") != 2 || writes(got) != 2 {
		t.Fatalf("pruning two cluster-scoped children took %s, want two DELETEs", testenv.String(got))
	}
	waitCache(t, "the pruned ClusterRoles gone", func() bool {
		return apierrors.IsNotFound(e.c.Get(ctx, client.ObjectKey{Name: "s1-old"}, &rbacv1.ClusterRole{})) &&
			apierrors.IsNotFound(e.c.Get(ctx, client.ObjectKey{Name: "s1-older"}, &rbacv1.ClusterRole{}))
	})

	// The owner's events map back to it.
	var cr rbacv1.ClusterRole
	if err := e.c.Get(ctx, client.ObjectKey{Name: "s1-read"}, &cr); err != nil {
		t.Fatal(err)
	}
	reqs := ensure.LabelledOwner(e.c.Scheme(), &platformv1alpha1.Sandbox{})(ctx, &cr)
	if len(reqs) != 1 || reqs[0].Namespace != "default" || reqs[0].Name != "s1" {
		t.Fatalf("LabelledOwner: %v", reqs)
	}
	if reqs := ensure.LabelledOwner(e.c.Scheme(), &platformv1alpha1.Project{})(ctx, &cr); len(reqs) != 0 {
		t.Fatalf("LabelledOwner for another owner kind: %v", reqs)
	}

	// Finalize while the owner lives: the finalizer, once.
	live := &platformv1alpha1.Sandbox{}
	waitCache(t, "the sandbox", func() bool { return e.c.Get(ctx, client.ObjectKeyFromObject(owner), live) == nil })
	children := []client.ObjectList{&rbacv1.ClusterRoleList{}}
	before = e.counter.Snapshot()
	if deleting, err := ensure.Finalize(ctx, e.c, live, cleanup, children); err != nil || deleting {
		t.Fatalf("finalize (alive): %v %v", deleting, err)
	}
	if got := e.counter.Since(before); writes(got) != 1 || testenv.Total(got, "PATCH 200") != 1 {
		t.Fatalf("adding the finalizer took %s, want one apply", testenv.String(got))
	}
	e.synced(t, ctx, live)
	before = e.counter.Snapshot()
	if deleting, err := ensure.Finalize(ctx, e.c, live, cleanup, children); err != nil || deleting {
		t.Fatalf("finalize (alive, again): %v %v", deleting, err)
	}
	if got := e.counter.Since(before); len(got) != 0 {
		t.Fatalf("finalize with the finalizer in place sent %s", testenv.String(got))
	}

	// The owner is deleted: its child goes, then the finalizer.
	if err := e.direct.Delete(ctx, owner); err != nil {
		t.Fatal(err)
	}
	waitCache(t, "the sandbox being deleted", func() bool {
		return e.c.Get(ctx, client.ObjectKeyFromObject(owner), live) == nil && live.DeletionTimestamp != nil
	})
	before = e.counter.Snapshot()
	if deleting, err := ensure.Finalize(ctx, e.c, live, cleanup, children); err != nil || !deleting {
		t.Fatalf("finalize (deleting): %v %v", deleting, err)
	}
	if got := e.counter.Since(before); writes(got) != 2 || testenv.Total(got, "DELETE 200") != 1 || testenv.Total(got, "PATCH 200") != 1 {
		t.Fatalf("finalizing took %s, want one DELETE and one patch", testenv.String(got))
	}
	if err := e.direct.Get(ctx, client.ObjectKeyFromObject(owner), &platformv1alpha1.Sandbox{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the sandbox is still there: %v", err)
	}
	var left rbacv1.ClusterRoleList
	if err := e.direct.List(ctx, &left); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range left.Items {
		if strings.HasPrefix(r.Name, "s1-") || strings.HasPrefix(r.Name, "s2-") || r.Name == "loose" {
			names = append(names, r.Name)
		}
	}
	if strings.Join(names, ",") != "loose,s2-read" {
		t.Fatalf("ClusterRoles left: %v, want loose and s2-read (another owner's)", names)
	}
}

// TestFinalizeWaitsForChildrenWithFinalizers: a child held by a finalizer
// of its own keeps the owner's finalizer until it is gone.
func TestFinalizeWaitsForChildrenWithFinalizers(t *testing.T) {
	ctx := context.Background()
	now := metav1.Now()
	owner := &platformv1alpha1.Sandbox{ObjectMeta: metav1.ObjectMeta{Name: "s1", Namespace: "default", UID: "uid-s1",
		Finalizers: []string{cleanup}, DeletionTimestamp: &now}}
	held := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{"other.example.com/hold"},
		Labels: map[string]string{ensure.OwnerUIDLabel: "uid-s1"}}}
	c := fake.NewClientBuilder().WithScheme(fakeScheme(t)).WithObjects(owner, held).Build()
	children := []client.ObjectList{&rbacv1.ClusterRoleList{}}
	if err := c.Get(ctx, client.ObjectKeyFromObject(owner), owner); err != nil {
		t.Fatal(err)
	}
	deleting, err := ensure.Finalize(ctx, c, owner, cleanup, children)
	if !deleting || !errors.Is(err, ensure.ErrChildrenRemain) {
		t.Fatalf("with a held child: %v %v, want ErrChildrenRemain", deleting, err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(owner), owner); err != nil || !slices.Contains(owner.Finalizers, cleanup) {
		t.Fatalf("the owner lost its finalizer early: %v %v", owner.Finalizers, err)
	}
	// The other finalizer goes; the child with it.
	if err := c.Get(ctx, client.ObjectKeyFromObject(held), held); err != nil {
		t.Fatal(err)
	}
	held.Finalizers = nil
	if err := c.Update(ctx, held); err != nil {
		t.Fatal(err)
	}
	if deleting, err := ensure.Finalize(ctx, c, owner, cleanup, children); err != nil || !deleting {
		t.Fatalf("once the child is gone: %v %v", deleting, err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(owner), owner); !apierrors.IsNotFound(err) {
		t.Fatalf("the owner should be gone with its last finalizer: %v", err)
	}
}

// TestOwnerLabelsOnFakeClient: the same calls in a reconciler's unit test.
func TestOwnerLabelsOnFakeClient(t *testing.T) {
	ctx := context.Background()
	owner := &platformv1alpha1.Sandbox{ObjectMeta: metav1.ObjectMeta{Name: "s1", Namespace: "default", UID: "uid-s1"}}
	c := fake.NewClientBuilder().WithScheme(fakeScheme(t)).WithObjects(owner).Build()
	for _, name := range []string{"keep", "drop"} {
		if _, _, err := rbacv1ensure.EnsureClusterRole(ctx, c, owner, rbacv1ac.ClusterRole(name), ensure.OwnerLabels()); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := ensure.Prune(ctx, c, owner, &rbacv1.ClusterRoleList{}, []client.ObjectKey{{Name: "keep"}}); err != nil || n != 1 {
		t.Fatalf("prune: %d %v", n, err)
	}
	children := []client.ObjectList{&rbacv1.ClusterRoleList{}}
	if deleting, err := ensure.Finalize(ctx, c, owner, cleanup, children); err != nil || deleting {
		t.Fatalf("finalize (alive): %v %v", deleting, err)
	}
	if err := c.Delete(ctx, owner); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(owner), owner); err != nil || owner.DeletionTimestamp == nil {
		t.Fatalf("the owner should be held by its finalizer: %v", err)
	}
	if deleting, err := ensure.Finalize(ctx, c, owner, cleanup, children); err != nil || !deleting {
		t.Fatalf("finalize (deleting): %v %v", deleting, err)
	}
	var left rbacv1.ClusterRoleList
	if err := c.List(ctx, &left); err != nil || len(left.Items) != 0 {
		t.Fatalf("left: %v %v", err, left.Items)
	}
}

// TestFinalizeWithoutOurFinalizer: an owner being deleted that never
// carried our finalizer — held by another writer's — still has its
// children deleted by Finalize: the labelled cluster-scoped child, which
// the garbage collector would never collect, and the child that carries
// its owner reference in its namespace, which the garbage collector would
// collect only once the owner is gone. Two DELETEs and no patch; another
// owner's children, unowned objects and the other writer's finalizer are
// untouched; a second call sends nothing.
func TestFinalizeWithoutOurFinalizer(t *testing.T) {
	e, ctx := setup(t)
	sandbox := func(name string, finalizers ...string) *platformv1alpha1.Sandbox {
		s := &platformv1alpha1.Sandbox{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Finalizers: finalizers},
			Spec: platformv1alpha1.SandboxSpec{PodTemplate: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}}}
		if err := e.direct.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	const hold = "other.example.com/hold"
	held, other := sandbox("held", hold), sandbox("other")
	role := func(name string) *rbacv1ac.ClusterRoleApplyConfiguration {
		return rbacv1ac.ClusterRole(name).WithRules(rbacv1ac.PolicyRule().WithAPIGroups("").WithResources("nodes").WithVerbs("get"))
	}
	var children []client.Object
	for _, ensureChild := range []func() (client.Object, ensure.Result, error){
		func() (client.Object, ensure.Result, error) {
			return rbacv1ensure.EnsureClusterRole(ctx, e.c, held, role("held-read"), ensure.OwnerLabels())
		},
		func() (client.Object, ensure.Result, error) {
			return corev1ensure.EnsureConfigMap(ctx, e.c, held, corev1ac.ConfigMap("held-config", "default"))
		},
		func() (client.Object, ensure.Result, error) {
			return rbacv1ensure.EnsureClusterRole(ctx, e.c, other, role("other-read"), ensure.OwnerLabels())
		},
		func() (client.Object, ensure.Result, error) {
			return corev1ensure.EnsureConfigMap(ctx, e.c, other, corev1ac.ConfigMap("other-config", "default"))
		},
	} {
		obj, _, err := ensureChild()
		if err != nil {
			t.Fatal(err)
		}
		children = append(children, obj)
	}
	for _, loose := range []client.Object{
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "loose-read"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "loose-config", Namespace: "default"}},
	} {
		if err := e.direct.Create(ctx, loose); err != nil {
			t.Fatal(err)
		}
		children = append(children, loose)
	}
	for _, obj := range children {
		e.synced(t, ctx, obj)
	}
	if err := e.direct.Delete(ctx, held); err != nil {
		t.Fatal(err)
	}
	live := &platformv1alpha1.Sandbox{}
	waitCache(t, "the sandbox being deleted", func() bool {
		return e.c.Get(ctx, client.ObjectKeyFromObject(held), live) == nil && live.DeletionTimestamp != nil
	})
	lists := []client.ObjectList{&rbacv1.ClusterRoleList{}, &corev1.ConfigMapList{}}
	before := e.counter.Snapshot()
	if deleting, err := ensure.Finalize(ctx, e.c, live, cleanup, lists); err != nil || !deleting {
		t.Fatalf("finalize: %v %v", deleting, err)
	}
	if got := e.counter.Since(before); writes(got) != 2 || testenv.Total(got, "DELETE 200") != 2 {
		t.Fatalf("finalizing an owner without our finalizer took %s, want two DELETEs (its children) and no patch", testenv.String(got))
	}
	if err := e.direct.Get(ctx, client.ObjectKey{Name: "held-read"}, &rbacv1.ClusterRole{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the labelled child is still there: %v", err)
	}
	if err := e.direct.Get(ctx, client.ObjectKey{Namespace: "default", Name: "held-config"}, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the referenced child is still there: %v", err)
	}
	for _, key := range []client.ObjectKey{{Name: "other-read"}, {Name: "loose-read"}} {
		if err := e.direct.Get(ctx, key, &rbacv1.ClusterRole{}); err != nil {
			t.Errorf("ClusterRole %s, not the owner's, was deleted: %v", key.Name, err)
		}
	}
	for _, name := range []string{"other-config", "loose-config"} {
		if err := e.direct.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, &corev1.ConfigMap{}); err != nil {
			t.Errorf("ConfigMap %s, not the owner's, was deleted: %v", name, err)
		}
	}
	var still platformv1alpha1.Sandbox
	if err := e.direct.Get(ctx, client.ObjectKeyFromObject(held), &still); err != nil || !slices.Equal(still.Finalizers, []string{hold}) {
		t.Fatalf("the owner: %v %v, want it held by the other writer's finalizer alone", err, still.Finalizers)
	}

	// The next reconcile, once the cache shows the children gone: nothing.
	waitCache(t, "the children gone", func() bool {
		return apierrors.IsNotFound(e.c.Get(ctx, client.ObjectKey{Name: "held-read"}, &rbacv1.ClusterRole{})) &&
			apierrors.IsNotFound(e.c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "held-config"}, &corev1.ConfigMap{}))
	})
	before = e.counter.Snapshot()
	if deleting, err := ensure.Finalize(ctx, e.c, live, cleanup, lists); err != nil || !deleting {
		t.Fatalf("finalize again: %v %v", deleting, err)
	}
	if got := e.counter.Since(before); len(got) != 0 {
		t.Fatalf("finalizing again sent %s, want none", testenv.String(got))
	}
}

// TestFinalizeWithoutOurFinalizerOnFakeClient: the same in a reconciler's
// unit test — the fake client keeps an object with a deletionTimestamp
// while a finalizer holds it. Two DELETEs, no other write.
func TestFinalizeWithoutOurFinalizerOnFakeClient(t *testing.T) {
	ctx := context.Background()
	const hold = "other.example.com/hold"
	now := metav1.Now()
	owner := &platformv1alpha1.Sandbox{ObjectMeta: metav1.ObjectMeta{Name: "held", Namespace: "default", UID: "uid-held",
		Finalizers: []string{hold}, DeletionTimestamp: &now}}
	controller := true
	ref := func(uid types.UID) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "platform.ssagen.dev/v1alpha1", Kind: "Sandbox", Name: "n", UID: uid, Controller: &controller}}
	}
	labelled := func(uid types.UID) map[string]string { return map[string]string{ensure.OwnerUIDLabel: string(uid)} }
	objs := []client.Object{owner,
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "held-read", Labels: labelled("uid-held")}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held-config", Namespace: "default", OwnerReferences: ref("uid-held")}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "other-read", Labels: labelled("uid-other")}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other-config", Namespace: "default", OwnerReferences: ref("uid-other")}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "loose-read"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "loose-config", Namespace: "default"}},
	}
	b, others := countWrites(fake.NewClientBuilder().WithScheme(fakeScheme(t)).WithObjects(objs...))
	var deletes atomic.Int64
	c := interceptor.NewClient(b.Build(), interceptor.Funcs{Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
		deletes.Add(1)
		return c.Delete(ctx, obj, opts...)
	}})
	if err := c.Get(ctx, client.ObjectKeyFromObject(owner), owner); err != nil {
		t.Fatal(err)
	}
	if deleting, err := ensure.Finalize(ctx, c, owner, cleanup, []client.ObjectList{&rbacv1.ClusterRoleList{}, &corev1.ConfigMapList{}}); err != nil || !deleting {
		t.Fatalf("finalize: %v %v", deleting, err)
	}
	if deletes.Load() != 2 || others.Load() != 0 {
		t.Fatalf("finalize sent %d DELETEs and %d other writes, want 2 DELETEs and nothing else", deletes.Load(), others.Load())
	}
	var roles rbacv1.ClusterRoleList
	var configs corev1.ConfigMapList
	if err := c.List(ctx, &roles); err != nil {
		t.Fatal(err)
	}
	if err := c.List(ctx, &configs); err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, r := range roles.Items {
		left = append(left, r.Name)
	}
	for _, cm := range configs.Items {
		left = append(left, cm.Name)
	}
	slices.Sort(left)
	if want := []string{"loose-config", "loose-read", "other-config", "other-read"}; !slices.Equal(left, want) {
		t.Fatalf("left %v, want %v: another owner's and unowned objects only", left, want)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(owner), owner); err != nil || !slices.Equal(owner.Finalizers, []string{hold}) {
		t.Fatalf("the owner: %v %v, want it held by the other writer's finalizer alone", err, owner.Finalizers)
	}
}
