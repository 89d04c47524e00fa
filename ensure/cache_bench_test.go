package ensure

import (
	"fmt"
	"runtime"
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
		c := NewSkipCache()
		gvk := schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"}
		for j := 0; j < n; j++ {
			k := cacheKey{gvk: gvk, namespace: fmt.Sprintf("project-%d", j), name: "project-member", manager: "kargo-controller"}
			c.record(k, "0123456789abcdef0123456789abcdef", fmt.Sprintf("%d", 100000+j), uint64(j+1))
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "bytes/object")
		runtime.KeepAlive(c)
	}
}

// BenchmarkIntentHash is the per-call cost of the intent hash of a small object.
func BenchmarkIntentHash(b *testing.B) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
		"metadata": map[string]any{"name": "project-member", "namespace": "project-1"},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "member"},
		"subjects": []any{map[string]any{"kind": "User", "name": "alice"}},
	}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_, _ = intentHash(u, "")
	}
}

func TestForgetObject(t *testing.T) {
	c := NewSkipCache()
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	c.record(cacheKey{gvk: gvk, namespace: "a", name: "x", manager: "m"}, "h", "1", 0)
	c.record(cacheKey{gvk: gvk, namespace: "a", name: "x", manager: "m", subresource: "status"}, "h", "1", 0)
	c.record(cacheKey{gvk: gvk, namespace: "a", name: "y", manager: "m"}, "h", "1", 0)
	c.ForgetObject("a", "x")
	if c.Len() != 1 {
		t.Fatalf("%d entries left, want only a/y", c.Len())
	}
}
