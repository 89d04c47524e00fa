package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ssagen/ssagen/internal/scratch"
	"github.com/ssagen/ssagen/internal/testenv"
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
	pkg, fixed := vetFix(t, bin, dir, src)
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
	builds(t, pkg, fixed)
}

// vetSetup returns the ssagen binary (built once per test process) and
// makes a package folder in this module (so that it loads the module's
// dependencies), removed when the test ends.
func vetSetup(t *testing.T, prefix string) (bin, dir string) {
	t.Helper()
	// Each test has a package of its own and runs go and ssagen on it
	// alone: the tests run in parallel.
	t.Parallel()
	bin = scratch.SSAgen(t)
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
	pkg, fixed := vetFix(t, bin, dir, src)
	for _, want := range []string{
		`rbacv1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"`,
		`_, _, err := rbacv1ensure.EnsureRole(ctx, r, nil, role, ssaensure.NoOwner())`,
		`ssaensure "github.com/ssagen/ssagen/ensure"`,
	} {
		if !strings.Contains(string(fixed), want) {
			t.Errorf("fixed file lacks %s:\n%s", want, fixed)
		}
	}
	builds(t, pkg, fixed)
}

// e2eOperator is a reconciler written the way seed 000's operator was:
// Create → AlreadyExists → Update for a Role, and a Create that ignores
// AlreadyExists for a ServiceAccount; and the way most operators write the
// rest: a ConfigMap built as a typed object by a function, written with
// Create → AlreadyExists → Update, and the owner's status written with
// Status().Update. It imports no ssagen helper.
const e2eOperator = `package op

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
)

type Reconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

func (r *Reconciler) Reconcile(ctx context.Context, p *platformv1alpha1.Project, ns string) error {
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name + "-member", Namespace: ns},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}}},
	}
	if err := controllerutil.SetControllerReference(p, role, r.Scheme); err != nil {
		return err
	}
	err := r.Create(ctx, role)
	if apierrors.IsAlreadyExists(err) {
		err = r.Update(ctx, role)
	}
	if err != nil {
		return err
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: ns}}
	if err := controllerutil.SetControllerReference(p, sa, r.Scheme); err != nil {
		return err
	}
	if err := r.Create(ctx, sa); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	cm := desiredConfigMap(p, ns)
	if err := controllerutil.SetControllerReference(p, cm, r.Scheme); err != nil {
		return err
	}
	err = r.Create(ctx, cm)
	if apierrors.IsAlreadyExists(err) {
		err = r.Update(ctx, cm)
	}
	if err != nil {
		return err
	}
	p.Status.Phase = platformv1alpha1.ProjectReady
	return r.Status().Update(ctx, p)
}

// desiredConfigMap builds the project's ConfigMap as a typed object.
func desiredConfigMap(p *platformv1alpha1.Project, ns string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name + "-settings", Namespace: ns, Labels: map[string]string{"project": p.Name}},
		Data:       map[string]string{"project": p.Name},
	}
}
`

