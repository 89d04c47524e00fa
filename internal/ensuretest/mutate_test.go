package ensure_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
)

// deployment is a reconciler's mutate function as operators write it:
// nil maps initialised, common labels merged, the controller reference
// set, a value computed that can fail.
func deployment(d *appsv1.Deployment, owner client.Object, scheme *runtime.Scheme, image string, labels map[string]string) controllerutil.MutateFn {
	return func() error {
		if d.Labels == nil {
			d.Labels = map[string]string{}
		}
		for k, v := range labels {
			d.Labels[k] = v
		}
		if image == "" {
			return errors.New("no image")
		}
		d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": d.Name}}
		d.Spec.Template.Labels = map[string]string{"app": d.Name}
		d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "app", Image: image, Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}}
		return controllerutil.SetControllerReference(owner, d, scheme)
	}
}

// TestCreateOrUpdateByApply: controllerutil.CreateOrUpdate's signature,
// by server-side apply on a real API server: created once, no request
// while nothing changes, a dropped label pruned, another writer's label,
// annotation and replicas kept, no zero value owned.
func TestCreateOrUpdateByApply(t *testing.T) {
	e, ctx := setup(t)
	c := e.client()
	scheme := e.c.Scheme()
	call := func(image string, labels map[string]string) (*appsv1.Deployment, controllerutil.OperationResult, int) {
		t.Helper()
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}}
		mark := e.counter.Snapshot()
		res, err := ensure.CreateOrUpdate(ctx, c, d, deployment(d, e.owner, scheme, image, labels))
		if err != nil {
			t.Fatal(err)
		}
		n := writes(e.counter.Since(mark))
		if res != controllerutil.OperationResultNone {
			e.synced(t, ctx, d)
		}
		return d, res, n
	}
	d, res, n := call("app:1", map[string]string{"team": "a", "tier": "web"})
	if res != controllerutil.OperationResultCreated || n != 1 {
		t.Fatalf("first: %s with %d writes, want created by one apply", res, n)
	}
	if d.UID == "" || d.Spec.Template.Spec.Containers[0].Image != "app:1" {
		t.Fatalf("obj does not hold the live object: %+v", d.ObjectMeta)
	}
	ours := entry(d, ensure.DefaultFieldManager, metav1.ManagedFieldsOperationApply, "")
	if ours == nil {
		t.Fatalf("no apply entry: %v", managers(d))
	}
	for _, stolen := range []string{"f:replicas", "f:resources", "f:creationTimestamp", "f:strategy", "f:status"} {
		if strings.Contains(string(ours.FieldsV1.Raw), stolen) {
			t.Fatalf("the apply owns %s, which the mutate function never set: %s", stolen, ours.FieldsV1.Raw)
		}
	}
	if !strings.Contains(string(ours.FieldsV1.Raw), "f:ownerReferences") {
		t.Fatalf("the controller reference is not ours: %s", ours.FieldsV1.Raw)
	}

	// Another writer: a label, an annotation, the replicas (an autoscaler).
	patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"other":"1"},"annotations":{"note":"x"}},"spec":{"replicas":3}}`))
	if err := e.direct.Patch(ctx, d, patch, client.FieldOwner("other")); err != nil {
		t.Fatal(err)
	}
	e.synced(t, ctx, d)

	if _, res, n = call("app:1", map[string]string{"team": "a", "tier": "web"}); res != controllerutil.OperationResultNone || n != 0 {
		t.Fatalf("unchanged: %s with %d writes, want none", res, n)
	}
	d, res, n = call("app:2", map[string]string{"team": "a"})
	if res != controllerutil.OperationResultUpdated || n != 1 {
		t.Fatalf("changed: %s with %d writes, want updated by one apply", res, n)
	}
	if _, ok := d.Labels["tier"]; ok {
		t.Fatalf("the label the mutate function stopped setting stays: %v", d.Labels)
	}
	if d.Labels["other"] != "1" || d.Annotations["note"] != "x" || *d.Spec.Replicas != 3 || d.Spec.Template.Spec.Containers[0].Image != "app:2" {
		t.Fatalf("another writer's fields lost or ours not set: %v %v replicas %d", d.Labels, d.Annotations, *d.Spec.Replicas)
	}

	// The mutate function's error is the call's, and nothing is sent.
	mark := e.counter.Snapshot()
	bad := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}}
	if _, err := ensure.CreateOrUpdate(ctx, c, bad, deployment(bad, e.owner, scheme, "", nil)); err == nil || err.Error() != "no image" {
		t.Fatalf("error %v, want the mutate function's", err)
	}
	if n := writes(e.counter.Since(mark)); n != 0 {
		t.Fatalf("%d writes after a failed mutate function", n)
	}

	// Another controller's object is refused as CreateOrUpdate refuses it:
	// the mutate function is handed the live object, and its error is the
	// call's — SetControllerReference's, or the function's own check's.
	other := &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: "p2"}}
	if err := e.direct.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	mark = e.counter.Snapshot()
	taken := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}}
	_, err := ensure.CreateOrUpdate(ctx, c, taken, deployment(taken, other, scheme, "app:2", nil))
	var owned *controllerutil.AlreadyOwnedError
	if !errors.As(err, &owned) {
		t.Fatalf("error %v, want SetControllerReference's AlreadyOwnedError", err)
	}
	errTaken := errors.New("taken")
	guarded := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}}
	_, err = ensure.CreateOrUpdate(ctx, c, guarded, func() error {
		if metav1.GetControllerOf(guarded) != nil && !metav1.IsControlledBy(guarded, other) {
			return errTaken
		}
		return deployment(guarded, other, scheme, "app:2", nil)()
	})
	if !errors.Is(err, errTaken) {
		t.Fatalf("error %v, want the mutate function's own refusal", err)
	}
	if n := writes(e.counter.Since(mark)); n != 0 {
		t.Fatalf("%d writes to another controller's object", n)
	}
}

// TestCreateOrPatchStatusByApply: the status the mutate function sets
// goes to the status subresource after the object.
func TestCreateOrPatchStatusByApply(t *testing.T) {
	e, ctx := setup(t)
	c := e.client()
	call := func(addr string) (*platformv1alpha1.Proxy, controllerutil.OperationResult) {
		t.Helper()
		p := &platformv1alpha1.Proxy{ObjectMeta: metav1.ObjectMeta{Name: "edge", Namespace: "default"}}
		res, err := ensure.CreateOrPatch(ctx, c, p, func() error {
			p.Spec.Listeners = []platformv1alpha1.Listener{{Name: "http", Port: 80}}
			p.Status.Addresses = []string{addr}
			return controllerutil.SetControllerReference(e.owner, p, e.c.Scheme())
		})
		if err != nil {
			t.Fatal(err)
		}
		if res != controllerutil.OperationResultNone {
			e.synced(t, ctx, p)
		}
		return p, res
	}
	if p, res := call("10.0.0.1"); res != controllerutil.OperationResultCreated || len(p.Status.Addresses) != 1 {
		t.Fatalf("first: %s, status %v", res, p.Status)
	}
	if _, res := call("10.0.0.1"); res != controllerutil.OperationResultNone {
		t.Fatalf("unchanged: %s", res)
	}
	if p, res := call("10.0.0.2"); res != controllerutil.OperationResultUpdatedStatusOnly || p.Status.Addresses[0] != "10.0.0.2" {
		t.Fatalf("status changed: %s, %v", res, p.Status)
	}
}

// TestCreateOrUpdateOnFakeClient: the same calls on controller-runtime's
// fake client, where operators unit-test their reconcilers.
func TestCreateOrUpdateOnFakeClient(t *testing.T) {
	scheme := runtime.NewScheme()
	clientgoscheme.AddToScheme(scheme)
	platformv1alpha1.AddToScheme(scheme)
	owner := &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: "p1", UID: "u1"}}
	fc := fake.NewClientBuilder().WithScheme(scheme).WithObjects(owner).Build()
	ctx := context.Background()
	for _, step := range []struct {
		image string
		want  controllerutil.OperationResult
	}{{"app:1", controllerutil.OperationResultCreated}, {"app:1", controllerutil.OperationResultNone}, {"app:2", controllerutil.OperationResultUpdated}} {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}}
		res, err := ensure.CreateOrUpdate(ctx, fc, d, deployment(d, owner, scheme, step.image, map[string]string{"team": "a"}))
		if err != nil {
			t.Fatal(err)
		}
		if res != step.want {
			t.Fatalf("%s: %s, want %s", step.image, res, step.want)
		}
		var live appsv1.Deployment
		if err := fc.Get(ctx, client.ObjectKeyFromObject(d), &live); err != nil {
			t.Fatal(err)
		}
		if live.Spec.Template.Spec.Containers[0].Image != step.image || live.Labels["team"] != "a" || len(live.OwnerReferences) != 1 {
			t.Fatalf("%s: live %v %v %v", step.image, live.Spec.Template.Spec.Containers, live.Labels, live.OwnerReferences)
		}
	}
}

// TestDroppedItemFieldWithoutMemory: with no memory of an earlier apply
// (a plain client: every call is the first after a restart) and no
// schema, a field the intent stops setting inside a list item is pruned —
// the deduced field sets cannot see it, so the live list is compared.
func TestDroppedItemFieldWithoutMemory(t *testing.T) {
	e, ctx := setup(t)
	call := func(ports bool) (*appsv1.Deployment, controllerutil.OperationResult) {
		t.Helper()
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: "default"}}
		res, err := ensure.CreateOrUpdate(ctx, e.c, d, func() error {
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "plain"}}
			d.Spec.Template.Labels = map[string]string{"app": "plain"}
			c := corev1.Container{Name: "app", Image: "app:1"}
			if ports {
				c.Ports = []corev1.ContainerPort{{ContainerPort: 8080}}
			}
			d.Spec.Template.Spec.Containers = []corev1.Container{c}
			return controllerutil.SetControllerReference(e.owner, d, e.c.Scheme())
		})
		if err != nil {
			t.Fatal(err)
		}
		if res != controllerutil.OperationResultNone {
			e.synced(t, ctx, d)
		}
		return d, res
	}
	if _, res := call(true); res != controllerutil.OperationResultCreated {
		t.Fatalf("first: %s", res)
	}
	d, res := call(false)
	if res != controllerutil.OperationResultUpdated || len(d.Spec.Template.Spec.Containers[0].Ports) != 0 {
		t.Fatalf("ports dropped: %s, ports %v: the apply was skipped or did not prune", res, d.Spec.Template.Spec.Containers[0].Ports)
	}
}
