package ensure

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// meter is a custom resource with the shapes structured-merge-diff's
// reflection panics on.
type meter struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              meterSpec `json:"spec"`
}

type meterSpec struct {
	Max    *uint64           `json:"max,omitempty"`
	Limits []limit           `json:"limits,omitempty"`
	Counts map[string]uint32 `json:"counts,omitempty"`
	hidden uint64            //nolint:unused // not serialised: does not count
}

type limit struct {
	Name string `json:"name"`
	Max  uint64 `json:"max"`
}

func (m *meter) DeepCopyObject() runtime.Object { c := *m; return &c }

func TestReflectable(t *testing.T) {
	for _, c := range []struct {
		v    any
		want bool
	}{
		{&corev1.Pod{}, true}, // Quantity, Time, IntOrString marshal themselves
		{&appsv1.Deployment{}, true},
		{&meter{}, false},
		{&struct {
			A [2]string `json:"a"`
		}{}, false},
		{&struct {
			A any `json:"a"`
		}{}, false},
		{&struct {
			A uint64 `json:"-"`
			b uint64 //nolint:unused
		}{}, true},
	} {
		if got := reflectable(reflect.TypeOf(c.v)); got != c.want {
			t.Errorf("reflectable(%T) = %v, want %v", c.v, got, c.want)
		}
	}
}

// typedOf reads a uint64 through the unstructured form, and names the
// field of a value past MaxInt64 instead of panicking.
func TestTypedOfUint64(t *testing.T) {
	max := uint64(1 << 40)
	m := &meter{Spec: meterSpec{Max: &max, Limits: []limit{{Name: "a", Max: 3}}, Counts: map[string]uint32{"x": 1}}}
	tv, err := typedOf(typed.DeducedParseableType, m)
	if err != nil {
		t.Fatal(err)
	}
	spec := tv.AsValue().AsMap()
	s, _ := spec.Get("spec")
	got, _ := s.AsMap().Get("max")
	if got.AsInt() != 1<<40 {
		t.Fatalf("spec.max = %v", got.Unstructured())
	}

	m.Spec.Limits = append(m.Spec.Limits, limit{Name: "b", Max: math.MaxUint64})
	_, err = typedOf(typed.DeducedParseableType, m)
	var ve *ValueError
	if !errors.As(err, &ve) || ve.Field != ".spec.limits[1].max" {
		t.Fatalf("want a ValueError at .spec.limits[1].max, got %v", err)
	}
}

// A failed apply leaves the object it was handed with the name and
// namespace it was meant for, as a failed CreateOrUpdate leaves its
// object: error paths that name it (vet -fix keeps them) still can.
func TestFailedApplyKeepsName(t *testing.T) {
	ctx := context.Background()
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "other", UID: "uid-owner"}}
	c := NewClient(fake.NewClientBuilder().WithObjects(owner).Build())
	obj := &corev1.ConfigMap{}
	_, err := Apply(ctx, c, owner, corev1ac.ConfigMap("child", "default"), obj)
	if !errors.Is(err, ErrCrossNamespace) {
		t.Fatalf("apply with an owner in another namespace: %v, want ErrCrossNamespace", err)
	}
	if obj.Name != "child" || obj.Namespace != "default" {
		t.Fatalf("after the failed apply the object is %q/%q, want default/child", obj.Namespace, obj.Name)
	}
}
