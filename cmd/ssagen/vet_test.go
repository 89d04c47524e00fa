package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVetCommand runs `ssagen vet` and `go vet -vettool=ssagen` on a
// package of this module that uses controller-runtime for real.
func TestVetCommand(t *testing.T) {
	bin, dir := vetSetup(t, "zzvettest")
	src := `package x

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type R struct{ client.Client }

func (r *R) role(ctx context.Context, role *rbacv1.Role) error {
	if err := r.Create(ctx, role); apierrors.IsAlreadyExists(err) {
		return r.Update(ctx, role)
	}
	return nil
}
`
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := "./" + filepath.Base(dir)
	for _, args := range [][]string{{bin, "vet", pkg}, {"go", "vet", "-vettool=" + bin, pkg}} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = "../.."
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("%v: exit 0, want a finding", args)
		}
		if !strings.Contains(string(out), "x.go:14:12: Create → AlreadyExists → Update") || !strings.Contains(string(out), "fix: EnsureRole") {
			t.Errorf("%v printed:\n%s", args, out)
		}
	}
}

// TestVetFix applies create-update's suggested fix with `ssagen vet -fix`
// to a reconciler that already uses the example's generated helpers: the
// rewritten package must build, call EnsureRole and no longer Create.
func TestVetFix(t *testing.T) {
	bin, dir := vetSetup(t, "zzvetfix")
	src := `package x

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	rbacensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"
)

type R struct {
	client.Client
	Scheme *runtime.Scheme
}

func (r *R) role(ctx context.Context, owner client.Object, ns string) error {
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "member", Namespace: ns},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}},
	}
	if err := controllerutil.SetControllerReference(owner, role, r.Scheme); err != nil {
		return err
	}
	if err := r.Create(ctx, role); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		return r.Update(ctx, role)
	}
	return nil
}

var _ = rbacensure.EnsureClusterRole
`
	file := filepath.Join(dir, "x.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := "./" + filepath.Base(dir)
	cmd := exec.Command(bin, "vet", "-fix", pkg)
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil && !strings.Contains(string(out), "Create → AlreadyExists → Update") {
		t.Fatalf("ssagen vet -fix: %v\n%s", err, out)
	}
	fixed, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`rbacv1ac.Role("member", ns).WithRules(rbacv1ac.PolicyRule().WithAPIGroups("").WithResources("pods").WithVerbs("get"))`,
		`if _, _, err := rbacensure.EnsureRole(ctx, r.Client, owner, role); err != nil {`,
		`rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"`,
	} {
		if !strings.Contains(string(fixed), want) {
			t.Errorf("fixed file lacks %s:\n%s", want, fixed)
		}
	}
	if strings.Contains(string(fixed), ".Create(") || strings.Contains(string(fixed), "controllerutil") {
		t.Errorf("fixed file still creates or sets the reference by hand:\n%s", fixed)
	}
	build := exec.Command("go", "vet", pkg)
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("the fixed package does not build: %v\n%s\n%s", err, out, fixed)
	}
}

// vetSetup builds ssagen and makes a package folder in this module (so
// that it loads the module's dependencies), removed when the test ends.
func vetSetup(t *testing.T, prefix string) (bin, dir string) {
	t.Helper()
	bin = filepath.Join(t.TempDir(), "ssagen")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("%s", out)
	}
	dir, err := os.MkdirTemp("../..", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return bin, dir
}

// TestVetFixFindsHelpersNotImported: the user has just generated the
// helpers and imports none of them; -fix finds EnsureRole in the module
// (the example's generated rbac/v1/ensure) and adds its import with the
// generator's alias.
func TestVetFixFindsHelpersNotImported(t *testing.T) {
	bin, dir := vetSetup(t, "zzvetfixmod")
	src := `package x

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type R struct{ client.Client }

func (r *R) role(ctx context.Context, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "member", Namespace: ns},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}}
	err := r.Create(ctx, role)
	if apierrors.IsAlreadyExists(err) {
		return r.Update(ctx, role)
	}
	return err
}
`
	file := filepath.Join(dir, "x.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := "./" + filepath.Base(dir)
	cmd := exec.Command(bin, "vet", "-fix", pkg)
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil && !strings.Contains(string(out), "Create → AlreadyExists → Update") {
		t.Fatalf("ssagen vet -fix: %v\n%s", err, out)
	}
	fixed, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`rbacv1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"`,
		`_, _, err := rbacv1ensure.EnsureRole(ctx, r, nil, role, ssaensure.NoOwner())`,
		`ssaensure "github.com/ssagen/ssagen/ensure"`,
	} {
		if !strings.Contains(string(fixed), want) {
			t.Errorf("fixed file lacks %s:\n%s", want, fixed)
		}
	}
	build := exec.Command("go", "vet", pkg)
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("the fixed package does not build: %v\n%s\n%s", err, out, fixed)
	}
}
