package driver

import (
	"go/format"
	"sort"
	"strings"
	"testing"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/vet"
)

// TestFollowSeam: the stubs a test file sets a rewritten seam to take the
// helper's signature; nil becomes a creation, AlreadyExists an apply that
// found the object as desired — or, where the literal's client injects an
// Update error, that error as a failed update — and any other error stays
// that error; a stub reading the object it was handed reads the object
// the configuration describes; the imports the stubs need are added
// under the names -fix uses, those the file has are reused.
func TestFollowSeam(t *testing.T) {
	const src = `package x

import (
	"context"
	"errors"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

func TestX(t *testing.T) {
	_ = []*reconciler{
		{createRoleFn: func(context.Context, client.Object, ...client.CreateOption) error {
			return errors.New("boom")
		}},
		{createRoleFn: func(context.Context, client.Object, ...client.CreateOption) error {
			return apierrors.NewAlreadyExists(schema.GroupResource{}, "")
		}},
		{
			client: newClient(interceptor.Funcs{Update: func(context.Context, client.WithWatch, client.Object, ...client.UpdateOption) error {
				return errors.New("refused")
			}}),
			createRoleFn: func(context.Context, client.Object, ...client.CreateOption) error {
				return apierrors.NewAlreadyExists(schema.GroupResource{}, "")
			},
		},
	}
	r := &reconciler{}
	r.createRoleFn = func(_ context.Context, obj client.Object, _ ...client.CreateOption) error {
		role, ok := obj.(*rbacv1.Role)
		if !ok || role.Name == "" {
			t.Fail()
		}
		return nil
	}
	r.otherFn = func(context.Context, client.Object, ...client.CreateOption) error { return nil }
}
`
	ref := func(path, pkg, name string, ptr bool) vet.TypeRef {
		return vet.TypeRef{Path: path, Pkg: pkg, Name: name, Pointer: ptr}
	}
	const cr, ac = "sigs.k8s.io/controller-runtime/pkg/client", "k8s.io/client-go/applyconfigurations/rbac/v1"
	s := &vet.SeamInfo{
		Field: "createRoleFn",
		Params: []vet.TypeRef{ref("context", "context", "Context", false), ref(cr, "client", "Client", false), ref(cr, "client", "Object", false),
			ref(ac, "v1", "RoleApplyConfiguration", true), ref(contract.RuntimePkg, "ensure", "ApplyOption", false)},
		Results: []vet.TypeRef{ref("k8s.io/api/rbac/v1", "v1", "Role", true), ref(contract.RuntimePkg, "ensure", "Result", false), {Name: "error"}},
		Runtime: contract.RuntimePkg,
	}
	s.Object = s.Results[0]
	edits := followSeam("x_test.go", []byte(src), s)
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := src
	for _, e := range edits {
		out = out[:e.start] + string(e.text) + out[e.end:]
	}
	formatted, err := format.Source([]byte(out))
	if err != nil {
		t.Fatalf("the edited test does not parse: %v\n%s", err, out)
	}
	got := string(formatted)
	sig := "func(context.Context, client.Client, client.Object, *rbacv1ac.RoleApplyConfiguration, ...ssaensure.ApplyOption) (*rbacv1.Role, ssaensure.Result, error)"
	for _, want := range []string{
		"{createRoleFn: " + sig + " {\n\t\t\treturn nil, \"\", errors.New(\"boom\")",
		"{createRoleFn: " + sig + " {\n\t\t\treturn nil, ssaensure.Unchanged, nil",
		"return nil, \"\", ssaensure.NewUpdateError(errors.New(\"refused\"))",
		"r.createRoleFn = func(_ context.Context, _ client.Client, _ client.Object, desired *rbacv1ac.RoleApplyConfiguration, _ ...ssaensure.ApplyOption) (*rbacv1.Role, ssaensure.Result, error) {\n\t\tvar obj client.Object = ensuretest.Object[rbacv1.Role](desired)",
		"return nil, ssaensure.Created, nil",
		`ssaensure "github.com/ssagen/ssagen/ensure"`,
		`ensuretest "github.com/ssagen/ssagen/ensure/ensuretest"`,
		`rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"`,
		"r.otherFn = func(context.Context, client.Object, ...client.CreateOption) error { return nil }",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the edited test lacks\n%s\n---\n%s", want, got)
		}
	}
	if strings.Count(got, `"k8s.io/api/rbac/v1"`) != 1 {
		t.Errorf("rbacv1 imported again:\n%s", got)
	}
}
