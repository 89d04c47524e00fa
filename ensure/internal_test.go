package ensure

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// TestSatisfies covers the comparison used without a merge schema: every
// value of the intent must be in the live object; lists must match item by
// item, so an item another manager added is a doubt (apply again).
func TestSatisfies(t *testing.T) {
	live := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "n", Labels: map[string]string{"a": "1", "other": "x"},
			Finalizers: []string{"f1", "f2"}},
		Data: map[string]string{"k": "v", "theirs": "t"},
	}
	cases := []struct {
		name string
		want map[string]any
		ok   bool
	}{
		{"subset of maps", map[string]any{"metadata": map[string]any{"name": "c", "labels": map[string]any{"a": "1"}}, "data": map[string]any{"k": "v"}}, true},
		{"different value", map[string]any{"data": map[string]any{"k": "w"}}, false},
		{"missing key", map[string]any{"data": map[string]any{"new": "v"}}, false},
		{"equal list", map[string]any{"metadata": map[string]any{"finalizers": []any{"f1", "f2"}}}, true},
		{"list with an extra live item", map[string]any{"metadata": map[string]any{"finalizers": []any{"f1"}}}, false},
		{"type mismatch", map[string]any{"data": "v"}, false},
	}
	for _, c := range cases {
		if got := satisfies(live, c.want); got != c.ok {
			t.Errorf("%s: satisfies = %v, want %v", c.name, got, c.ok)
		}
	}
}

// TestAsConflict reads the fields and managers of the API server's 409.
func TestAsConflict(t *testing.T) {
	status := apierrors.NewApplyConflict([]metav1.StatusCause{
		{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "autoscaler" using apps/v1`, Field: ".spec.replicas"},
		{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "kubectl-edit" with subresource "scale"`, Field: ".spec.paused"},
	}, "Apply failed with 2 conflicts")
	ce := asConflict(status)
	if ce == nil || len(ce.Fields) != 2 {
		t.Fatalf("got %+v", ce)
	}
	if ce.Fields[0] != (FieldConflict{Field: ".spec.replicas", Manager: "autoscaler"}) || ce.Fields[1].Manager != "kubectl-edit" {
		t.Errorf("fields %+v", ce.Fields)
	}
	if !errors.Is(ce, status) {
		t.Error("the 409 is not wrapped")
	}
	other := apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, "c", errors.New("stale"))
	if asConflict(other) != nil {
		t.Error("an optimistic-locking 409 is not a field conflict")
	}
}

