package soak

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func ptr(s string) *string { return &s }

// TestModel: the ownership rules the soak's checks rely on.
func TestModel(t *testing.T) {
	o := NewObject()
	if !o.Apply("us", Fields{"data.a": "1", "data.b": "2"}) || !o.Exists {
		t.Fatal("an apply to an absent object creates it")
	}
	if o.WouldChange("us", Fields{"data.a": "1", "data.b": "2"}) {
		t.Fatal("the same apply again changes nothing")
	}
	o.Apply("them", Fields{"data.c": "3", "data.a": "1"}) // a shared value
	if got := o.Owners("data.a"); !slices.Equal(got, []string{"them", "us"}) {
		t.Fatalf("owners of a value applied the same by two managers: %v", got)
	}
	// We drop a and b: b goes, a stays with them.
	o.Apply("us", Fields{"data.d": "4"})
	if want := (Fields{"data.a": "1", "data.c": "3", "data.d": "4"}); len(Diff(want, o.Values())) != 0 {
		t.Fatalf("after dropping a shared and an own field: %v", Diff(want, o.Values()))
	}
	// An Update that changes our value takes it; one that writes the same
	// value takes nothing.
	if taken := o.Update("editor", map[string]*string{"data.d": ptr("x"), "data.c": ptr("3")}); !slices.Equal(taken, []string{"data.d"}) {
		t.Fatalf("taken %v", taken)
	}
	if got := o.OwnedBy("us"); len(got) != 0 {
		t.Fatalf("we still own %v", got)
	}
	// Our forced apply takes it back, and the editor's Update entry loses it.
	if !o.Apply("us", Fields{"data.d": "4"}) || !slices.Equal(o.Owners("data.d"), []string{"us"}) {
		t.Fatalf("forced apply: owners %v", o.Owners("data.d"))
	}
	// A field the webhook defaulted belongs to no one and stays.
	o.Default("metadata.annotations.d", "true")
	o.Apply("us", Fields{"data.e": "5"})
	if o.Values()["metadata.annotations.d"] != "true" || slices.Contains(o.Managers(), Webhook) {
		t.Fatalf("webhook default: %v, managers %v", o.Values(), o.Managers())
	}
	o.Delete()
	if o.Exists || len(o.Values()) != 0 {
		t.Fatal("a deleted object keeps fields")
	}
}

// TestModelFaults: the rules of the faults of issue 33 — a reset, a
// migration of former names, atomic lists and the status subresource.
func TestModelFaults(t *testing.T) {
	o := NewObject()
	o.Apply("us", Fields{"data.a": "1", "data.b": "2"})
	o.Apply("writer", Fields{"status.addresses[10.0.0.1]": ""})
	o.Reset()
	if got := o.Owners("data.a"); !slices.Equal(got, []string{BeforeFirstApply}) {
		t.Fatalf("after a reset data.a is owned by %v", got)
	}
	if got := o.Owners("status.addresses[10.0.0.1]"); len(got) != 0 {
		t.Fatalf("after a reset the status is owned by %v, want no one", got)
	}
	// Our apply of the same values is a change (ownership) and takes the
	// fields back, shared; a field we dropped stays with before-first-apply.
	if !o.Apply("us", Fields{"data.a": "1"}) || !slices.Equal(o.Owners("data.a"), []string{BeforeFirstApply, "us"}) {
		t.Fatalf("our apply after the reset: owners %v", o.Owners("data.a"))
	}
	if o.Values()["data.b"] != "2" {
		t.Fatal("a field held by before-first-apply was pruned")
	}
	// The release that follows makes them ours alone: dropped later, a
	// field is pruned; before-first-apply's others stay.
	if !o.Release("us") || !slices.Equal(o.Owners("data.a"), []string{"us"}) || o.Release("us") {
		t.Fatalf("the release: owners %v", o.Owners("data.a"))
	}
	if o.Apply("us", Fields{"data.c": "3"}); o.Values()["data.a"] != "" || o.Values()["data.b"] != "2" {
		t.Fatalf("after the release, dropping data.a: %v", o.Values())
	}
	// An apply of the object never gives up the status, and the status's
	// never the object's.
	o.Update("us-v0", map[string]*string{"status.addresses[10.0.0.1]": nil, "status.addresses[10.0.0.2]": ptr("")})
	if !o.Migrate([]string{"us-v0", "us-v1"}, "us") || !slices.Equal(o.Owners("status.addresses[10.0.0.2]"), []string{"us"}) {
		t.Fatalf("migration: owners %v", o.Owners("status.addresses[10.0.0.2]"))
	}
	o.Apply("us", Fields{"data.a": "1"})
	if o.Values()["status.addresses[10.0.0.2]"] != "" || !slices.Equal(o.Owners("status.addresses[10.0.0.2]"), []string{"us"}) {
		t.Fatalf("an apply of the object gave up the status: %v", o.Values())
	}
	// An atomic list: the same items are shared, others replace it whole.
	if !o.Apply("writer", Fields{"status.addresses[10.0.0.2]": ""}) || !slices.Equal(o.Owners("status.addresses[10.0.0.2]"), []string{"us", "writer"}) {
		t.Fatalf("the same list applied by another: owners %v", o.Owners("status.addresses[10.0.0.2]"))
	}
	o.Apply("writer", Fields{"status.addresses[10.0.0.3]": ""})
	if _, left := o.Values()["status.addresses[10.0.0.2]"]; left || !slices.Equal(o.Owners("status.addresses[10.0.0.3]"), []string{"writer"}) {
		t.Fatalf("another list replaces it: %v", o.Values())
	}
}

