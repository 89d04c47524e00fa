package ensure_test

import (
	"context"
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ssagen/ssagen/ensure"
	ac "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1"
	gen "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1/ensure"
	corev1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
)

const ourManager = "config-controller"

// managers lists the live object's managedFields as "manager/operation".
func managers(obj client.Object) []string {
	var out []string
	for _, m := range obj.GetManagedFields() {
		out = append(out, m.Manager+"/"+string(m.Operation))
	}
	return out
}

// liveLabels reads the object from the API server (not the cache).
func (e *env) liveLabels(t *testing.T, ctx context.Context, name string) (*corev1.ConfigMap, map[string]string) {
	t.Helper()
	var cm corev1.ConfigMap
	if err := e.direct.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, &cm); err != nil {
		t.Fatal(err)
	}
	return &cm, cm.Labels
}

// TestMigrationTakesOnlyOurs: after a restart (an empty skip cache), the
// first apply migrates what this controller wrote with Update, and
// nothing else: another operator's label (written with Update by
// "manager", the name of every Kubebuilder binary) and a person's label
// (kubectl client-side apply) survive our applies; our own label we
// stopped setting is pruned.
func TestMigrationTakesOnlyOurs(t *testing.T) {
	e, ctx := setup(t)

	t.Run("restart: other writers' Update fields survive, ours are pruned", func(t *testing.T) {
		// (a) Our controller, before it used apply: Create with its field manager.
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shared", Namespace: "default",
			Labels: map[string]string{"ours-old": "1", "ours-kept": "1"}}}
		if err := e.direct.Create(ctx, cm, client.FieldOwner(ourManager)); err != nil {
			t.Fatal(err)
		}
		// (b) Another operator adds its label with Update.
		cm.Labels["other-operator"] = "1"
		if err := e.direct.Update(ctx, cm, client.FieldOwner("manager")); err != nil {
			t.Fatal(err)
		}
		// (c) A person adds a label with kubectl apply (client-side: a merge patch).
		patch := []byte(`{"metadata":{"labels":{"person":"1"},"annotations":{"kubectl.kubernetes.io/last-applied-configuration":` +
			`"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"labels\":{\"person\":\"1\"},\"name\":\"shared\",\"namespace\":\"default\"}}\n"}}}`)
		if err := e.direct.Patch(ctx, cm, client.RawPatch(types.MergePatchType, patch), client.FieldOwner("kubectl-client-side-apply")); err != nil {
			t.Fatal(err)
		}
		e.synced(t, ctx, cm)
		_, before := e.liveLabels(t, ctx, "shared")
		for _, k := range []string{"ours-old", "ours-kept", "other-operator", "person"} {
			if before[k] != "1" {
				t.Fatalf("setup: label %s missing: %v", k, before)
			}
		}

		// (d) The controller restarts (empty skip cache) and ensures an
		// intent that keeps ours-kept and drops ours-old, twice.
		cache := e.client()
		desired := corev1ac.ConfigMap("shared", "default").WithLabels(map[string]string{"ours-kept": "1"})
		for i := 0; i < 2; i++ {
			obj, _, err := corev1ensure.EnsureConfigMap(ctx, cache, e.owner, desired, ensure.FieldManager(ourManager))
			if err != nil {
				t.Fatalf("ensure %d: %v", i, err)
			}
			e.synced(t, ctx, obj)
		}
		// And once more after another restart.
		obj, _, err := corev1ensure.EnsureConfigMap(ctx, e.c, e.owner, desired, ensure.FieldManager(ourManager))
		if err != nil {
			t.Fatal(err)
		}
		e.synced(t, ctx, obj)

		live, labels := e.liveLabels(t, ctx, "shared")
		if labels["other-operator"] != "1" {
			t.Errorf("another operator's label (Update by \"manager\") was deleted: %v", labels)
		}
		if labels["person"] != "1" {
			t.Errorf("a person's label (kubectl client-side apply) was deleted: %v", labels)
		}
		if labels["ours-kept"] != "1" {
			t.Errorf("our label is gone: %v", labels)
		}
		if _, ok := labels["ours-old"]; ok {
			t.Errorf("the label we stopped setting survived the migration: %v", labels)
		}
		if _, ok := live.Annotations["kubectl.kubernetes.io/last-applied-configuration"]; !ok {
			t.Errorf("kubectl's last-applied annotation was deleted: %v", live.Annotations)
		}
		// Our Update entry is gone (migrated); the others' remain theirs.
		got := map[string]bool{}
		for _, m := range managers(live) {
			got[m] = true
		}
		if got[ourManager+"/Update"] || !got[ourManager+"/Apply"] || !got["manager/Update"] || !got["kubectl-client-side-apply/Update"] {
			t.Errorf("managedFields after migration: %v", managers(live))
		}
		t.Logf("labels after restart and two applies: %v; managers %v", labels, managers(live))
	})

	t.Run("MigrateFrom names a former name of our manager", func(t *testing.T) {
		for _, tc := range []struct {
			name      string
			opts      []ensure.ApplyOption
			wantDrops bool
		}{
			{"renamed", []ensure.ApplyOption{ensure.MigrateFrom("old-name")}, true},
			{"not-declared", nil, false},
		} {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: tc.name, Namespace: "default",
				Labels: map[string]string{"a": "1", "b": "1"}}, Data: map[string]string{"x": "1", "y": "1"}}
			if err := e.direct.Create(ctx, cm, client.FieldOwner("old-name")); err != nil {
				t.Fatal(err)
			}
			e.synced(t, ctx, cm)
			desired := corev1ac.ConfigMap(tc.name, "default").WithLabels(map[string]string{"a": "1"}).WithData(map[string]string{"x": "1"})
			opts := append([]ensure.ApplyOption{ensure.FieldManager(ourManager)}, tc.opts...)
			if _, _, err := corev1ensure.EnsureConfigMap(ctx, e.c, e.owner, desired, opts...); err != nil {
				t.Fatal(err)
			}
			live, labels := e.liveLabels(t, ctx, tc.name)
			_, hasB := labels["b"]
			_, hasY := live.Data["y"]
			if labels["a"] != "1" || live.Data["x"] != "1" {
				t.Errorf("%s: the intent is not applied: %v %v", tc.name, labels, live.Data)
			}
			if tc.wantDrops && (hasB || hasY) {
				t.Errorf("%s: fields the former manager wrote and the intent dropped survived: labels %v data %v", tc.name, labels, live.Data)
			}
			if !tc.wantDrops && (!hasB || !hasY) {
				t.Errorf("%s: an undeclared manager's fields were taken: labels %v data %v", tc.name, labels, live.Data)
			}
		}
	})
}

