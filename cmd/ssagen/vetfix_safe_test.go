package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVetFixKeepsBuildVetAndTests: ssagen vet -fix on a package with the
// seed operators' shapes — the Create's error branch with error messages
// reading the object's name, logs and an else; a range over a slice of
// values written as &v — and unit tests on the fake client that inject
// errors into their writes. -fix rewrites the sites it can; the tests
// that inject a Create or an Update error get the same injection on the
// apply's Patch and keep their meaning (the failed update still reports
// as one); it declines the site whose test injects Create and Update
// differently (naming the test), prints its summary with the test file
// changed, exits 3 while a finding is left, and the package still
// builds, passes go vet and its tests. -diff shows the same rewrite,
// test edits included, and writes nothing.
func TestVetFixKeepsBuildVetAndTests(t *testing.T) {
	bin, file, pkg, goCmd := vetFixPackage(t, "zzvetfixsafe", safeSrc, safeTest)
	run := func(args ...string) (string, int) {
		cmd := exec.Command(bin, append([]string{"vet"}, append(args, pkg)...)...)
		cmd.Dir = "../.."
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	goCmd("test", "-count=1")

	before, _ := os.ReadFile(file)
	beforeTest, _ := os.ReadFile(filepath.Join(filepath.Dir(file), "x_test.go"))
	diff, code := run("-diff")
	if code != 3 || !strings.Contains(diff, "+\t\tif _, res, err := rbacensure.EnsureRole(") || !strings.Contains(diff, "would rewrite 3 of 4 sites") || !strings.Contains(diff, "+++ b/"+filepath.ToSlash(filepath.Join(pkg[2:], "x_test.go"))) {
		t.Errorf("-diff: exit %d, want 3 and the rewrite:\n%s", code, diff)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Error("-diff wrote the file")
	}
	if after, _ := os.ReadFile(filepath.Join(filepath.Dir(file), "x_test.go")); string(after) != string(beforeTest) {
		t.Error("-diff wrote the test file")
	}

	out, code := run("-fix")
	if code != 3 {
		t.Errorf("-fix exit %d, want 3 (one finding left):\n%s", code, out)
	}
	for _, want := range []string{
		"ssagen vet -fix: rewrote 3 of 4 sites; 2 file(s) changed (1 of them tests)",
		"the package's test TestInjectedWriteErrors fails with the rewrite (a test that injects errors into Create or Update through the fake client's interceptor",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("-fix output lacks %q:\n%s", want, out)
		}
	}
	fixed, _ := os.ReadFile(file)
	for _, want := range []string{
		`return fmt.Errorf("creating Role %q in %q: %w", *role.Name, *role.Namespace, err)`,
		`} else if res != ssaensure.Created {`,
		`roles := []*rbacv1ac.RoleApplyConfiguration{`,
		`if ssaensure.IsUpdateError(err) {`,
		`return fmt.Errorf("updating Role %q: %w", *role.Name, err)`,
		`if err := r.Create(ctx, both); err != nil {`, // declined: its test injects Create and Update apart
	} {
		if !strings.Contains(string(fixed), want) {
			t.Errorf("fixed file lacks %s:\n%s", want, fixed)
		}
	}
	fixedTest, _ := os.ReadFile(filepath.Join(filepath.Dir(file), "x_test.go"))
	if n := strings.Count(string(fixedTest), "Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, _ client.Patch, opts ...client.PatchOption) error {"); n != 2 {
		t.Errorf("the tests of the rewritten sites got %d injections on Patch, want 2 (Create's and Update's):\n%s", n, fixedTest)
	}
	goCmd("build")
	goCmd("vet")
	goCmd("test", "-count=1")
	if out, code := run(); code != 3 || strings.Count(out, "Create → AlreadyExists → Update") != 1 {
		t.Errorf("after -fix, vet: exit %d, want the one declined finding:\n%s", code, out)
	}
}