// TestLiveFields: live objects and managedFields in the model's paths.
func TestLiveFields(t *testing.T) {
	yes := true
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: "c", Labels: map[string]string{"app": "x"},
		OwnerReferences: []metav1.OwnerReference{{Kind: "Project", Name: "p", UID: "u1", Controller: &yes}},
		ManagedFields: []metav1.ManagedFieldsEntry{
			{Manager: "us", Operation: metav1.ManagedFieldsOperationApply, FieldsV1: &metav1.FieldsV1{Raw: []byte(
				`{"f:data":{"f:k":{}},"f:metadata":{"f:labels":{"f:app":{}},"f:ownerReferences":{"k:{\"uid\":\"u1\"}":{}}}}`)}},
			// What the API server leaves of a creator whose labels were all
			// taken: an empty labels node, which owns nothing.
			{Manager: "creator", Operation: metav1.ManagedFieldsOperationUpdate, FieldsV1: &metav1.FieldsV1{Raw: []byte(
				`{"f:data":{".":{},"f:p":{}},"f:metadata":{"f:labels":{}}}`)}},
		},
	}, Data: map[string]string{"k": "v", "p": "q"}}
	fs, err := Flatten(cm)
	if err != nil {
		t.Fatal(err)
	}
	want := Fields{"metadata.labels.app": "x", "data.k": "v", "data.p": "q",
		"metadata.ownerReferences[u1]": OwnerRefValue("Project", "p", true)}
	if d := Diff(want, fs); len(d) > 0 {
		t.Fatalf("flattened: %v", d)
	}
	ours, err := OwnedPaths(cm, "us")
	if err != nil {
		t.Fatal(err)
	}
	for p := range want {
		owned := slices.ContainsFunc(ours, func(o string) bool { return Covers(o, p) })
		if owned != (p != "data.p") {
			t.Errorf("us owns %s: %v (entry paths %v)", p, owned, ours)
		}
	}
	theirs, _ := OwnedPaths(cm, "creator")
	for p := range want {
		owned := slices.ContainsFunc(theirs, func(o string) bool { return Covers(o, p) })
		if owned != (p == "data.p") {
			t.Errorf("creator owns %s: %v (entry paths %v)", p, owned, theirs)
		}
	}
	if !Covers("status.addresses", "status.addresses[10.0.0.1]") || Covers("spec.listeners", "spec.listeners[http].port") {
		t.Error("only atomic lists own their items")
	}
}

// TestSchedule: a seed draws the same operations every time.
func TestSchedule(t *testing.T) {
	a, b := NewSchedule(7, 5), NewSchedule(7, 5)
	seen := map[Kind]bool{}
	for i := 0; i < 2000; i++ {
		x, y := a.Next(), b.Next()
		if x != y {
			t.Fatalf("operation %d: %v and %v", i+1, x, y)
		}
		seen[x.Kind] = true
	}
	if len(seen) != int(kinds) {
		t.Fatalf("2000 operations drew %d kinds of %d", len(seen), kinds)
	}
}
