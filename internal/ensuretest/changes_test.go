package ensure_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ssagen/ssagen/ensure"
	"github.com/ssagen/ssagen/ensure/ensuretest"
	corev1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
)

// TestApplyChanges: the code of a controller that read a Service from the
// cache and sets its label and controller reference (agent-sandbox's
// adoption), written by ApplyServiceChanges instead of an Update.
func TestApplyChanges(t *testing.T) {
	e, ctx := setup(t)
	const manager = "ctl-service-fields"
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "edge", Namespace: "default"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: map[string]string{"app": "edge"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	if err := e.direct.Create(ctx, svc, client.FieldOwner("creator")); err != nil {
		t.Fatal(err)
	}
	patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"other":"1"}}}`))
	if err := e.direct.Patch(ctx, svc, patch, client.FieldOwner("other")); err != nil {
		t.Fatal(err)
	}
	e.synced(t, ctx, svc)
	// reconcile is the controller's code: read, copy, change, write.
	reconcile := func(label string, drop bool) (*corev1.Service, ensure.Result, int) {
		t.Helper()
		cur := &corev1.Service{}
		if err := e.c.Get(ctx, client.ObjectKeyFromObject(svc), cur); err != nil {
			t.Fatal(err)
		}
		before := cur.DeepCopy()
		if drop {
			delete(cur.Labels, "sandbox")
		} else {
			cur.Labels["sandbox"] = label
		}
		if err := controllerutil.SetControllerReference(e.owner, cur, e.c.Scheme()); err != nil {
			t.Fatal(err)
		}
		mark := e.counter.Snapshot()
		got, res, err := corev1ensure.ApplyServiceChanges(ctx, e.client(), before, cur, ensure.FieldManager(manager))
		if err != nil {
			t.Fatal(err)
		}
		if got != cur {
			t.Fatal("the helper returns after itself")
		}
		if res != ensure.Skipped {
			e.synced(t, ctx, cur)
		}
		return cur, res, writes(e.counter.Since(mark))
	}

	live, res, n := reconcile("a", false)
	if res != ensure.Configured || n != 1 {
		t.Fatalf("first: %s with %d writes, want one apply", res, n)
	}
	ours := entry(live, manager, metav1.ManagedFieldsOperationApply, "")
	if ours == nil || !strings.Contains(string(ours.FieldsV1.Raw), `"f:sandbox"`) || !strings.Contains(string(ours.FieldsV1.Raw), "f:ownerReferences") ||
		strings.Contains(string(ours.FieldsV1.Raw), "f:spec") || strings.Contains(string(ours.FieldsV1.Raw), `"f:other"`) {
		t.Fatalf("our entry %v: want the label and the reference only", ours)
	}
	if live.Labels["other"] != "1" || live.Spec.Selector["app"] != "edge" || entry(live, "creator", metav1.ManagedFieldsOperationUpdate, "") == nil {
		t.Fatalf("another writer's label or the creator's spec changed: %v %v %v", live.Labels, live.Spec.Selector, managers(live))
	}
	if live.GetObjectKind().GroupVersionKind().Kind != "" {
		t.Fatal("the typed answer keeps a kind an Update would not")
	}

	if _, res, n := reconcile("a", false); res != ensure.Skipped || n != 0 {
		t.Fatalf("unchanged: %s with %d writes, want nothing sent", res, n)
	}
	live, res, n = reconcile("b", false)
	if res != ensure.Configured || n != 1 || live.Labels["sandbox"] != "b" || len(live.OwnerReferences) != 1 {
		t.Fatalf("a changed label: %s, %d writes, labels %v, references %v; want one apply keeping the reference", res, n, live.Labels, live.OwnerReferences)
	}
	live, res, n = reconcile("", true)
	if _, kept := live.Labels["sandbox"]; res != ensure.Configured || n != 1 || kept || live.Labels["other"] != "1" {
		t.Fatalf("our label removed by the code: %s, %d writes, labels %v; want it pruned, the other kept", res, n, live.Labels)
	}
}

// TestApplyChangesOnFakeClient: with managedFields (the kit returns them)
// the changes are applied; without (a plain fake client) the code's
// Update is sent, and the object ends the same.
func TestApplyChangesOnFakeClient(t *testing.T) {
	scheme := fakeScheme(t)
	owner := fakeOwner()
	obj := func() *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "default", Labels: map[string]string{"other": "1"}}, Data: map[string]string{"k": "v"}}
	}
	kit := ensuretest.NewClient(scheme, ensuretest.WithObjects(owner))
	plain := fake.NewClientBuilder().WithScheme(scheme).WithObjects(owner).Build()
	for name, c := range map[string]client.Client{"kit": kit, "plain": plain} {
		if err := c.Create(t.Context(), obj(), client.FieldOwner("creator")); err != nil {
			t.Fatal(err)
		}
		cur := &corev1.ConfigMap{}
		if err := c.Get(t.Context(), client.ObjectKey{Namespace: "default", Name: "cm"}, cur); err != nil {
			t.Fatal(err)
		}
		before := cur.DeepCopy()
		cur.Labels["sandbox"] = "a"
		if err := controllerutil.SetControllerReference(owner, cur, scheme); err != nil {
			t.Fatal(err)
		}
		if _, _, err := corev1ensure.ApplyConfigMapChanges(t.Context(), c, before, cur, ensure.FieldManager("ctl")); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := &corev1.ConfigMap{}
		if err := c.Get(t.Context(), client.ObjectKey{Namespace: "default", Name: "cm"}, got); err != nil {
			t.Fatal(err)
		}
		if got.Labels["sandbox"] != "a" || got.Labels["other"] != "1" || got.Data["k"] != "v" || len(got.OwnerReferences) != 1 {
			t.Fatalf("%s: %v %v %v", name, got.Labels, got.Data, got.OwnerReferences)
		}
	}
	if n, u := kit.Count(0, "apply", "ConfigMap"), kit.Count(0, "update", "ConfigMap"); n != 1 || u != 0 {
		t.Errorf("the kit saw %d applies and %d updates, want one apply", n, u)
	}
}
