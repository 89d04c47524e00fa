package ensure

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
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
	// Numbers compare as JSON writes them, whatever Go type the intent
	// holds them in.
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	for _, c := range []struct {
		port any
		ok   bool
	}{{int64(80), true}, {int32(80), true}, {float64(80), true}, {int64(81), false}, {"80", false}} {
		want := map[string]any{"spec": map[string]any{"ports": []any{map[string]any{"name": "http", "port": c.port}}}}
		if got := satisfies(svc, want); got != c.ok {
			t.Errorf("port %T(%v): satisfies = %v, want %v", c.port, c.port, got, c.ok)
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
	if ce.Fields[0] != (FieldConflict{Field: ".spec.replicas", Manager: "autoscaler", Update: true, APIVersion: "apps/v1"}) ||
		ce.Fields[1] != (FieldConflict{Field: ".spec.paused", Manager: "kubectl-edit", Subresource: "scale"}) {
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
// managedFields entry is the one recorded at apply time and the live
// object holds the intent's values, the cache trusts it; the same entry
// over other values (another writer under the same field manager, within
// the same second: a new leader), a changed entry, another UID or no
// entry is not fresh.
func TestFreshByManagedFields(t *testing.T) {
	entry := func(fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: "m", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1",
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
	}
	live := func(uid, value string, entries ...metav1.ManagedFieldsEntry) *corev1.ConfigMap {
		cm := &corev1.ConfigMap{}
		cm.UID, cm.ResourceVersion, cm.ManagedFields = types.UID(uid), "2", entries
		cm.Data = map[string]string{"a": value}
		cm.APIVersion, cm.Kind = "v1", "ConfigMap" // as decide leaves the live object
		return cm
	}
	desired := &intent{u: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"a": "b"}}}}
	k := cacheKey{gvk: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, name: "x", manager: "m"}
	ours := `{"f:data":{"f:a":{}}}`
	applied := live("u1", "b", entry(ours))
	o := newOptions(nil, nil)
	for _, tc := range []struct {
		name string
		live *corev1.ConfigMap
		want bool
	}{
		{"same entry, status churn", live("u1", "b", entry(ours), metav1.ManagedFieldsEntry{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate}), true},
		{"same entry, other values under our manager", live("u1", "other", entry(ours)), false},
		{"entry changed", live("u1", "other", entry(`{"f:data":{}}`)), false},
		{"recreated", live("u2", "other", entry(ours)), false},
		{"managedFields stripped", live("u1", "other"), false},
	} {
		c := newSkipCache("", defaultTTL)
		c.record(k, "h", objAt("1", "u1"), ownedHash(applied, "m", ""), "")
		if got := c.fresh(k, "h", tc.live, desired, o, stripped(tc.live)); got != tc.want {
			t.Errorf("%s: fresh = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// mergingClient answers a patch the way client-go's decoder does: it
// unmarshals the answer into the object it is given, which merges into
// maps and keeps fields the answer lacks.
type mergingClient struct {
	client.Client
	answer string
	got    client.Object
}

func (m *mergingClient) Patch(_ context.Context, obj client.Object, patch client.Patch, _ ...client.PatchOption) error {
	m.got = obj.DeepCopyObject().(client.Object)
	return json.Unmarshal([]byte(m.answer), obj)
}

// TestSendDecodesIntoZeroedObject: the answer to an apply replaces the
// cached copy Ensure read; nothing of the old copy survives, and the
// request is addressed by name, namespace and kind alone.
func TestSendDecodesIntoZeroedObject(t *testing.T) {
	cm := &corev1.ConfigMap{Data: map[string]string{"old": "x"}}
	cm.Name, cm.Namespace, cm.ResourceVersion = "n", "ns", "6"
	cm.Labels = map[string]string{"stale": "yes"}
	c := &mergingClient{answer: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n","namespace":"ns","resourceVersion":"7"},"data":{"new":"y"}}`}
	gvk := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	p := &plan{in: &intent{gvk: gvk}, at: mainResource, body: []byte(`{}`)}
	if err := send(context.Background(), c, cm, p, newOptions(nil, nil)); err != nil {
		t.Fatal(err)
	}
	if cm.Labels != nil || cm.Data["old"] != "" || cm.Data["new"] != "y" || cm.ResourceVersion != "7" {
		t.Errorf("decoded %+v", cm)
	}
	sent := c.got.(*corev1.ConfigMap)
	if sent.Name != "n" || sent.Namespace != "ns" || sent.ResourceVersion != "" || sent.Labels != nil || sent.Data != nil || sent.Kind != "ConfigMap" {
		t.Errorf("the patched object carried more than its address: %+v", sent)
	}
}

// TestScopeFallbackIsNotRemembered: without a REST mapping, the scope is
// the intent's (a namespace or not), asked anew each time; a mapper's
// answer wins over the intent and is remembered by the Client that asked,
// and by no other; a plain client remembers nothing.
func TestScopeFallbackIsNotRemembered(t *testing.T) {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	gvk := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	empty := meta.NewDefaultRESTMapper(nil)
	c := NewClient(fake.NewClientBuilder().WithScheme(s).WithRESTMapper(empty).Build())
	for _, ns := range []bool{true, false, true} {
		got, err := isNamespaced(c, &corev1.ConfigMap{}, gvk, ns)
		if err != nil || got != ns {
			t.Fatalf("fallback with namespace=%v: %v %v", ns, got, err)
		}
	}
	if _, ok := knownScope(c, gvk); ok {
		t.Fatal("a fallback answer was remembered")
	}
	root := meta.NewDefaultRESTMapper(nil)
	root.Add(gvk, meta.RESTScopeRoot) // says so, whatever the intent
	c = NewClient(fake.NewClientBuilder().WithScheme(s).WithRESTMapper(root).Build())
	if got, err := isNamespaced(c, &corev1.ConfigMap{}, gvk, true); err != nil || got {
		t.Fatalf("mapper says cluster-scoped: %v %v", got, err)
	}
	if v, ok := knownScope(c, gvk); !ok || v {
		t.Fatalf("the mapper's answer is not remembered: %v %v", v, ok)
	}
	// Another client, over the empty mapper, still falls back.
	other := NewClient(fake.NewClientBuilder().WithScheme(s).WithRESTMapper(empty).Build())
	if got, _ := isNamespaced(other, &corev1.ConfigMap{}, gvk, true); !got {
		t.Fatal("the other client's answer leaked")
	}
	// A plain client asks its mapper every time and keeps nothing.
	plain := fake.NewClientBuilder().WithScheme(s).WithRESTMapper(root).Build()
	if got, _ := isNamespaced(plain, &corev1.ConfigMap{}, gvk, true); got {
		t.Fatal("plain client: the mapper's answer was not taken")
	}
	if _, ok := knownScope(plain, gvk); ok {
		t.Fatal("a plain client remembered a scope")
	}
}

// TestPredicateForgetsInItsOwnClient: a delete event drops the object from
// the memory of the Client the predicate was built on, and from no other
// client's; a predicate built on a plain client forgets nothing and passes
// the event.
func TestPredicateForgetsInItsOwnClient(t *testing.T) {
	k := cacheKey{gvk: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, namespace: "n", name: "x", manager: "m"}
	other := k
	other.name = "y"
	deleted := event.DeleteEvent{Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "x"}}}
	base := fake.NewClientBuilder().Build()
	mine, theirs := NewClient(base, FieldManager("m")), NewClient(base, FieldManager("m"))
	for _, c := range []*Client{mine, theirs} {
		c.cache.record(k, "h", objAt("1", "u1"), 0, "")
		c.cache.record(other, "h", objAt("1", "u1"), 0, "")
	}
	if !OwnedFieldsChanged(mine, typed.DeducedParseableType).Delete(deleted) {
		t.Fatal("a delete event was dropped")
	}
	if mine.cache.seen(k) || !mine.cache.seen(other) {
		t.Errorf("own client after the delete: x %v y %v, want x gone, y kept", mine.cache.seen(k), mine.cache.seen(other))
	}
	if !theirs.cache.seen(k) {
		t.Error("a predicate of another client cleared its memory")
	}
	if !OwnedFieldsChanged(base, typed.DeducedParseableType).Delete(deleted) {
		t.Error("a plain client's predicate dropped a delete")
	}
	if !theirs.cache.seen(k) {
		t.Error("a plain client's predicate cleared a Client's memory")
	}
}

// TestClientOptions: the field manager, TTL and metrics name are the
// client's; a call's own FieldManager wins over its client's.
func TestClientOptions(t *testing.T) {
	base := fake.NewClientBuilder().Build()
	if got := newOptions(base, nil).fieldManager; got != DefaultFieldManager {
		t.Errorf("plain client's manager %q", got)
	}
	c := NewClient(base, FieldManager("ctl"), CacheTTL(time.Minute), MetricsName("cluster-a"))
	if c.FieldManager() != "ctl" || c.cache.ttl != time.Minute || c.cache.name != "cluster-a" || metricsNameOf(c) != "cluster-a" || c.Unwrap() != base {
		t.Errorf("client %+v", c)
	}
	if got := newOptions(c, nil).fieldManager; got != "ctl" {
		t.Errorf("client's manager not used: %q", got)
	}
	if got := newOptions(c, []ApplyOption{FieldManager("call")}).fieldManager; got != "call" {
		t.Errorf("the call's manager lost: %q", got)
	}
	if got := newFinalizerOptions(c, nil).fieldManager; got != "ctl" {
		t.Errorf("finalizer manager %q", got)
	}
}

// TestOwnerErrorCauses: each owner error has a sentinel cause for
// errors.Is, and keeps its message.
func TestOwnerErrorCauses(t *testing.T) {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := rbacv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(s).Build()
	nsOwner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "o", Namespace: "a", UID: "u"}}
	child := func(kind, ns string) *intent {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind(kind)
		if kind == "ClusterRole" {
			u.SetAPIVersion("rbac.authorization.k8s.io/v1")
		}
		u.SetName("c")
		u.SetNamespace(ns)
		return &intent{gvk: u.GroupVersionKind(), name: "c", namespace: ns}
	}
	o := newOptions(nil, nil)
	cases := []struct {
		name  string
		err   error
		cause error
		msg   string
	}{
		{"cluster-scoped child", setOwner(c, nsOwner, child("ClusterRole", ""), &rbacv1.ClusterRole{}, o), ErrClusterScopedChild, "cannot own cluster-scoped ClusterRole c"},
		{"other namespace", setOwner(c, nsOwner, child("ConfigMap", "b"), &corev1.ConfigMap{}, o), ErrCrossNamespace, "in another namespace"},
		{"no UID", setOwner(c, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "o", Namespace: "a"}}, child("ConfigMap", "a"), &corev1.ConfigMap{}, o), ErrOwnerNoUID, "has no UID"},
		{"another controller", checkController(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", OwnerReferences: []metav1.OwnerReference{
			{Kind: "Project", Name: "p", UID: "other", Controller: ptr(true)}}}}, nsOwner), ErrAlreadyControlled, "c is already controlled by Project p"},
	}
	all := []error{ErrClusterScopedChild, ErrCrossNamespace, ErrOwnerNoUID, ErrAlreadyControlled}
	for _, tc := range cases {
		var oe *OwnerError
		if !errors.As(tc.err, &oe) {
			t.Errorf("%s: not an OwnerError: %v", tc.name, tc.err)
			continue
		}
		for _, sentinel := range all {
			if got := errors.Is(tc.err, sentinel); got != (sentinel == tc.cause) {
				t.Errorf("%s: errors.Is(%q) = %v", tc.name, sentinel, got)
			}
		}
		if !strings.HasPrefix(tc.err.Error(), "ensure: ") || !strings.Contains(tc.err.Error(), tc.msg) {
			t.Errorf("%s: message %q", tc.name, tc.err)
		}
	}
	if err := setOwner(c, nsOwner, child("ConfigMap", "a"), &corev1.ConfigMap{}, o); err != nil {
		t.Errorf("a valid owner: %v", err)
	}
}

