package controller

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ssagen/ssagen/ensure/ensuretest"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	"github.com/ssagen/ssagen/examples/generated/applyconfiguration"
)

// TestProjectReconcilerOnFakeClient is the unit test an operator author
// writes: the reconciler on controller-runtime's fake client, no API
// server. One reconcile creates every child with the Project as its
// controller and reports Ready; the next reconcile writes nothing.
func TestProjectReconcilerOnFakeClient(t *testing.T) {
	ctx := context.Background()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := platformv1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	p := &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: "unit", Generation: 1},
		Spec: platformv1alpha1.ProjectSpec{
			Namespaces: []string{"unit-a", "unit-b"},
			Members:    []platformv1alpha1.ProjectMember{{Name: "alice", Kind: "User"}},
		}}
	// The test kit: the fake client as the API server behaves for apply,
	// every request recorded.
	c := ensuretest.NewClient(scheme, ensuretest.WithObjects(p),
		ensuretest.WithTypeConverters(applyconfiguration.NewTypeConverter(scheme)))
	if err := c.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil { // the UID the kit gave it
		t.Fatal(err)
	}
	r := &ProjectReconciler{Client: NewClient(c)}
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(p)}

	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	// The finalizer, 2 namespaces × (Role, RoleBinding, ServiceAccount)
	// + ClusterRole, ClusterRoleBinding + the status: 10 applies.
	c.ExpectWrites(t, 0, 10)
	isControlledByProject := func(obj client.Object) {
		t.Helper()
		refs := obj.GetOwnerReferences()
		if len(refs) != 1 || refs[0].UID != p.UID || refs[0].Kind != "Project" || refs[0].Name != "unit" ||
			refs[0].APIVersion != "platform.ssagen.dev/v1alpha1" || refs[0].Controller == nil || !*refs[0].Controller {
			t.Errorf("%T %s: owner references %+v", obj, obj.GetName(), refs)
		}
	}
	for _, ns := range p.Spec.Namespaces {
		var role rbacv1.Role
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "unit-member"}, &role); err != nil {
			t.Fatal(err)
		}
		isControlledByProject(&role)
		if len(role.Rules) != 1 || len(role.Rules[0].Verbs) != 3 {
			t.Errorf("role rules %+v", role.Rules)
		}
		var rb rbacv1.RoleBinding
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "unit-member"}, &rb); err != nil {
			t.Fatal(err)
		}
		isControlledByProject(&rb)
		if len(rb.Subjects) != 1 || rb.Subjects[0].Name != "alice" || rb.RoleRef.Name != "unit-member" {
			t.Errorf("role binding %+v %+v", rb.Subjects, rb.RoleRef)
		}
		var sa corev1.ServiceAccount
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "unit"}, &sa); err != nil {
			t.Fatal(err)
		}
		isControlledByProject(&sa)
	}
	var cr rbacv1.ClusterRole
	if err := c.Get(ctx, client.ObjectKey{Name: "unit-admin"}, &cr); err != nil {
		t.Fatal(err)
	}
	isControlledByProject(&cr)
	var crb rbacv1.ClusterRoleBinding
	if err := c.Get(ctx, client.ObjectKey{Name: "unit-admin"}, &crb); err != nil {
		t.Fatal(err)
	}
	isControlledByProject(&crb)
	var live platformv1alpha1.Project
	if err := c.Get(ctx, req.NamespacedName, &live); err != nil {
		t.Fatal(err)
	}
	if live.Status.Phase != platformv1alpha1.ProjectReady || len(live.Status.Conditions) != 1 || live.Status.Conditions[0].Status != metav1.ConditionTrue {
		t.Errorf("status %+v", live.Status)
	}

	// Resyncs of an unchanged project send no write at all.
	mark := c.Mark()
	for i := 0; i < 3; i++ {
		if _, err := r.Reconcile(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	c.ExpectNoWrites(t, mark)

	// A new member: the two bindings change, nothing else.
	live.Spec.Members = append(live.Spec.Members, platformv1alpha1.ProjectMember{Name: "bob", Kind: "User"})
	if err := c.Update(ctx, &live); err != nil {
		t.Fatal(err)
	}
	mark = c.Mark()
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	// The 2 RoleBindings and the ClusterRoleBinding. (The fake client
	// does not bump metadata.generation, so the status intent is the
	// same and is skipped although the Project's resourceVersion moved.)
	if n := c.Count(mark, "apply", "RoleBinding") + c.Count(mark, "apply", "ClusterRoleBinding"); n != 3 {
		t.Errorf("a new member cost %d binding applies, want 3", n)
	}
	c.ExpectWrites(t, mark, 3)
	var rb rbacv1.RoleBinding
	if err := c.Get(ctx, client.ObjectKey{Namespace: "unit-b", Name: "unit-member"}, &rb); err != nil || len(rb.Subjects) != 2 {
		t.Errorf("role binding after the new member: %+v %v", rb.Subjects, err)
	}
	t.Logf("3 resyncs: 0 writes; a new member: %d", len(c.Writes(mark)))

	// A dropped namespace: its three children are pruned, and only those.
	if err := c.Get(ctx, req.NamespacedName, &live); err != nil {
		t.Fatal(err)
	}
	live.Spec.Namespaces = live.Spec.Namespaces[:1]
	if err := c.Update(ctx, &live); err != nil {
		t.Fatal(err)
	}
	mark = c.Mark()
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	if n := c.Count(mark, "delete", ""); n != 3 {
		t.Errorf("dropping a namespace cost %d DELETEs, want 3", n)
	}
	c.ExpectWrites(t, mark, 3)
	for _, obj := range []client.Object{&rbacv1.Role{}, &rbacv1.RoleBinding{}, &corev1.ServiceAccount{}} {
		name := "unit-member"
		if _, ok := obj.(*corev1.ServiceAccount); ok {
			name = "unit"
		}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "unit-b", Name: name}, obj); !apierrors.IsNotFound(err) {
			t.Errorf("%T in the dropped namespace: %v", obj, err)
		}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "unit-a", Name: name}, obj); err != nil {
			t.Errorf("%T in the kept namespace: %v", obj, err)
		}
	}

	// The project is deleted: its 5 children, then its finalizer.
	if err := c.Delete(ctx, &live); err != nil {
		t.Fatal(err)
	}
	mark = c.Mark()
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	// 5 DELETEs and the finalizer's patch.
	c.ExpectWrites(t, mark, 6)
	c.ExpectNoConflicts(t, 0)
	if err := c.Get(ctx, req.NamespacedName, &live); !apierrors.IsNotFound(err) {
		t.Errorf("the project is still there: %v", err)
	}
	for _, list := range projectChildren() {
		if err := c.List(ctx, list); err != nil {
			t.Fatal(err)
		}
		if items, _ := meta.ExtractList(list); len(items) != 0 {
			t.Errorf("%T: %d left", list, len(items))
		}
	}
}
