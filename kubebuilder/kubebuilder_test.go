package kubebuilder_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/internal/scratch"
)

func TestMain(m *testing.M) { scratch.Main(m) }

// The tests of this file run the plugin the way its users do: kubebuilder
// v4.16 (SSAGEN_KUBEBUILDER, built by hack/kubebuilder.sh) finds the
// installed ssagen.io under EXTERNAL_PLUGINS_PATH, and the scaffolded
// project is generated, built, vetted and tested with its own Makefile and
// test suite, on envtest (KUBEBUILDER_ASSETS; setup-envtest cannot
// download here).

// tools is what a test needs on the machine.
type tools struct {
	repo, ssagen, kubebuilder, plugins, assets string
}

func setup(t *testing.T) tools {
	t.Helper()
	if testing.Short() {
		t.Skip("scaffolds Kubebuilder projects")
	}
	required := os.Getenv("SSAGEN_REQUIRE_ENVTEST") == "1"
	tl := tools{kubebuilder: os.Getenv("SSAGEN_KUBEBUILDER"), assets: os.Getenv("KUBEBUILDER_ASSETS")}
	if tl.kubebuilder == "" || tl.assets == "" {
		if required {
			t.Fatal("SSAGEN_KUBEBUILDER and KUBEBUILDER_ASSETS must be set (make test sets them)")
		}
		t.Skip("needs SSAGEN_KUBEBUILDER (hack/kubebuilder.sh) and KUBEBUILDER_ASSETS (hack/envtest-assets.sh)")
	}
	tl.repo, tl.ssagen = scratch.Repo(), scratch.SSAgen(t)
	tl.plugins = t.TempDir()
	out := run(t, tl, tl.repo, tl.ssagen, "kubebuilder", "install", "-dir", tl.plugins)
	if !strings.Contains(out, filepath.Join(tl.plugins, "ssagen.io", "v1-alpha", "ssagen.io")) {
		t.Fatalf("install printed %q", out)
	}
	return tl
}

// run runs a command in dir with the plugins root and envtest's binaries
// in its environment and fails the test if it fails.
func run(t *testing.T, tl tools, dir, name string, args ...string) string {
	t.Helper()
	out, err := try(tl, dir, name, args...)
	if err != nil {
		t.Fatalf("%s %s in %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), dir, err, out)
	}
	return out
}

func try(tl tools, dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "EXTERNAL_PLUGINS_PATH="+tl.plugins, "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tree hashes every file under dir but bin/ (the tools the Makefile
// downloads), by path.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if rel == "bin" || rel == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// changed lists the files added, removed or changed between two trees.
func changed(before, after map[string]string) []string {
	var out []string
	for p, h := range after {
		if before[p] != h {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p+" (removed)")
		}
	}
	return out
}

// check is what every scaffolded project must pass: its generate and
// manifests targets, build, go vet, its own tests on envtest, and ssagen
// vet finding nothing.
func check(t *testing.T, tl tools, dir string) {
	t.Helper()
	run(t, tl, dir, "make", "generate", "manifests")
	run(t, tl, dir, "go", "mod", "tidy")
	before := tree(t, dir)
	run(t, tl, dir, "make", "generate", "manifests")
	if c := changed(before, tree(t, dir)); len(c) > 0 {
		t.Errorf("a second make generate manifests changed %v", c)
	}
	run(t, tl, dir, "go", "build", "./...")
	run(t, tl, dir, "go", "vet", "./...")
	cmd := exec.Command("go", "test", "-count=1", "./internal/...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBEBUILDER_ASSETS="+tl.assets, "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the scaffold's tests: %v\n%s", err, out)
	}
	if out, err := try(tl, dir, tl.ssagen, "vet", "./..."); err != nil {
		t.Errorf("ssagen vet ./... on the scaffold: %v\n%s", err, out)
	}
}