// TestMigrationOfRenamesAndStatus: the two ownerships an apply never
// prunes by itself — fields applied under a former name of the field
// manager (kro #1355), and status fields written with Status().Update
// (agent-sandbox, seed 002) — move to the apply manager on the first
// apply, named with MigrateFrom; a field dropped from the intent is then
// deleted. Without MigrateFrom the renamed manager's field stays.
func TestMigrationOfRenamesAndStatus(t *testing.T) {
	e, ctx := setup(t)

	t.Run("renamed apply manager", func(t *testing.T) {
		for _, migrate := range []bool{false, true} {
			name := map[bool]string{false: "renamed-plain", true: "renamed"}[migrate]
			old := corev1ac.ConfigMap(name, "default").WithData(map[string]string{"a": "1", "b": "2"})
			written := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
			if err := e.direct.Patch(ctx, written, applyPatchOf(t, old), client.FieldOwner("config-controller-v1"), client.ForceOwnership); err != nil {
				t.Fatal(err)
			}
			e.synced(t, ctx, written) // the controller restarts and sees it
			opts := []ensure.ApplyOption{ensure.FieldManager("config-controller-v2")}
			if migrate {
				opts = append(opts, ensure.MigrateFrom("config-controller-v1"))
			}
			obj, _, err := corev1ensure.EnsureConfigMap(ctx, e.c, e.owner, corev1ac.ConfigMap(name, "default").WithData(map[string]string{"a": "1"}), opts...)
			if err != nil {
				t.Fatal(err)
			}
			_, pruned := obj.Data["b"]
			if migrate && (pruned || len(managers(obj)) != 1 || managers(obj)[0] != "config-controller-v2/Apply") {
				t.Fatalf("with MigrateFrom: data %v, managers %v; want b pruned, one apply entry", obj.Data, managers(obj))
			}
			if !migrate && !pruned {
				t.Fatalf("without MigrateFrom the former manager's b should stay (the failure mode): %v", obj.Data)
			}
		}
	})

	t.Run("status written with Status().Update", func(t *testing.T) {
		desired := proxy("default", 1)
		obj, _, err := gen.EnsureProxy(ctx, e.c, e.owner, desired, ensure.FieldManager("proxy-controller"))
		if err != nil {
			t.Fatal(err)
		}
		// Before it used apply, the controller wrote status with Update.
		obj.Status.Addresses = []string{"10.0.0.1"}
		obj.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Up", LastTransitionTime: metav1.Now()}}
		if err := e.direct.Status().Update(ctx, obj, client.FieldOwner("proxy-controller")); err != nil {
			t.Fatal(err)
		}
		e.synced(t, ctx, obj)
		// Now it applies a status without addresses.
		st := ac.Proxy("edge", "default").WithStatus(ac.ProxyStatus().WithConditions(
			metav1ac.Condition().WithType("Ready").WithStatus(metav1.ConditionTrue).WithReason("Up").WithMessage("").WithLastTransitionTime(obj.Status.Conditions[0].LastTransitionTime)))
		got, _, err := gen.EnsureProxyStatus(ctx, e.c, st, ensure.FieldManager("proxy-controller"))
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Status.Addresses) != 0 {
			t.Fatalf("the Update-era status field stayed: %v; managers %v", got.Status.Addresses, managers(got))
		}
		for _, m := range got.ManagedFields {
			if m.Manager == "proxy-controller" && m.Operation == metav1.ManagedFieldsOperationUpdate {
				t.Fatalf("an Update entry of ours is left: %v", managers(got))
			}
		}
	})
}

// applyPatchOf is an apply patch of a configuration, for writers other
// than Ensure.
func applyPatchOf(t *testing.T, ac any) client.Patch {
	t.Helper()
	b, err := json.Marshal(ac)
	if err != nil {
		t.Fatal(err)
	}
	return client.RawPatch(types.ApplyPatchType, b)
}