// TestFreshByManagedFields: when the object moved on but this manager's
// managedFields entry is the one recorded at apply time, the cache
// trusts it without comparing values; a changed entry (another write
// took or removed one of our fields), another UID or no entry falls back
// to the comparison.
func TestFreshByManagedFields(t *testing.T) {
	entry := func(fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: "m", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1",
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
	}
	live := func(uid string, entries ...metav1.ManagedFieldsEntry) *corev1.ConfigMap {
		cm := &corev1.ConfigMap{}
		cm.UID, cm.ResourceVersion, cm.ManagedFields = types.UID(uid), "2", entries
		cm.Data = map[string]string{"a": "other"} // not the intent: only the entry can make it fresh
		return cm
	}
	desired := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"a": "b"}}}
	k := cacheKey{gvk: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, name: "x", manager: "m"}
	applied := live("u1", entry(`{"f:data":{"f:a":{}}}`))
	o := newOptions(nil)
	for _, tc := range []struct {
		name string
		live *corev1.ConfigMap
		want bool
	}{
		{"same entry, status churn", live("u1", entry(`{"f:data":{"f:a":{}}}`), metav1.ManagedFieldsEntry{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate}), true},
		{"entry changed", live("u1", entry(`{"f:data":{}}`)), false},
		{"recreated", live("u2", entry(`{"f:data":{"f:a":{}}}`)), false},
		{"managedFields stripped", live("u1"), false},
	} {
		c := NewSkipCache()
		c.record(k, "h", "1", ownedHash(applied, "m", ""))
		if got := c.fresh(k, "h", tc.live, desired, o); got != tc.want {
			t.Errorf("%s: fresh = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSentDecodesIntoZeroedObject: the answer to an apply replaces the
// cached copy Ensure read; nothing of the old copy survives.
func TestSentDecodesIntoZeroedObject(t *testing.T) {
	cm := &corev1.ConfigMap{Data: map[string]string{"old": "x"}}
	cm.Labels = map[string]string{"stale": "yes"}
	a := &sent{into: cm}
	if err := a.UnmarshalJSON([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n","resourceVersion":"7"},"data":{"new":"y"}}`)); err != nil {
		t.Fatal(err)
	}
	if cm.Labels != nil || cm.Data["old"] != "" || cm.Data["new"] != "y" || cm.ResourceVersion != "7" {
		t.Errorf("decoded %+v", cm)
	}
}

// TestSentOnAZeroedValue: a client that zeroes the configuration before
// decoding into it (controller-runtime's fake client) must not panic;
// the answer is kept to decode afterwards.
func TestSentOnAZeroedValue(t *testing.T) {
	a := &sent{}
	b := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n","resourceVersion":"7"}}`)
	if err := a.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	b[0] = 'x' // the decoder's buffer may be reused: the answer is a copy
	if a.raw == nil || a.raw[0] != '{' {
		t.Fatalf("answer not kept: %q", a.raw)
	}
	var typedNil *corev1.ConfigMap
	a = &sent{into: typedNil}
	if err := a.UnmarshalJSON([]byte(`{}`)); err != nil || a.raw == nil {
		t.Fatalf("typed nil object: %v %q", err, a.raw)
	}
	// With an object, it is decoded there and marked so.
	cm := &corev1.ConfigMap{}
	answer := &sentAnswer{}
	a = &sent{into: cm, answer: answer}
	if err := a.UnmarshalJSON([]byte(`{"metadata":{"name":"n"}}`)); err != nil || cm.Name != "n" || !answer.decoded || a.raw != nil {
		t.Fatalf("decoded %+v answer %+v raw %q err %v", cm.ObjectMeta, answer, a.raw, err)
	}
}

// TestScopeFallbackIsNotRemembered: without a REST mapping, the scope is
// the intent's (a namespace or not), asked anew each time; a mapper's
// answer wins over the intent and is remembered under that mapper only.
func TestScopeFallbackIsNotRemembered(t *testing.T) {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	gvk := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	empty := meta.NewDefaultRESTMapper(nil)
	c := fake.NewClientBuilder().WithScheme(s).WithRESTMapper(empty).Build()
	for _, ns := range []bool{true, false, true} {
		got, err := isNamespaced(c, &corev1.ConfigMap{}, gvk, ns)
		if err != nil || got != ns {
			t.Fatalf("fallback with namespace=%v: %v %v", ns, got, err)
		}
	}
	if _, ok := scopes.Load(scopeKey{mapper: empty, gvk: gvk}); ok {
		t.Fatal("a fallback answer was remembered under the mapper")
	}
	root := meta.NewDefaultRESTMapper(nil)
	root.Add(gvk, meta.RESTScopeRoot) // says so, whatever the intent
	c = fake.NewClientBuilder().WithScheme(s).WithRESTMapper(root).Build()
	if got, err := isNamespaced(c, &corev1.ConfigMap{}, gvk, true); err != nil || got {
		t.Fatalf("mapper says cluster-scoped: %v %v", got, err)
	}
	if v, ok := scopes.Load(scopeKey{mapper: root, gvk: gvk}); !ok || v.(bool) {
		t.Fatalf("the mapper's answer is not remembered: %v %v", v, ok)
	}
	// The empty mapper still falls back.
	c = fake.NewClientBuilder().WithScheme(s).WithRESTMapper(empty).Build()
	if got, _ := isNamespaced(c, &corev1.ConfigMap{}, gvk, true); !got {
		t.Fatal("the other mapper's answer leaked")
	}
}