// e2eTest runs the reconciler on envtest, through an informer cache as a
// manager's client reads: one reconcile creates, five more find
// everything in place. It prints what the five cost.
const e2eTest = `package op

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	"github.com/ssagen/ssagen/internal/testenv"
)

func TestReconcile(t *testing.T) {
	cfg := testenv.Start(t)
	scheme := runtime.NewScheme()
	clientgoscheme.AddToScheme(scheme)
	platformv1alpha1.AddToScheme(scheme)
	counted, counter := testenv.Count(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	informers, err := cache.New(counted, cache.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	go informers.Start(ctx)
	c, err := client.New(counted, client.Options{Scheme: scheme, Cache: &client.CacheOptions{Reader: informers}})
	if err != nil {
		t.Fatal(err)
	}
	direct, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}); err != nil {
		t.Fatal(err)
	}
	p := &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: "demo"}}
	if err := direct.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	r := &Reconciler{Client: c, Scheme: scheme}
	if err := r.Reconcile(ctx, p, "team"); err != nil {
		t.Fatal(err)
	}
	// Let the cache see what the first reconcile wrote.
	for i := 0; i < 300; i++ {
		var role rbacv1.Role
		var sa corev1.ServiceAccount
		var cm corev1.ConfigMap
		var project platformv1alpha1.Project
		if c.Get(ctx, client.ObjectKey{Namespace: "team", Name: "demo-member"}, &role) == nil &&
			c.Get(ctx, client.ObjectKey{Namespace: "team", Name: "demo"}, &sa) == nil &&
			c.Get(ctx, client.ObjectKey{Namespace: "team", Name: "demo-settings"}, &cm) == nil &&
			c.Get(ctx, client.ObjectKey{Name: "demo"}, &project) == nil && project.Status.Phase == platformv1alpha1.ProjectReady {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	before := counter.Snapshot()
	for i := 0; i < 5; i++ {
		if err := r.Reconcile(ctx, p, "team"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	got := counter.Since(before)
	var role rbacv1.Role
	if err := direct.Get(ctx, client.ObjectKey{Namespace: "team", Name: "demo-member"}, &role); err != nil || len(role.Rules) != 1 || len(role.OwnerReferences) != 1 {
		t.Fatalf("role: %v %+v", err, role)
	}
	fmt.Printf("E2E conflicts=%d requests=%d (%s)\n", testenv.Total(got, "POST 409", "PUT 409", "PATCH 409"), testenv.Total(got, ""), testenv.String(got))
}
`

// TestVetFixEndToEnd: a reconciler written with Create → AlreadyExists →
// Update (of a literal, and of a typed object built by a function), a
// create-ignore and a Status().Update runs on envtest and 409s on every
// resync; `ssagen vet -fix` rewrites it onto the example's generated
// helpers and converters (which it does not import); the rewritten
// reconciler builds, its test passes, and its resyncs send nothing and get
// no 409 (measured: 15 × 409 and 30 requests over 5 resyncs before, none
// after).
func TestVetFixEndToEnd(t *testing.T) {
	testenv.Require(t)
	bin, dir := vetSetup(t, "zzvete2e")
	file := filepath.Join(dir, "op.go")
	if err := os.WriteFile(file, []byte(e2eOperator), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "op_test.go"), []byte(e2eTest), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := "./" + filepath.Base(dir)
	cost := func(stage string) (conflicts, requests int) {
		t.Helper()
		cmd := exec.Command("go", "test", "-count=1", "-v", pkg)
		cmd.Dir = "../.."
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: the reconciler's test fails: %v\n%s", stage, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if rest, ok := strings.CutPrefix(line, "E2E "); ok {
				if _, err := fmt.Sscanf(rest, "conflicts=%d requests=%d", &conflicts, &requests); err != nil {
					t.Fatalf("%s: %q: %v", stage, line, err)
				}
				t.Logf("%s: %s", stage, rest)
				return conflicts, requests
			}
		}
		t.Fatalf("%s: no cost line in\n%s", stage, out)
		return 0, 0
	}
	if conflicts, _ := cost("before -fix"); conflicts < 15 {
		t.Fatalf("before -fix: %d 409s over 5 resyncs, want at least 15 (a Role, a ServiceAccount and a ConfigMap Create each)", conflicts)
	}
	cmd := exec.Command(bin, "vet", "-fix", pkg)
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil && !strings.Contains(string(out), "AlreadyExists") {
		t.Fatalf("ssagen vet -fix: %v\n%s", err, out)
	}
	fixed, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rbacv1ensure.EnsureRole(ctx, r.Client, p, role)", "corev1ensure.EnsureServiceAccount(ctx, r.Client, p, sa, ssaensure.CreateOnly())",
		"cm := corev1ensure.FromConfigMap(desiredConfigMap(p, ns))", "corev1ensure.EnsureConfigMap(ctx, r.Client, p, cm)",
		"return ssaensure.Err(apiv1alpha1ensure.EnsureProjectStatus(ctx, r.Client, apiv1alpha1ac.StatusFromProject(p)))"} {
		if !strings.Contains(string(fixed), want) {
			t.Errorf("fixed file lacks %s:\n%s", want, fixed)
		}
	}
	if conflicts, requests := cost("after -fix"); conflicts != 0 || requests != 0 {
		t.Errorf("after -fix: %d 409s and %d requests over 5 resyncs, want none", conflicts, requests)
	}
	again := exec.Command(bin, "vet", pkg)
	again.Dir = "../.."
	if out, err := again.CombinedOutput(); err != nil {
		t.Errorf("ssagen vet still finds something after -fix: %v\n%s", err, out)
	}
}