// TestInitAndCreateAPI is the quickstart: init with the plugin, a
// namespaced kind ensuring a ConfigMap, a cluster-scoped kind ensuring a
// Deployment, a kind without status, and what each reconciler costs on a
// real API server (asserted by the scaffold's own tests).
func TestInitAndCreateAPI(t *testing.T) {
	tl := setup(t)
	dir := t.TempDir()
	kb := func(args ...string) string { return run(t, tl, dir, tl.kubebuilder, args...) }
	kb("init", "--domain", "example.com", "--repo", "example.com/op", "--plugins", "go/v4,ssagen.io/v1-alpha", "--ssagen-replace", tl.repo)
	for _, f := range []string{"tools.mod", "tools.sum"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if s := read(t, filepath.Join(dir, "go.mod")); strings.Contains(s, "github.com/ssagen/ssagen ") || strings.Contains(s, "controller-tools") {
		t.Errorf("the generator's dependencies entered go.mod:\n%s", s)
	}
	if s := read(t, filepath.Join(dir, "PROJECT")); !strings.Contains(s, "- ssagen.io/v1-alpha") {
		t.Errorf("PROJECT layout has no ssagen.io/v1-alpha:\n%s", s)
	}
	for file, want := range map[string]string{
		"Makefile":                     "$(SSAGEN) generate --ensure",
		".custom-gcl.yml":              "github.com/ssagen/ssagen/vet/golangci",
		".golangci.yml":                "- ssagenvet",
		"README.md":                    "## Server-side apply with ssagen",
		".ssagen-budget.yaml":          "controller-manager",
		"hack/audit/kind-config.yaml":  "audit-log-path",
		"hack/audit/audit-policy.yaml": "kind: Policy",
	} {
		if !strings.Contains(read(t, filepath.Join(dir, file)), want) {
			t.Errorf("%s has no %q", file, want)
		}
	}

	kb("create", "api", "--group", "web", "--version", "v1", "--kind", "Site", "--resource", "--controller")
	// --ssa: go/v4 adds controller-gen applyconfiguration to the manifests
	// target, which ssagen replaces.
	kb("create", "api", "--group", "web", "--version", "v1", "--kind", "Tenant", "--namespaced=false", "--resource", "--controller", "--child", "deployment", "--ssa")
	if mk := read(t, filepath.Join(dir, "Makefile")); strings.Contains(mk, "applyconfiguration:") {
		t.Errorf("create api --ssa left controller-gen applyconfiguration in the Makefile")
	}
	// A kind without status: created without a controller, its status
	// taken out, then given a controller.
	kb("create", "api", "--group", "web", "--version", "v1", "--kind", "Plain", "--resource", "--controller=false")
	types := filepath.Join(dir, "api", "v1", "plain_types.go")
	s := read(t, types)
	s = strings.Replace(s, "// +kubebuilder:subresource:status\n", "", 1)
	s = strings.Replace(s, "\n\t// status defines the observed state of Plain\n\t// +optional\n\tStatus PlainStatus `json:\"status,omitzero\"`\n", "\n", 1)
	if strings.Contains(s, "Status PlainStatus") || strings.Contains(s, "subresource:status") {
		t.Fatalf("the go/v4 type template changed; the test cannot take the status out:\n%s", s)
	}
	write(t, types, s)
	run(t, tl, dir, "make", "generate")
	out := kb("create", "api", "--group", "web", "--version", "v1", "--kind", "Plain", "--resource=false", "--controller")
	if !strings.Contains(out, "Plain has no status subresource") {
		t.Errorf("create api for a kind without status did not say so:\n%s", out)
	}

	site := read(t, filepath.Join(dir, "internal", "controller", "site_controller.go"))
	for _, want := range []string{"EnsureConfigMap(ctx, r.Client, &site, child)", "EnsureSiteStatus(", "OwnedConfigMapChanges(c)", contract.RuntimeAlias + ".NewClient(r.Client, " + contract.RuntimeAlias + ".FieldManager(siteFieldManager))"} {
		if !strings.Contains(site, want) {
			t.Errorf("site_controller.go has no %q", want)
		}
	}
	tenant := read(t, filepath.Join(dir, "internal", "controller", "tenant_controller.go"))
	if !strings.Contains(tenant, "EnsureDeployment(ctx, r.Client, &tenant, child)") || !strings.Contains(tenant, "webv1ac.Tenant(tenant.Name)") {
		t.Errorf("tenant_controller.go does not ensure a Deployment for a cluster-scoped owner:\n%s", tenant)
	}
	if plain := read(t, filepath.Join(dir, "internal", "controller", "plain_controller.go")); strings.Contains(plain, "Status") && strings.Contains(plain, "EnsurePlainStatus") {
		t.Errorf("plain_controller.go writes a status the kind does not have")
	}
	check(t, tl, dir)
	if !strings.Contains(read(t, filepath.Join(dir, "Makefile")), "\ntest-e2e-audit:") {
		t.Errorf("the Makefile has no test-e2e-audit target")
	}
	auditGate(t, tl, dir)
	role := read(t, filepath.Join(dir, "config", "rbac", "role.yaml"))
	for _, want := range []string{"configmaps", "deployments", "sites/status", "tenants/status"} {
		if !strings.Contains(role, want) {
			t.Errorf("config/rbac/role.yaml grants nothing on %s:\n%s", want, role)
		}
	}

	// The kind exists: go/v4 refuses it, and so does the plugin alone.
	before := tree(t, dir)
	if out, err := try(tl, dir, tl.kubebuilder, "create", "api", "--plugins", "ssagen.io/v1-alpha", "--group", "web", "--version", "v1", "--kind", "Site"); err == nil ||
		!strings.Contains(out, "internal/controller/site_controller.go: Site already has a reconciler scaffolded by ssagen.io/v1-alpha") {
		t.Errorf("create api for a scaffolded kind: %v\n%s", err, out)
	}
	if c := changed(before, tree(t, dir)); len(c) > 0 {
		t.Errorf("a refused create api wrote %v", c)
	}
}

// handWritten is a go/v4 reconciler written before ssagen, with the
// Create → AlreadyExists → Update write ssagen vet finds.
const handWritten = `package controller

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webv1 "example.com/old/api/v1"
)

// SiteReconciler reconciles a Site object
type SiteReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

// Reconcile writes the Site's ConfigMap.
func (r *SiteReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: req.Name, Namespace: req.Namespace}, Data: map[string]string{"a": "b"}}
	err := r.Create(ctx, cm)
	if apierrors.IsAlreadyExists(err) {
		err = r.Update(ctx, cm)
	}
	return ctrl.Result{}, err
}

// SetupWithManager sets up the controller with the Manager.
func (r *SiteReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&webv1.Site{}).Named("site").Complete(r)
}
`

// usesAC uses the apply configurations controller-gen applyconfiguration
// generated for a kind created with --ssa.
const usesAC = `package controller

import webv1ac "example.com/old/api/v1/applyconfiguration/api/v1"

var _ = webv1ac.Site("n", "ns").WithSpec(webv1ac.SiteSpec().WithFoo("x"))
`

// TestEditProject adds the plugin to projects scaffolded without it: one
// plain, whose reconciler vet then points at, and one whose kind was
// created with --ssa, where ssagen takes controller-gen
// applyconfiguration's place and files. Kinds created afterwards with the
// plugin in --plugins get its reconciler.
func TestEditProject(t *testing.T) {
	scratch.MatrixOnly(t)
	tl := setup(t)
	for _, ssa := range []bool{false, true} {
		name := "plain"
		if ssa {
			name = "ssa"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			kb := func(args ...string) string { return run(t, tl, dir, tl.kubebuilder, args...) }
			kb("init", "--domain", "example.com", "--repo", "example.com/old", "--plugins", "go/v4")
			api := []string{"create", "api", "--group", "web", "--version", "v1", "--kind", "Site", "--resource", "--controller"}
			if ssa {
				api = append(api, "--ssa")
			}
			kb(api...)
			ctrlFile := filepath.Join(dir, "internal", "controller", "site_controller.go")
			write(t, ctrlFile, handWritten)
			run(t, tl, dir, "make", "generate", "manifests")
			acFile := filepath.Join(dir, "api", "v1", "applyconfiguration", "api", "v1", "site.go")
			if ssa {
				if !strings.Contains(read(t, acFile), "Code generated by controller-gen") {
					t.Fatalf("create api --ssa generated no apply configurations in %s", acFile)
				}
				// Code of the project's written against controller-gen's
				// apply configurations: it must compile after the switch.
				write(t, filepath.Join(dir, "internal", "controller", "uses_ac.go"), usesAC)
				run(t, tl, dir, "go", "build", "./...")
			}

			kb("edit", "--plugins", "ssagen.io/v1-alpha", "--ssagen-replace", tl.repo)
			if read(t, ctrlFile) != handWritten {
				t.Errorf("edit rewrote the reconciler")
			}
			mk := read(t, filepath.Join(dir, "Makefile"))
			if strings.Contains(mk, "applyconfiguration:headerFile") {
				t.Errorf("the Makefile still runs controller-gen applyconfiguration")
			}
			if ssa && !strings.Contains(read(t, acFile), "Code generated by ssagen") {
				t.Errorf("%s is not ssagen's after edit", acFile)
			}
			run(t, tl, dir, "make", "generate")
			run(t, tl, dir, "go", "mod", "tidy")
			run(t, tl, dir, "go", "build", "./...")
			run(t, tl, dir, "go", "vet", "./...")
			out, err := try(tl, dir, tl.ssagen, "vet", "./...")
			if err == nil || !strings.Contains(out, "site_controller.go") || !strings.Contains(out, "Create → AlreadyExists → Update") {
				t.Errorf("ssagen vet ./... after edit: %v\n%s", err, out)
			}

			// A new kind, with the plugin in the chain.
			api = []string{"create", "api", "--plugins", "go/v4,ssagen.io/v1-alpha", "--group", "web", "--version", "v1", "--kind", "Shop", "--resource", "--controller"}
			if ssa {
				api = append(api, "--ssa")
			}
			kb(api...)
			// The old reconciler's write taken out, as its author would
			// move it onto the helpers, so that vet has nothing to say.
			write(t, ctrlFile, strings.Replace(handWritten, "err := r.Create(ctx, cm)\n\tif apierrors.IsAlreadyExists(err) {\n\t\terr = r.Update(ctx, cm)\n\t}\n\treturn ctrl.Result{}, err", "_, _ = cm, apierrors.IsAlreadyExists\n\treturn ctrl.Result{}, nil", 1))
			check(t, tl, dir)
		})
	}
}

