package ensuretest_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/ssagen/ssagen/ensure"
	"github.com/ssagen/ssagen/ensure/ensuretest"
)

func scheme(t *testing.T) *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// applyConfigMap sends an apply patch of a ConfigMap as manager, as the
// helpers do.
func applyConfigMap(ctx context.Context, c client.Client, manager string, data map[string]string) (*corev1.ConfigMap, error) {
	body, err := json.Marshal(corev1ac.ConfigMap("cm", "default").WithData(data))
	if err != nil {
		return nil, err
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "default"}}
	return cm, c.Patch(ctx, cm, client.RawPatch(types.ApplyPatchType, body), client.FieldOwner(manager), client.ForceOwnership)
}

// TestUnchangedApplyKeepsTheResourceVersion: an apply that changes
// nothing keeps the resourceVersion on the kit, as on the API server, and
// is recorded as a write that wrote nothing; the plain fake client bumps
// the resourceVersion, which is what the kit is for.
func TestUnchangedApplyKeepsTheResourceVersion(t *testing.T) {
	ctx := context.Background()
	kit := ensuretest.NewClient(scheme(t))
	plain := fake.NewClientBuilder().WithScheme(scheme(t)).Build()
	for _, tc := range []struct {
		name     string
		c        client.Client
		bumps    bool
		recorded bool
	}{{"kit", kit, false, true}, {"plain fake client", plain, true, false}} {
		first, err := applyConfigMap(ctx, tc.c, "m", map[string]string{"k": "v"})
		if err != nil {
			t.Fatal(err)
		}
		mark := kit.Mark()
		again, err := applyConfigMap(ctx, tc.c, "m", map[string]string{"k": "v"})
		if err != nil {
			t.Fatal(err)
		}
		if first.ResourceVersion == "" && !tc.recorded {
			// controller-runtime v0.22's fake client versions no apply at
			// all (fixed in v0.23): there is nothing to contrast.
			t.Logf("%s: applies are not versioned (controller-runtime v0.22)", tc.name)
			continue
		}
		if bumped := again.ResourceVersion != first.ResourceVersion; bumped != tc.bumps {
			t.Errorf("%s: an unchanged apply moved the resourceVersion %s → %s: %v, want %v", tc.name, first.ResourceVersion, again.ResourceVersion, bumped, tc.bumps)
		}
		if again.Data["k"] != "v" || again.Name != "cm" {
			t.Errorf("%s: the answer %+v", tc.name, again)
		}
		if tc.recorded {
			w := kit.Writes(mark)
			if len(w) != 1 || w[0].Verb != "apply" || w[0].Wrote || w[0].FieldManager != "m" || w[0].Kind.Kind != "ConfigMap" {
				t.Errorf("recorded %v", w)
			}
		}
	}
	// A change is written, and says so.
	mark := kit.Mark()
	changed, err := applyConfigMap(ctx, kit, "m", map[string]string{"k": "w"})
	if err != nil {
		t.Fatal(err)
	}
	if w := kit.Writes(mark); len(w) != 1 || !w[0].Wrote || changed.Data["k"] != "w" {
		t.Errorf("a changing apply: %v, %v", w, changed.Data)
	}
	// Another manager applying the same value shares the field: that is a
	// change of managedFields, and is written.
	mark = kit.Mark()
	if _, err := applyConfigMap(ctx, kit, "other", map[string]string{"k": "w"}); err != nil {
		t.Fatal(err)
	}
	if w := kit.Writes(mark); len(w) != 1 || !w[0].Wrote {
		t.Errorf("another manager's apply: %v", w)
	}
	managers, err := kit.Managers(ctx, changed, "data", "k")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(managers)
	if !slices.Equal(managers, []string{"m", "other"}) {
		t.Errorf("managers of data.k: %v", managers)
	}
}

// TestEnsureSendsNothingWhenUnchanged: the runtime's helpers on the kit,
// in one line each: the first call writes, the next send nothing, and
// the owner the kit stored got a UID.
func TestEnsureSendsNothingWhenUnchanged(t *testing.T) {
	ctx := context.Background()
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "default"}}
	kit := ensuretest.NewClient(scheme(t), ensuretest.WithObjects(owner))
	if err := kit.Get(ctx, client.ObjectKeyFromObject(owner), owner); err != nil || owner.UID == "" {
		t.Fatalf("the stored owner has no UID: %v", err)
	}
	c := ensure.NewClient(kit, ensure.FieldManager("test-controller"))
	desired := corev1ac.ConfigMap("child", "default").WithData(map[string]string{"k": "v"})
	if _, err := ensure.Apply(ctx, c, owner, desired, &corev1.ConfigMap{}); err != nil {
		t.Fatal(err)
	}
	if n := kit.Count(0, "apply", "ConfigMap"); n != 1 {
		t.Errorf("%d applies of a ConfigMap, want 1", n)
	}
	mark := kit.Mark()
	for range 3 {
		if _, err := ensure.Apply(ctx, c, owner, desired, &corev1.ConfigMap{}); err != nil {
			t.Fatal(err)
		}
	}
	kit.ExpectNoWrites(t, mark)
	kit.ExpectNoConflicts(t, 0)
	// A fresh ensure.Client remembers nothing: it sends the apply, and
	// the kit answers it without writing, as the API server would.
	mark = kit.Mark()
	if res, err := ensure.Apply(ctx, ensure.NewClient(kit, ensure.FieldManager("test-controller")), owner, desired, &corev1.ConfigMap{}); err != nil {
		t.Fatal(err)
	} else if w := kit.Writes(mark); len(w) > 1 || len(w) == 1 && w[0].Wrote {
		t.Errorf("a fresh client's unchanged apply (%s) wrote: %v", res, w)
	}
}

