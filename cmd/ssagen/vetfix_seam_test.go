package main

import (
	"strings"
	"testing"
)

// TestVetFixSeam: ssagen vet -fix on Kargo's shape, in our words — a
// reconciler that writes Roles through a function field its tests
// replace, defaulted to the client's Create by its constructor, with a
// Create → AlreadyExists → Update and a create-and-ignore through it, and
// tests that stub the field (an injected error, AlreadyExists, nil, a stub
// that reads the Role it was handed, AlreadyExists with the client's
// Update made to fail). -fix alone rewrites both sites, the field, its
// default and every stub; the package builds, passes go vet and its tests,
// each test keeping its meaning.
func TestVetFixSeam(t *testing.T) {
	bin, file, pkg, goCmd := vetFixPackage(t, "zzvetfixseam", seamSrc, seamTest)
	goCmd("test", "-count=1")
	fixed, fixedTest := vetFixRun(t, bin, pkg, file, "ssagen vet -fix: rewrote 2 of 2 sites; 2 file(s) changed (1 of them tests)")
	for _, want := range []string{
		"createRoleFn func(context.Context, client.Client, client.Object, *rbacv1ac.RoleApplyConfiguration, ...ssaensure.ApplyOption) (*rbacv1.Role, ssaensure.Result, error)",
		"r.createRoleFn = rbacensure.EnsureRole",
		"r.createRoleFn(ctx, r.client, nil, rbacensure.FromRole(role), ssaensure.NoOwner())",
		"if ssaensure.IsUpdateError(err) {",
		"ssaensure.NoOwner(), ssaensure.CreateOnly()); err != nil {",
	} {
		if !strings.Contains(string(fixed), want) {
			t.Errorf("fixed file lacks %s:\n%s", want, fixed)
		}
	}
	for _, want := range []string{
		`return nil, "", errors.New("boom")`,
		"return nil, ssaensure.Unchanged, nil",
		`return nil, "", ssaensure.NewUpdateError(errors.New("refused"))`,
		"var obj client.Object = ensuretest.Object[rbacv1.Role](desired)",
	} {
		if !strings.Contains(string(fixedTest), want) {
			t.Errorf("fixed test lacks %s:\n%s", want, fixedTest)
		}
	}
	goCmd("build")
	goCmd("vet")
	goCmd("test", "-count=1")
}

const seamSrc = `package x

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rbacensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"
)

type reconciler struct {
	client client.Client
	Log    []string

	createRoleFn func(
		context.Context,
		client.Object,
		...client.CreateOption,
	) error
}

func newReconciler(c client.Client) *reconciler {
	r := &reconciler{client: c}
	r.createRoleFn = r.client.Create
	return r
}

// grants writes each Role, updating the one that exists; contributors
// may have added rules to them.
func (r *reconciler) grants(ctx context.Context, roles []*rbacv1.Role) error {
	for _, role := range roles {
		if err := r.createRoleFn(ctx, role); err != nil {
			if !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("error creating Role %q: %w", role.Name, err)
			}
			if err = r.client.Update(ctx, role); err != nil {
				return fmt.Errorf("error updating existing Role %q: %w", role.Name, err)
			}
			r.Log = append(r.Log, "updated "+role.Name)
			continue
		}
		r.Log = append(r.Log, "created "+role.Name)
	}
	return nil
}

// viewer is created once and never overwritten.
func (r *reconciler) viewer(ctx context.Context, ns string) error {
	if err := r.createRoleFn(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "viewer", Namespace: ns},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}},
	}); err != nil {
		if apierrors.IsAlreadyExists(err) {
			r.Log = append(r.Log, "viewer exists")
			return nil
		}
		return fmt.Errorf("error creating viewer: %w", err)
	}
	return nil
}

var _ = rbacensure.EnsureRole
`

const seamTest = `package x

import (
	"context"
	"errors"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/ssagen/ssagen/examples/generated/applyconfiguration"
)

func newClient(funcs interceptor.Funcs) client.Client {
	return fake.NewClientBuilder().WithScheme(scheme.Scheme).
		WithTypeConverters(applyconfiguration.NewTypeConverter(scheme.Scheme)).
		WithInterceptorFuncs(funcs).Build()
}

func roles() []*rbacv1.Role {
	return []*rbacv1.Role{{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}, Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}}}}
}

func TestNewReconciler(t *testing.T) {
	r := newReconciler(newClient(interceptor.Funcs{}))
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if err := r.grants(ctx, roles()); err != nil {
			t.Fatal(err)
		}
		if err := r.viewer(ctx, "ns"); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(r.Log, ",") != "created a,updated a,viewer exists" {
		t.Errorf("log %v", r.Log)
	}
}

func TestGrants(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    *reconciler
		want string
	}{
		{"error creating", &reconciler{createRoleFn: func(context.Context, client.Object, ...client.CreateOption) error {
			return errors.New("boom")
		}}, "error creating Role \"a\": boom"},
		{"error updating", &reconciler{
			client: newClient(interceptor.Funcs{Update: func(context.Context, client.WithWatch, client.Object, ...client.UpdateOption) error {
				return errors.New("refused")
			}}),
			createRoleFn: func(context.Context, client.Object, ...client.CreateOption) error {
				return apierrors.NewAlreadyExists(schema.GroupResource{}, "")
			},
		}, "error updating existing Role \"a\": refused"},
		{"created", &reconciler{createRoleFn: func(_ context.Context, obj client.Object, _ ...client.CreateOption) error {
			role, ok := obj.(*rbacv1.Role)
			if !ok || role.Name != "a" || len(role.Rules) != 1 {
				return errors.New("not the role")
			}
			return nil
		}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.r.grants(context.Background(), roles())
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestViewerExists(t *testing.T) {
	r := &reconciler{createRoleFn: func(context.Context, client.Object, ...client.CreateOption) error {
		return apierrors.NewAlreadyExists(schema.GroupResource{}, "")
	}}
	if err := r.viewer(context.Background(), "ns"); err != nil || len(r.Log) != 1 {
		t.Errorf("got %v, log %v", err, r.Log)
	}
}
`