// auditGate runs the gate of make test-e2e-audit (the ssagen the project
// pins, its budget, its code as --source) on two audit logs, as the
// target runs it on its Kind cluster's: one where the manager's service
// account gets a 409 fails, with the row; one where it does not passes.
// (The target's cluster needs kind and a container runtime, which this
// machine lacks; make -n shows the rest of it.)
func auditGate(t *testing.T, tl tools, dir string) {
	t.Helper()
	project := filepath.Base(dir)
	line := func(user string, code int) string {
		return `{"apiVersion":"audit.k8s.io/v1","kind":"Event","stage":"ResponseComplete","verb":"create","user":{"username":"` + user +
			`"},"userAgent":"manager/v0.0.0","objectRef":{"resource":"configmaps","namespace":"ns","name":"a","apiVersion":"v1"},"responseStatus":{"code":` +
			strconv.Itoa(code) + `},"stageTimestamp":"2026-11-25T10:00:00Z"}` + "\n"
	}
	manager := "system:serviceaccount:" + project + "-system:" + project + "-controller-manager"
	for _, tc := range []struct {
		log  string
		fail bool
	}{
		{line(manager, 201) + line("kubernetes-admin", 409), false},
		{line(manager, 201) + line(manager, 409), true},
	} {
		log := filepath.Join(t.TempDir(), "e2e-audit.log")
		write(t, log, tc.log)
		out, err := try(tl, dir, "go", "tool", "-modfile=tools.mod", "ssagen", "audit", "--budget", ".ssagen-budget.yaml", "--source", "./...", log)
		if failed := err != nil; failed != tc.fail || tc.fail && !strings.Contains(out, "over budget: create configmaps by "+manager) {
			t.Errorf("the gate on a log (fail %v): %v\n%s", tc.fail, err, out)
		}
	}
	out := run(t, tl, dir, "make", "-n", "test-e2e-audit")
	if !strings.Contains(out, "--config hack/audit/kind-config.yaml") || !strings.Contains(out, "ssagen audit --budget .ssagen-budget.yaml --source ./...") {
		t.Errorf("make -n test-e2e-audit:\n%s", out)
	}
}