// TestParseConflictCause: the manager, its subresource and whether it
// used Update, read from the API server's cause message in its own
// format, a manager name with quotes and spaces included.
func TestParseConflictCause(t *testing.T) {
	for msg, want := range map[string]FieldConflict{
		`conflict with "kubectl-client-side-apply" using apps/v1`:                            {Manager: "kubectl-client-side-apply", Update: true, APIVersion: "apps/v1"},
		`conflict with "kubelet" with subresource "status" using v1 at 2026-11-25T05:00:00Z`: {Manager: "kubelet", Subresource: "status", Update: true, APIVersion: "v1"},
		`conflict with "other-controller"`:                                                   {Manager: "other-controller"},
		`conflict with "a \"quoted\" name with spaces" with subresource "scale"`:             {Manager: `a "quoted" name with spaces`, Subresource: "scale"},
		`something else`: {Manager: "something else"},
	} {
		if got := parseConflictCause(msg); got != want {
			t.Errorf("parseConflictCause(%q) = %+v, want %+v", msg, got, want)
		}
	}
}

// TestFightBackoffOverFiveMinutes: issue 50's bound with the defaults. A
// webhook rewrites the intent for five minutes while another writer
// churns the object, so a reconcile meets every end of the backoff: 5
// applies, at 0, 10, 30, 70 and 150 s (docs/ensure.md), where each of
// the other writer's changes would cost one without the backoff.
func TestFightBackoffOverFiveMinutes(t *testing.T) {
	o := newOptions(nil, nil)
	var at []time.Duration
	for now, n := time.Duration(0), 0; now < 5*time.Minute; now += o.fightBackoff(n) {
		at = append(at, now)
		n++
	}
	want := []time.Duration{0, 10 * time.Second, 30 * time.Second, 70 * time.Second, 150 * time.Second}
	if len(at) != len(want) {
		t.Fatalf("applies at %v over five minutes, want %v", at, want)
	}
	for i := range want {
		if at[i] != want[i] {
			t.Fatalf("applies at %v over five minutes, want %v", at, want)
		}
	}
}
