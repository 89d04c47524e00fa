package ensure

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
