package ensure_test

import (
	"context"
	"errors"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/ssagen/ssagen/ensure"
	rbacv1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"
)

// TestOneClientNeverVouchesForAnother: what one Client remembered does not
// skip a write through another — a Client over another client, or a plain
// client, which remembers nothing — though the objects share a name, carry
// no UID and the same resourceVersion: the next test case's fake client
// (Kargo's unit tests hit this), or another cluster. The second Ensure
// must send its apply, so the error injected into its client's Patch
// comes back.
func TestOneClientNeverVouchesForAnother(t *testing.T) {
	ctx := context.Background()
	desired := func() *rbacv1ac.RoleBindingApplyConfiguration {
		return rbacv1ac.RoleBinding("reader", "team").
			WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName("view")).
			WithSubjects(rbacv1ac.Subject().WithKind("ServiceAccount").WithName("bot").WithNamespace("team"))
	}
	seeded := func() *rbacv1.RoleBinding {
		return &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: "team"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "bot", Namespace: "team"}},
		}
	}
	opts := ensure.FieldManager("clients-test")
	first := ensure.NewClient(fake.NewClientBuilder().WithObjects(seeded()).Build(), opts)
	for i := 0; i < 2; i++ {
		if _, _, err := rbacv1ensure.EnsureRoleBinding(ctx, first, nil, desired(), ensure.NoOwner()); err != nil {
			t.Fatal(err)
		}
	}
	if first.Remembered() != 1 {
		t.Fatalf("the first client remembers %d objects, want 1", first.Remembered())
	}
	boom := errors.New("boom")
	patches := 0
	second := fake.NewClientBuilder().WithObjects(seeded()).WithInterceptorFuncs(interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, o ...client.PatchOption) error {
			patches++
			return boom
		},
	}).Build()
	for _, c := range []client.Client{ensure.NewClient(second, opts), second} {
		if _, _, err := rbacv1ensure.EnsureRoleBinding(ctx, c, nil, desired(), opts, ensure.NoOwner()); !errors.Is(err, boom) {
			t.Errorf("Ensure through %T: %v after %d patches, want the injected error: the first client's memory skipped the write", c, err, patches)
		}
	}
}

// valueClient is a client whose type cannot be compared (a struct value
// with a func field), as controller-runtime v0.22's interceptor client is.
type valueClient struct {
	client.Client
	note func()
}

// TestValueClientsKeptApart: Clients over clients whose type cannot be
// compared each have their own memory — a second one, whose store holds
// the same object (same name, no UID, same resourceVersion), is never
// skipped on the first's word — and one keeps its memory across calls (1
// write for 3 calls).
func TestValueClientsKeptApart(t *testing.T) {
	ctx := context.Background()
	desired := func() *rbacv1ac.RoleBindingApplyConfiguration {
		return rbacv1ac.RoleBinding("reader", "team").
			WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName("view"))
	}
	seeded := func() *rbacv1.RoleBinding {
		return &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: "team"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		}
	}
	opts := ensure.FieldManager("value-clients-test")
	patches := 0
	counted := fake.NewClientBuilder().WithObjects(seeded()).WithInterceptorFuncs(interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, o ...client.PatchOption) error {
			patches++
			return c.Patch(ctx, obj, p, o...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, o ...client.ApplyOption) error {
			patches++
			return c.Apply(ctx, obj, o...)
		},
	}).Build()
	first := ensure.NewClient(valueClient{Client: counted})
	for i := 0; i < 3; i++ {
		if _, _, err := rbacv1ensure.EnsureRoleBinding(ctx, first, nil, desired(), opts, ensure.NoOwner()); err != nil {
			t.Fatal(err)
		}
	}
	if patches != 1 {
		t.Errorf("%d writes through one value client for 3 calls with the same desired state, want 1", patches)
	}
	boom := errors.New("boom")
	second := ensure.NewClient(valueClient{Client: fake.NewClientBuilder().WithObjects(seeded()).WithInterceptorFuncs(interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, o ...client.PatchOption) error {
			return boom
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, o ...client.ApplyOption) error {
			return boom
		},
	}).Build()})
	if _, _, err := rbacv1ensure.EnsureRoleBinding(ctx, second, nil, desired(), opts, ensure.NoOwner()); !errors.Is(err, boom) {
		t.Errorf("Ensure through a second value client: %v, want the injected error: the first client's memory skipped the write", err)
	}
}

// TestTypedAnswerAsTheClientLeavesIt: the typed object a helper returns
// carries no apiVersion and kind, as after the client's own Update or
// Patch, so a unit test comparing it with what the Update returned before
// the migration (agent-sandbox's TestReconcilePod) still holds — created,
// then skipped.
func TestTypedAnswerAsTheClientLeavesIt(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientBuilder().Build()
	for i := 0; i < 2; i++ {
		rb, res, err := rbacv1ensure.EnsureRoleBinding(ctx, c, nil, rbacv1ac.RoleBinding("reader", "team").
			WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName("view")), ensure.NoOwner())
		if err != nil {
			t.Fatal(err)
		}
		if rb.Kind != "" || rb.APIVersion != "" || rb.Name != "reader" || rb.RoleRef.Name != "view" {
			t.Errorf("call %d (%s): returned %+v %s/%s, want the object without apiVersion and kind", i+1, res, rb.TypeMeta, rb.Namespace, rb.Name)
		}
	}
}
