package ensure

import (
	rbacv1 "k8s.io/api/rbac/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"time"

	"fmt"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// BenchmarkSkipCacheMemory reports the heap one remembered object costs.
func BenchmarkSkipCacheMemory(b *testing.B) {
	const n = 100000
	var before, after runtime.MemStats
	for i := 0; i < b.N; i++ {
		runtime.GC()
		runtime.ReadMemStats(&before)
		c := newSkipCache("", defaultTTL)
		gvk := schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"}
		for j := 0; j < n; j++ {
			k := cacheKey{gvk: gvk, namespace: fmt.Sprintf("project-%d", j), name: "project-member", manager: "kargo-controller"}
			c.record(k, "0123456789abcdef0123456789abcdef", objAt(fmt.Sprintf("%d", 100000+j), "0b5a4f9e-7d3c-4b1a-9e2f-1c6d8a7b3e54"), uint64(j+1), "")
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "bytes/object")
		runtime.KeepAlive(c)
	}
}

// BenchmarkIntent is the per-call cost of an intent of a small object:
// encoding the configuration, setting the controller reference, hashing.
func BenchmarkIntent(b *testing.B) {
	ref := metav1.OwnerReference{APIVersion: "platform.ssagen.dev/v1alpha1", Kind: "Project", Name: "p", UID: "uid-p", Controller: ptr(true)}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		in, err := newIntent(rbacv1ac.RoleBinding("project-member", "project-1").
			WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup("rbac.authorization.k8s.io").WithKind("Role").WithName("member")).
			WithSubjects(rbacv1ac.Subject().WithKind("User").WithName("alice")))
		if err != nil {
			b.Fatal(err)
		}
		in.setController(ref)
		if _, _, err := in.seal(""); err != nil {
			b.Fatal(err)
		}
	}
}

func TestForgetObject(t *testing.T) {
	c := newSkipCache("", defaultTTL)
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	c.record(cacheKey{gvk: gvk, namespace: "a", name: "x", manager: "m"}, "h", objAt("1", "u1"), 0, "")
	c.record(cacheKey{gvk: gvk, namespace: "a", name: "x", manager: "m", subresource: "status"}, "h", objAt("1", "u1"), 0, "")
	c.record(cacheKey{gvk: gvk, namespace: "a", name: "y", manager: "m"}, "h", objAt("1", "u1"), 0, "")
	c.forgetObject("a", "x")
	if c.len() != 1 {
		t.Fatalf("%d entries left, want only a/y", c.len())
	}
}

// objAt is an object at resourceVersion rv with the given UID.
func objAt(rv, uid string) client.Object {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv, UID: types.UID(uid)}}
}

// TestEntriesExpire: entries not written for the TTL are dropped once the
// cache grows, so memory stays bounded when delete events are missed, and
// an expired entry never skips.
func TestEntriesExpire(t *testing.T) {
	c := newSkipCache("", time.Millisecond)
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	for i := 0; i < 1023; i++ {
		c.record(cacheKey{gvk: gvk, namespace: "a", name: fmt.Sprint(i), manager: "m"}, "h", objAt("1", "u"), 0, "")
	}
	k := cacheKey{gvk: gvk, namespace: "a", name: "0", manager: "m"}
	time.Sleep(5 * time.Millisecond)
	desired := &intent{u: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}}
	if c.fresh(k, "h", objAt("1", "u"), desired, newOptions(nil, nil), false) {
		t.Error("an expired entry skipped")
	}
	c.record(cacheKey{gvk: gvk, namespace: "a", name: "new", manager: "m"}, "h", objAt("1", "u"), 0, "")
	if c.len() != 1 {
		t.Fatalf("%d entries after the sweep, want only the new one", c.len())
	}
}

// TestEntryVouchesForItsUIDOnly: a namesake with another UID (recreated,
// or in another cluster behind the same cache) is not skipped.
func TestEntryVouchesForItsUIDOnly(t *testing.T) {
	c := newSkipCache("", defaultTTL)
	k := cacheKey{gvk: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, namespace: "a", name: "x", manager: "m"}
	c.record(k, "h", objAt("7", "uid-cluster-a"), 0, "")
	desired := &intent{u: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}}
	if !c.fresh(k, "h", objAt("7", "uid-cluster-a"), desired, newOptions(nil, nil), false) {
		t.Fatal("the same object at the same resourceVersion did not skip")
	}
	if c.fresh(k, "h", objAt("7", "uid-cluster-b"), desired, newOptions(nil, nil), false) {
		t.Error("a namesake with another UID and the same resourceVersion skipped")
	}
}

// BenchmarkFreshMovedOn is the decision for an object that moved on since
// our apply (another writer's status or fields) while our managedFields
// entry is as the API server answered it: the entry's hash and the walk
// of the intent's values in the live object, no typed merge.
func BenchmarkFreshMovedOn(b *testing.B) {
	rb := &rbacv1.RoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: "project-member", Namespace: "project-1", UID: "u1", ResourceVersion: "2", Labels: map[string]string{"theirs": "x"}},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "member"},
		Subjects:   []rbacv1.Subject{{Kind: "User", Name: "alice", APIGroup: "rbac.authorization.k8s.io"}},
	}
	rb.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "rbac.authorization.k8s.io/v1",
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:roleRef":{},"f:subjects":{}}`)}}}
	in, err := newIntent(rbacv1ac.RoleBinding("project-member", "project-1").
		WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup("rbac.authorization.k8s.io").WithKind("Role").WithName("member")).
		WithSubjects(rbacv1ac.Subject().WithKind("User").WithName("alice")))
	if err != nil {
		b.Fatal(err)
	}
	k := cacheKey{gvk: schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"}, namespace: "project-1", name: "project-member", manager: "m"}
	o := newOptions(nil, nil)
	c := newSkipCache("", defaultTTL)
	owned := ownedHash(rb, "m", "")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c.record(k, "h", objAt("1", "u1"), owned, "") // our apply answered at version 1
		if !c.fresh(k, "h", rb, in, o, false) {
			b.Fatal("not fresh")
		}
	}
}