// vetFixPackage writes a package of this module, x.go and x_test.go, for
// ssagen vet -fix: the ssagen binary, x.go's path, the package's
// pattern, and a runner of go commands on it that fails the test.
func vetFixPackage(t *testing.T, prefix, src, test string) (bin, file, pkg string, goCmd func(...string)) {
	t.Helper()
	bin, dir := vetSetup(t, prefix)
	for name, text := range map[string]string{"x.go": src, "x_test.go": test} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkg = "./" + filepath.Base(dir)
	goCmd = func(args ...string) {
		t.Helper()
		cmd := exec.Command("go", append(args, pkg)...)
		cmd.Dir = "../.."
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return bin, filepath.Join(dir, "x.go"), pkg, goCmd
}

// vetFixRun runs ssagen vet -fix on pkg, whose x.go is file, checks that
// its summary says summary, and returns x.go and x_test.go as it left
// them.
func vetFixRun(t *testing.T, bin, pkg, file, summary string) (fixed, fixedTest []byte) {
	t.Helper()
	cmd := exec.Command(bin, "vet", "-fix", pkg)
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("vet -fix: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), summary) {
		t.Errorf("-fix output:\n%s", out)
	}
	fixed, _ = os.ReadFile(file)
	fixedTest, _ = os.ReadFile(filepath.Join(filepath.Dir(file), "x_test.go"))
	return fixed, fixedTest
}

const safeSrc = `package x

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rbacensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"
)

type R struct {
	client.Client
	Log []string
}

func (r *R) grants(ctx context.Context, namespaces []string) error {
	for _, ns := range namespaces {
		role := &rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: ns},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}},
		}
		if err := r.Create(ctx, role); err != nil {
			if !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("creating Role %q in %q: %w", role.Name, role.Namespace, err)
			}
			if err = r.Update(ctx, role); err != nil {
				return fmt.Errorf("updating Role %q: %w", role.Name, err)
			}
			r.Log = append(r.Log, "updated "+ns)
		} else {
			r.Log = append(r.Log, "created "+ns)
		}
	}
	return nil
}

func (r *R) defaults(ctx context.Context, ns string) error {
	roles := []rbacv1.Role{
		{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: ns}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: ns}},
	}
	for _, role := range roles {
		r.Log = append(r.Log, "ensuring "+role.Name)
		if err := r.Create(ctx, &role); err != nil {
			if !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("creating Role %q: %w", role.Name, err)
			}
			if err = r.Update(ctx, &role); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *R) injectedRole(ctx context.Context, ns string) error {
	injected := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "injected", Namespace: ns}}
	if err := r.Create(ctx, injected); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating Role: %w", err)
		}
		return r.Update(ctx, injected)
	}
	return nil
}

func (r *R) injectedBoth(ctx context.Context, ns string) error {
	both := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "both", Namespace: ns}}
	if err := r.Create(ctx, both); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating Role: %w", err)
		}
		return r.Update(ctx, both)
	}
	return nil
}

var _ = rbacensure.EnsureRole
`

const safeTest = `package x

import (
	"context"
	"errors"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
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

func TestGrants(t *testing.T) {
	ctx := context.Background()
	r := &R{Client: newClient(interceptor.Funcs{})}
	for i := 0; i < 2; i++ {
		if err := r.grants(ctx, []string{"a", "b"}); err != nil {
			t.Fatal(err)
		}
		if err := r.defaults(ctx, "a"); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(r.Log[:2], ",") != "created a,created b" {
		t.Errorf("log %v", r.Log)
	}
	var role rbacv1.Role
	if err := r.Get(ctx, client.ObjectKey{Namespace: "a", Name: "a"}, &role); err != nil || len(role.Rules) != 1 {
		t.Errorf("role a: %v %v", err, role.Rules)
	}
}

func TestInjectedCreateError(t *testing.T) {
	r := &R{Client: newClient(interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		return errors.New("boom")
	}})}
	if err := r.injectedRole(context.Background(), "a"); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("want the injected error, got %v", err)
	}
}

func TestInjectedUpdateError(t *testing.T) {
	r := &R{Client: newClient(interceptor.Funcs{Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
		return errors.New("refused")
	}})}
	existing := &rbacv1.Role{}
	existing.Name, existing.Namespace = "reader", "a"
	if err := r.Client.Create(context.Background(), existing); err != nil {
		t.Fatal(err)
	}
	if err := r.grants(context.Background(), []string{"a"}); err == nil || !strings.Contains(err.Error(), "updating Role \"reader\": refused") {
		t.Errorf("want the failed update, got %v", err)
	}
}

func TestInjectedWriteErrors(t *testing.T) {
	r := &R{Client: newClient(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return errors.New("create refused")
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return errors.New("update refused")
		},
	})}
	if err := r.injectedBoth(context.Background(), "a"); err == nil || !strings.Contains(err.Error(), "create refused") {
		t.Errorf("want the injected error, got %v", err)
	}
}
`

// TestVetFixSaysHelperDoesNotTypeCheck: a helper found in the module
// (ssagen's header, EnsureJob declared) that does not type-check — the
// runtime module not yet required, say — is named in the reason, not
// reported as missing.
func TestVetFixSaysHelperDoesNotTypeCheck(t *testing.T) {
	bin, dir := vetSetup(t, "zzvetbadhelper")
	helper := filepath.Join(dir, "gen", "batch", "v1", "ensure")
	if err := os.MkdirAll(helper, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(helper, "ensure.go"), []byte(`// Code generated by ssagen. DO NOT EDIT.

package ensure

import batchv1 "k8s.io/api/batch/v1"

func EnsureJob() (*batchv1.Job, int, error) { return nil, 0, notDeclared }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `package x

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type R struct{ client.Client }

func (r *R) job(ctx context.Context) error {
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "n"}}
	if err := r.Create(ctx, job); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		return r.Update(ctx, job)
	}
	return nil
}
`
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "vet", "./"+filepath.Base(dir))
	cmd.Dir = "../.."
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "gen/batch/v1/ensure declares EnsureJob but does not type-check") || !strings.Contains(string(out), "notDeclared") {
		t.Errorf("vet does not say the helper does not type-check:\n%s", out)
	}
}