// TestStatusAndConflicts: a kind with a status has the status
// subresource (an Update leaves the status alone, a status apply is
// recorded on the subresource); a stale Update is recorded as a 409; an
// injected error is recorded as the answer.
func TestStatusAndConflicts(t *testing.T) {
	ctx := context.Background()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
	injected := apierrors.NewInternalError(errors.New("injected"))
	kit := ensuretest.NewClient(scheme(t), ensuretest.WithObjects(pod), ensuretest.WithInterceptorFuncs(interceptor.Funcs{
		Delete: func(context.Context, client.WithWatch, client.Object, ...client.DeleteOption) error { return injected },
	}))
	stale := &corev1.Pod{}
	if err := kit.Get(ctx, client.ObjectKeyFromObject(pod), stale); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(corev1ac.Pod("p", "default").WithStatus(corev1ac.PodStatus().WithPhase(corev1.PodRunning)))
	status := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}}
	mark := kit.Mark()
	if err := kit.Status().Patch(ctx, status, client.RawPatch(types.ApplyPatchType, body), client.FieldOwner("kubelet"), client.ForceOwnership); err != nil {
		t.Fatal(err)
	}
	if err := kit.Status().Patch(ctx, status, client.RawPatch(types.ApplyPatchType, body), client.FieldOwner("kubelet"), client.ForceOwnership); err != nil {
		t.Fatal(err)
	}
	w := kit.Writes(mark)
	if len(w) != 2 || w[0].Subresource != "status" || !w[0].Wrote || w[1].Wrote || status.Status.Phase != corev1.PodRunning {
		t.Errorf("status applies: %v (phase %q)", w, status.Status.Phase)
	}
	// Another writer's Update moves the pod on: the copy read before is stale.
	fresh := stale.DeepCopy()
	fresh.Annotations = map[string]string{"other": "writer"}
	if err := kit.Update(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	stale.Labels = map[string]string{"a": "b"}
	if err := kit.Update(ctx, stale); !apierrors.IsConflict(err) {
		t.Fatalf("a stale update: %v", err)
	}
	if n := kit.Conflicts(mark); n != 1 {
		t.Errorf("%d conflicts recorded", n)
	}
	if err := kit.Delete(ctx, pod); !errors.Is(err, injected) {
		t.Fatalf("delete: %v", err)
	}
	last := kit.Requests(mark)
	if r := last[len(last)-1]; r.Verb != "delete" || r.Code != 500 || r.Wrote || r.Kind != (schema.GroupVersionKind{Version: "v1", Kind: "Pod"}) {
		t.Errorf("the injected delete was recorded as %v", r)
	}
	// The log reads in one line.
	if n := kit.Count(mark, "update", "Pod"); n != 2 {
		t.Errorf("%d updates of a Pod", n)
	}
}

// TestObject: an apply configuration decodes into the object it
// describes, fields it leaves unset zero; a nil one into the zero object.
func TestObject(t *testing.T) {
	desired := rbacv1ac.Role("reader", "ns").WithLabels(map[string]string{"a": "b"}).
		WithRules(rbacv1ac.PolicyRule().WithVerbs("get").WithResources("pods"))
	role := ensuretest.Object[rbacv1.Role](desired)
	if role.Name != "reader" || role.Namespace != "ns" || role.Labels["a"] != "b" || len(role.Rules) != 1 || role.Rules[0].Verbs[0] != "get" || role.Kind != "Role" {
		t.Errorf("decoded %+v", role)
	}
	if role.Annotations != nil || role.ResourceVersion != "" {
		t.Errorf("fields the configuration leaves unset are set: %+v", role.ObjectMeta)
	}
	var none *rbacv1ac.RoleApplyConfiguration
	if zero := ensuretest.Object[rbacv1.Role](none); zero == nil || zero.Name != "" {
		t.Errorf("nil configuration: %+v", zero)
	}
}