// vetFix writes src as the package in dir, runs `ssagen vet -fix` on it
// and returns the package pattern and the rewritten file.
func vetFix(t *testing.T, bin, dir, src string) (pkg string, fixed []byte) {
	t.Helper()
	file := filepath.Join(dir, "x.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg = "./" + filepath.Base(dir)
	cmd := exec.Command(bin, "vet", "-fix", pkg)
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil && !strings.Contains(string(out), "Create → AlreadyExists → Update") {
		t.Fatalf("ssagen vet -fix: %v\n%s", err, out)
	}
	fixed, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return pkg, fixed
}

// builds checks the fixed package compiles (go vet type-checks it).
func builds(t *testing.T, pkg string, fixed []byte) {
	t.Helper()
	build := exec.Command("go", "vet", pkg)
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("the fixed package does not build: %v\n%s\n%s", err, out, fixed)
	}
}

func TestMain(m *testing.M) { scratch.Main(m) }

// TestVetAcrossPackages: in a module of its own (its path without a dot,
// as a module may be named), a controller hands a pod it read from the
// cache to a helper of another package of the module, which Updates it,
// and retries a method of that package that Gets and Updates. Both
// drivers see across the packages: ssagen vet given the controller's
// package alone (it parses and checks the module's packages that package
// imports), and go vet -vettool (which analyses dependencies first).
func TestVetAcrossPackages(t *testing.T) {
	bin := scratch.SSAgen(t)
	dir := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(scratch.Repo(), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(gomod), "\n") {
		switch {
		case strings.HasPrefix(l, "module "):
			l = "module crossvet"
		case strings.HasPrefix(l, "tool "):
			continue
		}
		lines = append(lines, l)
	}
	scratch.Write(t, filepath.Join(dir, "go.mod"), strings.Join(lines, "\n"))
	sum, err := os.ReadFile(filepath.Join(scratch.Repo(), "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	scratch.Write(t, filepath.Join(dir, "go.sum"), string(sum))
	scratch.Write(t, filepath.Join(dir, "kube", "kube.go"), `package kube

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Label sets a label on the pod it is handed and writes it.
func Label(ctx context.Context, c client.Client, pod *corev1.Pod, key, value string) error {
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[key] = value
	return c.Update(ctx, pod)
}

// Counter reads and writes a ConfigMap.
type Counter struct{ client.Client }

func (c *Counter) Bump(ctx context.Context) error {
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "counter"}, cm); err != nil {
		return err
	}
	cm.Data["n"] += "1"
	return c.Update(ctx, cm)
}
`)
	scratch.Write(t, filepath.Join(dir, "controller", "controller.go"), `package controller

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"crossvet/kube"
)

type Reconciler struct {
	client.Client
	Counter *kube.Counter
}

func (r *Reconciler) label(ctx context.Context) error {
	pod := &corev1.Pod{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "p"}, pod); err != nil {
		return err
	}
	return kube.Label(ctx, r.Client, pod, "seen", "true")
}

func (r *Reconciler) count(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		return r.Counter.Bump(ctx)
	})
}
`)
	for _, args := range [][]string{{bin, "vet", "./controller"}, {"go", "vet", "-vettool=" + bin, "./controller"}} {
		out, err := scratch.Try(dir, args[0], args[1:]...)
		if err == nil {
			t.Errorf("%v: exit 0, want findings", args)
		}
		for _, want := range []string{
			"controller.go:23:9: Update of a Pod read from the cache, in Label, which this call hands it to",
			"controller.go:27:9: RetryOnConflict around Get + Update (in Bump, which it calls)",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: no %q in:\n%s", args, want, out)
			}
		}
		if strings.Contains(out, "kube.go") {
			t.Errorf("%v reported the helper package, which was not asked for:\n%s", args, out)
		}
	}
}
