package controller

import (
	"context"
	"sync/atomic"
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
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	"github.com/ssagen/ssagen/examples/generated/applyconfiguration"
)

// writeCounter counts every write a fake client is asked for.
func writeCounter(n *atomic.Int64) interceptor.Funcs {
	return interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			n.Add(1)
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			n.Add(1)
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			n.Add(1)
			return c.Patch(ctx, obj, patch, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			n.Add(1)
			return c.Apply(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			n.Add(1)
			return c.Delete(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			n.Add(1)
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			n.Add(1)
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	}
}

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
	// The fake client assigns no UID: a fixture that owns children needs one.
	p := &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: "unit", UID: "uid-unit", Generation: 1},
		Spec: platformv1alpha1.ProjectSpec{
			Namespaces: []string{"unit-a", "unit-b"},
			Members:    []platformv1alpha1.ProjectMember{{Name: "alice", Kind: "User"}},
		}}
	var writes atomic.Int64
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(p).
		WithStatusSubresource(&platformv1alpha1.Project{}).
		WithTypeConverters(applyconfiguration.NewTypeConverter(scheme)).
		WithInterceptorFuncs(writeCounter(&writes)).Build()
	r := &ProjectReconciler{Client: NewClient(c)}
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(p)}

	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	first := writes.Load()
	// The finalizer, 2 namespaces × (Role, RoleBinding, ServiceAccount)
	// + ClusterRole, ClusterRoleBinding + the status: 10 applies.
	if first != 10 {
		t.Errorf("first reconcile: %d writes, want 10", first)
	}
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

	// Resyncs of an unchanged project write nothing.
	for i := 0; i < 3; i++ {
		if _, err := r.Reconcile(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	if n := writes.Load() - first; n != 0 {
		t.Errorf("3 reconciles of an unchanged project wrote %d times, want 0", n)
	}

	// A new member: the two bindings change, nothing else.
	live.Spec.Members = append(live.Spec.Members, platformv1alpha1.ProjectMember{Name: "bob", Kind: "User"})
	if err := c.Update(ctx, &live); err != nil {
		t.Fatal(err)
	}
	before := writes.Load()
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	// The 2 RoleBindings and the ClusterRoleBinding. (The fake client
	// does not bump metadata.generation, so the status intent is the
	// same and is skipped although the Project's resourceVersion moved.)
	if n := writes.Load() - before; n != 3 {
		t.Errorf("a new member cost %d writes, want the 3 bindings", n)
	}
	var rb rbacv1.RoleBinding
	if err := c.Get(ctx, client.ObjectKey{Namespace: "unit-b", Name: "unit-member"}, &rb); err != nil || len(rb.Subjects) != 2 {
		t.Errorf("role binding after the new member: %+v %v", rb.Subjects, err)
	}
	t.Logf("first reconcile: %d writes; 3 resyncs: 0; a new member: %d", first, writes.Load()-before)

	// A dropped namespace: its three children are pruned, and only those.
	if err := c.Get(ctx, req.NamespacedName, &live); err != nil {
		t.Fatal(err)
	}
	live.Spec.Namespaces = live.Spec.Namespaces[:1]
	if err := c.Update(ctx, &live); err != nil {
		t.Fatal(err)
	}
	before = writes.Load()
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	if n := writes.Load() - before; n != 3 {
		t.Errorf("dropping a namespace cost %d writes, want the 3 DELETEs", n)
	}
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
	before = writes.Load()
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	if n := writes.Load() - before; n != 6 {
		t.Errorf("deleting the project cost %d writes, want 5 DELETEs and the finalizer's patch", n)
	}
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
