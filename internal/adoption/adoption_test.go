// Package adoption tests ssagen the way an operator author adopts it: in a
// scratch module of their own, pinned at older k8s.io and
// controller-runtime versions, generating with the ssagen binary (as `go
// tool -modfile=tools.mod ssagen` runs it) and unit-testing a reconciler
// on controller-runtime's fake client.
package adoption

import (
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/packages"

	"github.com/ssagen/ssagen/internal/apisurface"
	"github.com/ssagen/ssagen/internal/scratch"
)

// matrix are the operators' pins: controller-runtime v0.22.4 (the oldest the
// runtime supports and requires: typed Apply came in v0.22.0, whose client
// still tried to encode apply configurations as protobuf — TestPredicate
// fails there) with the k8s.io it requires, to v0.25, each with the k8s.io
// minor it was released with.
var matrix = []struct{ k8s, controllerRuntime, goVersion string }{
	{"v0.34.1", "v0.22.4", "1.24.0"}, // the floor: what the runtime module requires
	{"v0.35.0", "v0.23.3", "1.25.0"},
	{"v0.36.3", "v0.24.1", "1.25.0"},
	{"v0.37.0", "v0.25.2", "1.26.0"},
}

func TestMain(m *testing.M) { scratch.Main(m) }

// cells are the cells of the matrix TestOperatorKeepsItsVersions covers
// in this run: the floor in make test, where every change is checked
// against the oldest supported release; the others in make test-matrix
// (scratch.InMatrix), which .ci/run runs too.
func cells() []struct{ k8s, controllerRuntime, goVersion string } {
	if scratch.InMatrix() {
		return matrix[1:]
	}
	return matrix[:1]
}

// pins are an operator's requirements at one cell of the matrix.
func pins(k8s, controllerRuntime string) map[string]string {
	return map[string]string{
		"k8s.io/api":                     k8s,
		"k8s.io/apimachinery":            k8s,
		"k8s.io/client-go":               k8s,
		"sigs.k8s.io/controller-runtime": controllerRuntime,
	}
}

// goMod is a go.mod requiring pinned and the runtime module (replaced by
// the checkout's ensure/ folder, as a published version would be fetched).
func goMod(module, goVersion string, pinned map[string]string, ensureDir string) string {
	s := "module " + module + "\n\ngo " + goVersion + "\n\nrequire (\n"
	for _, m := range slices.Sorted(maps.Keys(pinned)) {
		s += "\t" + m + " " + pinned[m] + "\n"
	}
	return s + "\tgithub.com/ssagen/ssagen/ensure v0.0.0-00010101000000-000000000000\n)\n\n" +
		"replace github.com/ssagen/ssagen/ensure => " + ensureDir + "\n"
}

// checkPins fails the test when the module in dir no longer requires
// exactly the pinned versions.
func checkPins(t *testing.T, dir string, pinned map[string]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", b, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range f.Require {
		got[r.Mod.Path] = r.Mod.Version
	}
	for m, v := range pinned {
		if got[m] != v {
			t.Errorf("importing the generated helpers moved %s from %s to %s", m, v, got[m])
		}
	}
}

// TestOperatorKeepsItsVersions generates helpers into an operator module
// pinned at each cell of the matrix, runs the operator's fake-client unit
// test there, and checks that its pins did not move and that none of the
// generator's dependencies entered its module graph.
func TestOperatorKeepsItsVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds scratch operator modules at other k8s.io versions")
	}
	repo, bin := scratch.Repo(), scratch.SSAgen(t)
	for _, cell := range cells() {
		t.Run("controller-runtime-"+cell.controllerRuntime, func(t *testing.T) {
			t.Parallel() // go test -parallel (the cores) at a time
			pinned := pins(cell.k8s, cell.controllerRuntime)
			op := t.TempDir()
			scratch.Write(t, filepath.Join(op, "go.mod"), goMod("example.com/operator", cell.goVersion, pinned, filepath.Join(repo, "ensure")))
			scratch.Write(t, filepath.Join(op, "api", "v1", "types.go"), apiTypes)
			scratch.Write(t, filepath.Join(op, "main.go"), mainGo)
			scratch.Run(t, op, "go", "mod", "tidy")
			scratch.Run(t, op, bin, "generate", "--ensure", "--ensure-kinds", "k8s.io/api/core/v1.ConfigMap", "--output-dir", "pkg/applyconfiguration", "./api/...")
			scratch.Write(t, filepath.Join(op, "controller", "controller.go"), controller)
			scratch.Write(t, filepath.Join(op, "controller", "controller_test.go"), controllerTest)
			scratch.Write(t, filepath.Join(op, "controller", "envtest_test.go"), envtestTest)
			scratch.Run(t, op, "go", "mod", "tidy")
			checkPins(t, op, pinned)
			graph := scratch.Run(t, op, "go", "mod", "graph")
			for _, m := range []string{"github.com/ssagen/ssagen ", "github.com/ssagen/ssagen@", "sigs.k8s.io/controller-tools", "github.com/dave/jennifer", "github.com/gobuffalo/flect"} {
				if strings.Contains(graph, m) {
					t.Errorf("the operator's module graph now holds %s, a dependency of the generator", strings.TrimSpace(m))
				}
			}
			out := scratch.Run(t, op, "go", "test", "-count=1", "-v", "./...")
			if !strings.Contains(out, "--- PASS: TestReconcile") {
				t.Fatalf("the operator's fake-client test did not pass:\n%s", out)
			}
			if os.Getenv("KUBEBUILDER_ASSETS") != "" && !strings.Contains(out, "--- PASS: TestOnAPIServer") {
				t.Fatalf("the operator's envtest test did not pass:\n%s", out)
			}
			scratch.Run(t, op, "go", "vet", "./...")
		})
	}
}

// TestSuitesAcrossVersions runs ssagen's own runtime suites — the envtest
// and fake-client tests of internal/ensuretest and the example operator's
// tests — at every cell of the matrix. It copies them with the example API
// into a module pinned at the cell's versions (the module path stays
// ssagen's, so the imports do not change), regenerates the example's
// builders and helpers there with the ssagen binary (so they compile
// against that client-go), and checks that the pins did not move.
func TestSuitesAcrossVersions(t *testing.T) {
	// Every cell, the floor too, in make test-matrix: at the floor it
	// reruns internal/ensuretest, which make test runs at ssagen's own
	// versions, for three more minutes.
	scratch.MatrixOnly(t)
	repo, bin := scratch.Repo(), scratch.SSAgen(t)
	for _, cell := range matrix {
		t.Run("controller-runtime-"+cell.controllerRuntime, func(t *testing.T) {
			t.Parallel() // go test -parallel (the cores) at a time
			mod := t.TempDir()
			for _, dir := range []string{"examples/api", "examples/config", "examples/controller", "internal/ensuretest", "internal/testenv"} {
				copyTree(t, filepath.Join(repo, dir), filepath.Join(mod, dir))
			}
			copyTree(t, filepath.Join(repo, "examples", "generated"), filepath.Join(mod, "examples", "generated"))
			pinned := pins(cell.k8s, cell.controllerRuntime)
			scratch.Write(t, filepath.Join(mod, "go.mod"), goMod("github.com/ssagen/ssagen", cell.goVersion, pinned, filepath.Join(repo, "ensure")))
			// The example's generate line of hack/update-codegen.sh, run
			// with the binary over the copied API.
			if err := os.RemoveAll(filepath.Join(mod, "examples", "generated", "applyconfiguration")); err != nil {
				t.Fatal(err)
			}
			scratch.Run(t, mod, "go", "mod", "tidy", "-e") // the generated packages do not exist yet
			scratch.Run(t, mod, bin, "generate", "--ensure",
				"--ensure-kinds", "k8s.io/api/rbac/v1.Role,k8s.io/api/rbac/v1.RoleBinding,k8s.io/api/rbac/v1.ClusterRole,k8s.io/api/rbac/v1.ClusterRoleBinding",
				"--ensure-kinds", "k8s.io/api/core/v1.ServiceAccount,k8s.io/api/core/v1.Service,k8s.io/api/core/v1.ConfigMap,k8s.io/api/core/v1.Secret,k8s.io/api/core/v1.Pod",
				"--ensure-kinds", "k8s.io/api/apps/v1.Deployment,k8s.io/api/discovery/v1.EndpointSlice",
				"--output-dir", "examples/generated/applyconfiguration", "./examples/api/...")
			scratch.Run(t, mod, "go", "mod", "tidy")
			checkPins(t, mod, pinned)
			scratch.Run(t, mod, "go", "vet", "./...")
			out := scratch.Run(t, mod, "go", "test", "-count=1", "-v", "./...")
			for _, name := range testNames(t, mod) {
				if !strings.Contains(out, "--- PASS: "+name+" ") {
					t.Errorf("%s did not pass at controller-runtime %s", name, cell.controllerRuntime)
				}
			}
			if strings.Contains(out, "--- SKIP") && os.Getenv("SSAGEN_REQUIRE_ENVTEST") != "" {
				t.Errorf("a test was skipped at controller-runtime %s:\n%s", cell.controllerRuntime, grepLines(out, "--- SKIP"))
			}
			t.Logf("controller-runtime %s, k8s.io %s: %d tests passed", cell.controllerRuntime, cell.k8s, strings.Count(out, "--- PASS"))
		})
	}
}

// copyTree copies the regular files under from to to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		scratch.Write(t, filepath.Join(to, rel), string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testNames are the top-level tests declared under dir.
func testNames(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	decl := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		for _, m := range decl.FindAllSubmatch(b, -1) {
			names = append(names, string(m[1]))
		}
		return err
	})
	if err != nil || len(names) == 0 {
		t.Fatalf("no tests found under %s: %v", dir, err)
	}
	return names
}

func grepLines(s, substr string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// TestBuildersAtOlderK8s: builders (no helpers: the runtime needs k8s.io
// v0.34) for a module pinned at k8s.io v0.32, where apimachinery takes
// structured-merge-diff v4 types and has no scheme type converter. The
// output compiles, keeps the pins, and Extract works there.
func TestBuildersAtOlderK8s(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a scratch module at other k8s.io versions")
	}
	bin := scratch.SSAgen(t)
	const k8s = "v0.32.3"
	op := t.TempDir()
	scratch.Write(t, filepath.Join(op, "go.mod"), "module example.com/old\n\ngo 1.23.0\n\nrequire (\n\tk8s.io/apimachinery "+k8s+"\n\tk8s.io/client-go "+k8s+"\n)\n")
	scratch.Write(t, filepath.Join(op, "api", "v1", "types.go"), plainAPITypes)
	scratch.Write(t, filepath.Join(op, "main.go"), "package main\n\nimport _ \"k8s.io/client-go/applyconfigurations/meta/v1\"\n\nfunc main() {}\n")
	scratch.Run(t, op, "go", "mod", "tidy")
	scratch.Run(t, op, bin, "generate", "--output-dir", "pkg/applyconfiguration", "./api/...")
	scratch.Write(t, filepath.Join(op, "api", "v1", "extract_test.go"), plainExtractTest)
	scratch.Run(t, op, "go", "mod", "tidy")
	b, err := os.ReadFile(filepath.Join(op, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "k8s.io/apimachinery "+k8s) {
		t.Errorf("the pins moved:\n%s", b)
	}
	out := scratch.Run(t, op, "go", "test", "-count=1", "-v", "./...")
	if !strings.Contains(out, "--- PASS: TestExtract") {
		t.Fatalf("Extract did not pass at k8s.io %s:\n%s", k8s, out)
	}
}

const plainAPITypes = `// +groupName=example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

type ThingSpec struct {
	// +listType=map
	// +listMapKey=name
	Ports []Port ` + "`json:\"ports,omitempty\"`" + `
}

type Port struct {
	Name string ` + "`json:\"name\"`" + `
	Port int32  ` + "`json:\"port,omitempty\"`" + `
}

// +kubebuilder:object:root=true

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec              ThingSpec ` + "`json:\"spec,omitempty\"`" + `
}

func (in *Thing) DeepCopyObject() runtime.Object { out := *in; return &out }
`

const plainExtractTest = `package v1_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "example.com/old/api/v1"
	ac "example.com/old/pkg/applyconfiguration/api/v1"
)

func TestExtract(t *testing.T) {
	thing := &v1.Thing{ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "ns", ManagedFields: []metav1.ManagedFieldsEntry{{
		Manager: "m", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "example.com/v1", FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(` + "`" + `{"f:spec":{"f:ports":{"k:{\"name\":\"a\"}":{".":{},"f:name":{},"f:port":{}}}}}` + "`" + `)},
	}}}, Spec: v1.ThingSpec{Ports: []v1.Port{{Name: "a", Port: 80}, {Name: "b", Port: 81}}}}
	got, err := ac.ExtractThing(thing, "m")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Spec.Ports) != 1 || *got.Spec.Ports[0].Name != "a" {
		t.Fatalf("extracted %+v; want the one port m owns", got.Spec)
	}
}
`

// envtestTest runs EnsureConfigMap on a real kube-apiserver through the
// operator's own controller-runtime version: create, skip, skip after a
// restart, prune a dropped key, with requests counted.
const envtestTest = `package controller

import (
	"context"
	"net/http"
	"os"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/ssagen/ssagen/ensure"

	corev1ensure "example.com/operator/pkg/applyconfiguration/core/v1/ensure"
)

type counting struct {
	rt    http.RoundTripper
	write *atomic.Int64
}

func (c counting) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet {
		c.write.Add(1)
	}
	return c.rt.RoundTrip(r)
}

func TestOnAPIServer(t *testing.T) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Skip("KUBEBUILDER_ASSETS is not set")
	}
	env := &envtest.Environment{}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting the API server: %v", err)
	}
	defer env.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var writes atomic.Int64
	counted := rest.CopyConfig(cfg)
	counted.Wrap(func(rt http.RoundTripper) http.RoundTripper { return counting{rt: rt, write: &writes} })
	informers, err := cache.New(counted, cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	go informers.Start(ctx)
	c, err := client.New(counted, client.Options{Cache: &client.CacheOptions{Reader: informers}})
	if err != nil {
		t.Fatal(err)
	}
	direct, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "default"}}
	if err := direct.Create(ctx, owner); err != nil {
		t.Fatal(err)
	}
	desired := func(data map[string]string) *corev1ac.ConfigMapApplyConfiguration {
		return corev1ac.ConfigMap("child", "default").WithData(data)
	}
	synced := func(obj client.Object) {
		for i := 0; i < 1000; i++ {
			cur := &corev1.ConfigMap{}
			if c.Get(ctx, client.ObjectKeyFromObject(obj), cur) == nil && cur.ResourceVersion == obj.GetResourceVersion() {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("the informer never showed %s at resourceVersion %s", obj.GetName(), obj.GetResourceVersion())
	}
	step := func(name string, data map[string]string, ec *ensure.Client, want ensure.Result, wantWrites int64) {
		t.Helper()
		before := writes.Load()
		obj, res, err := corev1ensure.EnsureConfigMap(ctx, ec, owner, desired(data))
		if err != nil || res != want || writes.Load()-before != wantWrites {
			t.Fatalf("%s: %v, %v, %d writes; want %v, %d", name, res, err, writes.Load()-before, want, wantWrites)
		}
		synced(obj)
	}
	first := ensure.NewClient(c)
	step("create", map[string]string{"a": "1", "b": "2"}, first, ensure.Created, 1)
	step("unchanged", map[string]string{"a": "1", "b": "2"}, first, ensure.Skipped, 0)
	step("after a restart", map[string]string{"a": "1", "b": "2"}, ensure.NewClient(c), ensure.Skipped, 0)
	step("drop a key", map[string]string{"a": "1"}, first, ensure.Configured, 1)
	var live corev1.ConfigMap
	if err := direct.Get(ctx, client.ObjectKey{Namespace: "default", Name: "child"}, &live); err != nil {
		t.Fatal(err)
	}
	if _, ok := live.Data["b"]; ok || live.Data["a"] != "1" || len(live.OwnerReferences) != 1 {
		t.Fatalf("live child %+v", live)
	}
}
`

// mainGo is the operator's entry point, as Kubebuilder scaffolds it: it
// imports client-go and controller-runtime directly.
const mainGo = `package main

import (
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	appv1 "example.com/operator/api/v1"
)

func main() {
	s := runtime.NewScheme()
	clientgoscheme.AddToScheme(s)
	appv1.AddToScheme(s)
	_ = ctrl.Options{Scheme: s}
}
`

const apiTypes = `// +groupName=example.com
// +kubebuilder:object:generate=true
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	GroupVersion  = schema.GroupVersion{Group: "example.com", Version: "v1"}
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	AddToScheme   = SchemeBuilder.AddToScheme
)

type AppSpec struct {
	Greeting string ` + "`json:\"greeting,omitempty\"`" + `
}

// +kubebuilder:object:root=true

// App owns a ConfigMap.
type App struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec              AppSpec ` + "`json:\"spec,omitempty\"`" + `
}

// +kubebuilder:object:root=true

// AppList is a list of Apps.
type AppList struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ListMeta ` + "`json:\"metadata,omitempty\"`" + `
	Items           []App ` + "`json:\"items\"`" + `
}

func (in *App) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

func (in *AppList) DeepCopyObject() runtime.Object {
	out := *in
	out.Items = append([]App(nil), in.Items...)
	return &out
}

func init() { SchemeBuilder.Register(&App{}, &AppList{}) }
`

const controller = `package controller

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ssagen/ssagen/ensure"

	appv1 "example.com/operator/api/v1"
	corev1ensure "example.com/operator/pkg/applyconfiguration/core/v1/ensure"
)

// Reconciler writes each App's ConfigMap with EnsureConfigMap, through
// the client NewReconciler wraps with ensure.NewClient.
type Reconciler struct {
	client.Client
}

// NewReconciler is the App reconciler over c.
func NewReconciler(c client.Client) *Reconciler {
	return &Reconciler{Client: ensure.NewClient(c, ensure.FieldManager("app-controller"))}
}

func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var app appv1.App
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// The ConfigMap is built as a typed object, as most operators build
	// theirs, and converted by the generated FromConfigMap.
	_, _, err := corev1ensure.EnsureConfigMap(ctx, r.Client, &app, corev1ensure.FromConfigMap(desiredConfigMap(&app)))
	return ctrl.Result{}, err
}

func desiredConfigMap(app *appv1.App) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace},
		Data:       map[string]string{"greeting": app.Spec.Greeting},
	}
}
`

const controllerTest = `package controller

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	appv1 "example.com/operator/api/v1"
)

func TestReconcile(t *testing.T) {
	s := runtime.NewScheme()
	clientgoscheme.AddToScheme(s)
	appv1.AddToScheme(s)
	app := &appv1.App{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: types.UID("uid-a")}, Spec: appv1.AppSpec{Greeting: "hi"}}
	writes := 0
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(app).WithInterceptorFuncs(interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			writes++
			return c.Patch(ctx, obj, patch, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			writes++
			return c.Apply(ctx, obj, opts...)
		},
	}).Build()
	r := NewReconciler(c)
	req := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "a"}}
	for i := 0; i < 3; i++ {
		if _, err := r.Reconcile(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	var cm corev1.ConfigMap
	if err := c.Get(context.Background(), req.NamespacedName, &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Data["greeting"] != "hi" || len(cm.OwnerReferences) != 1 || cm.OwnerReferences[0].UID != app.UID {
		t.Fatalf("ConfigMap %+v", cm)
	}
	if writes != 1 {
		t.Fatalf("3 reconciles of an unchanged App wrote %d times; want 1", writes)
	}
}
`

// TestControllerGenLayout: a Kubebuilder project that generates its apply
// configurations with `controller-gen applyconfiguration` switches to
// ssagen by replacing that one Makefile line. Without --output-dir, ssagen
// reads controller-gen's markers (+kubebuilder:ac:generate on the package
// and on types, +kubebuilder:ac:output:package) and writes where
// controller-gen writes, so the import paths stay; with
// --compat=applyconfiguration-gen its exported surface contains
// controller-gen's, compared on controller-gen v0.23's real output. A
// second run over ./api/..., which now finds the output inside the API
// folder, changes nothing.
func TestControllerGenLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a scratch Kubebuilder module")
	}
	cg := os.Getenv("SSAGEN_ORACLE")
	if cg == "" {
		if os.Getenv("SSAGEN_REQUIRE_ENVTEST") != "" {
			t.Fatal("SSAGEN_ORACLE is not set: run `make oracle-tools` (make test does)")
		}
		t.Skip("SSAGEN_ORACLE (controller-gen v0.23) is not set: run `make test`")
	}
	repo, bin := scratch.Repo(), scratch.SSAgen(t)
	mod := t.TempDir()
	copyTree(t, filepath.Join(repo, "examples", "api"), filepath.Join(mod, "api"))
	// What `kubebuilder create api --ssa` adds, plus one type opted in and
	// one opted out.
	edit(t, filepath.Join(mod, "api", "v1alpha1", "groupversion_info.go"), "// +groupName=", "// +kubebuilder:ac:generate=true\n// +groupName=")
	edit(t, filepath.Join(mod, "api", "v1alpha1", "proxy_types.go"), "// +kubebuilder:object:root=true\n// +kubebuilder:subresource:status", "// +kubebuilder:object:root=true\n// +kubebuilder:ac:generate=true\n// +kubebuilder:subresource:status")
	edit(t, filepath.Join(mod, "api", "v1alpha1", "sandbox_types.go"), "// +kubebuilder:object:root=true\n// +kubebuilder:subresource:status", "// +kubebuilder:object:root=true\n// +kubebuilder:ac:generate=false\n// +kubebuilder:subresource:status")
	scratch.Write(t, filepath.Join(mod, "go.mod"), goMod("example.com/kb", "1.26.0", pins("v0.37.0", "v0.25.2"), filepath.Join(repo, "ensure")))
	scratch.Run(t, mod, "go", "mod", "tidy")
	out := filepath.Join(mod, "api", "v1alpha1", "applyconfiguration")

	scratch.Run(t, mod, cg, "applyconfiguration", "paths=./api/...")
	scratch.Run(t, mod, "go", "mod", "tidy")
	// controller-gen's utils.go refers to v1alpha1.SchemeGroupVersion,
	// which Kubebuilder's groupversion_info.go does not declare: its
	// declarations are read despite that.
	theirs := surfaces(t, mod, "example.com/kb/api/v1alpha1/applyconfiguration/...", true)
	if len(theirs) < 2 || !theirs["example.com/kb/api/v1alpha1/applyconfiguration/api/v1alpha1"]["type ProxyApplyConfiguration"] {
		t.Fatalf("controller-gen did not generate what this test expects: %d packages", len(theirs))
	}
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}

	scratch.Run(t, mod, bin, "generate", "--compat=applyconfiguration-gen", "./api/...")
	scratch.Run(t, mod, "go", "mod", "tidy")
	scratch.Run(t, mod, "go", "build", "./...")
	ours := surfaces(t, mod, "example.com/kb/api/v1alpha1/applyconfiguration/...", false)
	compared, deliberate := 0, 0
	for pkg, decls := range theirs {
		for d := range decls {
			compared++
			switch {
			case ours[pkg][d]:
			case deliberateDifference.MatchString(d):
				deliberate++
			default:
				t.Errorf("%s: controller-gen's %s is missing", pkg, d)
			}
		}
	}
	if ours["example.com/kb/api/v1alpha1/applyconfiguration/api/v1alpha1"]["type SandboxApplyConfiguration"] {
		t.Error("Sandbox, opted out with +kubebuilder:ac:generate=false, has an apply configuration")
	}
	t.Logf("controller-gen's %d declarations in %d packages: all in ssagen's output but %d, the README's deliberate differences", compared, len(theirs), deliberate)

	// The output is now under ./api/...: a second run neither reads it
	// as input nor changes it.
	before := snapshot(t, out)
	scratch.Run(t, mod, bin, "generate", "--compat=applyconfiguration-gen", "--verify", "./api/...")
	scratch.Run(t, mod, bin, "generate", "--compat=applyconfiguration-gen", "./api/...")
	if after := snapshot(t, out); !maps.Equal(before, after) {
		t.Error("a second run changed the output")
	}
	// +kubebuilder:ac:output:package moves the tree, relative to the API folder.
	edit(t, filepath.Join(mod, "api", "v1alpha1", "groupversion_info.go"), "// +kubebuilder:ac:generate=true", "// +kubebuilder:ac:generate=true\n// +kubebuilder:ac:output:package=../../pkg/ac")
	scratch.Run(t, mod, bin, "generate", "./api/...")
	if _, err := os.Stat(filepath.Join(mod, "pkg", "ac", "api", "v1alpha1", "proxy.go")); err != nil {
		t.Errorf("+kubebuilder:ac:output:package=../../pkg/ac: %v", err)
	}
	scratch.Run(t, mod, "go", "mod", "tidy")
	scratch.Run(t, mod, "go", "build", "./...")
}

// deliberateDifference matches the declarations of controller-gen's output
// that the README's table of deliberate differences names: a [][]Struct
// field kept raw (ssagen: a slice of slices of apply configurations), and
// the setters of an embedded pointer struct with a JSON name
// (Listener's *TLSConfig `json:"tls"`), promoted from the embedded
// configuration and panicking while it is nil (ssagen: setters of the
// outer configuration that allocate it).
var deliberateDifference = regexp.MustCompile(`\[\]\[\]example\.com/kb/api/v1alpha1\.Match|RouteApplyConfiguration\)\.WithMatchesfunc\(values \.\.\.\[\]example\.com/kb/api/v1alpha1\.Match\)|ListenerApplyConfiguration\)\.With(SecretName|MinVersion)func\(value string\) \*example\.com/kb/api/v1alpha1/applyconfiguration/api/v1alpha1\.TLSConfigApplyConfiguration$`)

// edit replaces old (which must be there) with new in the file at path.
func edit(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s has no %q", path, old)
	}
	scratch.Write(t, path, strings.Replace(string(b), old, new, 1))
}

// surfaces loads the packages matching pattern in dir and lists each one's
// exported API.
func surfaces(t *testing.T, dir, pattern string, tolerateTypeErrors bool) map[string]map[string]bool {
	t.Helper()
	// From source, so that a type error leaves the rest of the package's
	// declarations readable.
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo, Dir: dir}, pattern)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]bool{}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			if !tolerateTypeErrors || e.Kind == packages.ParseError {
				t.Fatalf("%s: %v", p.PkgPath, p.Errors)
			}
		}
		out[p.PkgPath] = apisurface.Of(p.Types, func(path string) string { return path })
	}
	return out
}

// snapshot maps each file under dir to its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		out[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestThirdPartyApplyConfigurationsFound: a CRD field of a type from a
// module that ships its own apply configurations (Gateway API's
// ParentReference) needs no flag: ssagen finds them in the module, checks
// them field by field, uses them, and says so with -v. A module whose
// apply configurations do not fit the types, and one that has none, get
// an error that says what was searched and why nothing was used.
func TestThirdPartyApplyConfigurationsFound(t *testing.T) {
	if testing.Short() {
		t.Skip("builds scratch modules")
	}
	bin := scratch.SSAgen(t)
	t.Run("gateway-api", func(t *testing.T) {
		mod := t.TempDir()
		scratch.Write(t, filepath.Join(mod, "go.mod"), "module example.com/gw\n\ngo 1.26.0\n\nrequire (\n\tk8s.io/apimachinery v0.37.0\n\tk8s.io/client-go v0.37.0\n\tsigs.k8s.io/gateway-api v1.6.3\n)\n")
		scratch.Write(t, filepath.Join(mod, "api", "v1", "types.go"), gatewayTypes)
		scratch.Write(t, filepath.Join(mod, "main.go"), "package main\n\nimport (\n\t_ \"k8s.io/client-go/applyconfigurations/meta/v1\"\n\t_ \"sigs.k8s.io/gateway-api/apis/v1\"\n)\n\nfunc main() {}\n")
		scratch.Run(t, mod, "go", "mod", "tidy")
		out := scratch.Run(t, mod, bin, "generate", "-v", "--output-dir", "pkg/ac", "./api/...")
		if !strings.Contains(out, "mapped sigs.k8s.io/gateway-api/apis/v1 to sigs.k8s.io/gateway-api/applyconfiguration/apis/v1, found in module sigs.k8s.io/gateway-api@v1.6.3") {
			t.Errorf("-v does not say what was mapped:\n%s", out)
		}
		b, err := os.ReadFile(filepath.Join(mod, "pkg", "ac", "api", "v1", "routespec.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"sigs.k8s.io/gateway-api/applyconfiguration/apis/v1"`) || !strings.Contains(string(b), "ParentReferenceApplyConfiguration") {
			t.Errorf("the builder does not use Gateway API's apply configurations:\n%s", b)
		}
		scratch.Run(t, mod, "go", "mod", "tidy")
		scratch.Run(t, mod, "go", "build", "./...")
	})
	t.Run("misfit and missing", func(t *testing.T) {
		// A local module whose apply configuration lacks a field of its
		// type, and a type package with none: the user cannot change
		// either, so their builders are generated in the tree, and -v says
		// why. Mapped by a flag to a package that is not there, the error
		// stays: a flag is the user's word, never overruled.
		third := t.TempDir()
		scratch.Write(t, filepath.Join(third, "go.mod"), "module example.com/third\n\ngo 1.26.0\n")
		scratch.Write(t, filepath.Join(third, "apis", "v1", "types.go"), "package v1\n\ntype Ref struct {\n\tName string `json:\"name\"`\n\tPort int32 `json:\"port,omitempty\"`\n}\n")
		scratch.Write(t, filepath.Join(third, "applyconfiguration", "apis", "v1", "ref.go"), "package v1\n\ntype RefApplyConfiguration struct {\n\tName *string `json:\"name,omitempty\"`\n}\n")
		scratch.Write(t, filepath.Join(third, "bare", "v1", "types.go"), "package v1\n\ntype Thing struct {\n\tSize int32 `json:\"size\"`\n}\n")
		mod := t.TempDir()
		scratch.Write(t, filepath.Join(mod, "go.mod"), "module example.com/op\n\ngo 1.26.0\n\nrequire (\n\texample.com/third v0.0.0\n\tk8s.io/apimachinery v0.37.0\n\tk8s.io/client-go v0.37.0\n)\n\nreplace example.com/third => "+third+"\n")
		scratch.Write(t, filepath.Join(mod, "api", "v1", "types.go"), thirdPartyTypes)
		scratch.Write(t, filepath.Join(mod, "main.go"), "package main\n\nimport _ \"k8s.io/client-go/applyconfigurations/meta/v1\"\n\nfunc main() {}\n")
		scratch.Run(t, mod, "go", "mod", "tidy")
		out := scratch.Run(t, mod, bin, "generate", "-v", "--output-dir", "pkg/ac", "./api/...")
		for _, want := range []string{
			"in 2 package(s) whose modules ship no apply configurations this module can build: example.com/third/apis/v1, example.com/third/bare/v1",
			"applyconfiguration/apis/v1.RefApplyConfiguration lacks port",
			"example.com/third/bare/v1: its module ships none",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("-v lacks %q:\n%s", want, out)
			}
		}
		for _, f := range []string{"pkg/ac/apis/v1/ref.go", "pkg/ac/bare/v1/thing.go", "pkg/ac/api/v1/widgetspec.go"} {
			if _, err := os.Stat(filepath.Join(mod, f)); err != nil {
				t.Errorf("no %s: %v", f, err)
			}
		}
		scratch.Run(t, mod, "go", "build", "./...")
		scratch.Run(t, mod, "go", "vet", "./...")

		os.RemoveAll(filepath.Join(mod, "pkg"))
		cmd := exec.Command(bin, "generate", "--output-dir", "pkg/ac", "--external-applyconfigurations", "example.com/third/apis/v1:example.com/third/applyconfiguration/elsewhere", "./api/...")
		cmd.Dir = mod
		errOut, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("a mapping to a missing package was overruled:\n%s", errOut)
		}
		if want := "WidgetSpec.Ref has type example.com/third/apis/v1.Ref, which has no apply configuration"; !strings.Contains(string(errOut), want) {
			t.Errorf("the error lacks %q:\n%s", want, errOut)
		}
		if _, err := os.Stat(filepath.Join(mod, "pkg")); !os.IsNotExist(err) {
			t.Errorf("output was written despite the error: %v", err)
		}
	})
}

// TestEnsureKindsVendored: --ensure-kinds alone for a kind of a
// third-party module that ships no apply configurations (example.com/third)
// generates, in the operator's tree, the builders of that kind and of what
// it reaches — a package of shared types of the same module, and a type of
// a fourth module whose shipped apply configurations fit but do not build
// here (as gateway-api's built on structured-merge-diff v4 do under k8s.io
// v0.34) — and nothing of the kind's package it does not reach. A warning
// about the third party's markers is one note line. The operator then
// builds, passes go vet, and its fake-client test sees one write for three
// calls of the generated helper with the same desired state.
func TestEnsureKindsVendored(t *testing.T) {
	if testing.Short() {
		t.Skip("builds scratch modules")
	}
	repo, bin := scratch.Repo(), scratch.SSAgen(t)
	root := t.TempDir()
	const opTest = "op/controllers/filter_test.go" // it uses the generated code
	for name, content := range vendoredFiles {
		if name != opTest {
			scratch.Write(t, filepath.Join(root, name), content)
		}
	}
	scratch.Write(t, filepath.Join(root, "third", "go.mod"), "module example.com/third\n\ngo 1.26.0\n\nrequire (\n\texample.com/fourth v0.0.0\n\tk8s.io/apimachinery v0.37.0\n)\n\nreplace example.com/fourth => ../fourth\n")
	op := filepath.Join(root, "op")
	pinned := pins("v0.37.0", "v0.25.2")
	scratch.Write(t, filepath.Join(op, "go.mod"), goMod("example.com/op", "1.26.0", pinned, filepath.Join(repo, "ensure"))+
		"\nrequire (\n\texample.com/third v0.0.0\n\texample.com/fourth v0.0.0\n)\n\nreplace (\n\texample.com/third => ../third\n\texample.com/fourth => ../fourth\n)\n")
	scratch.Run(t, op, "go", "mod", "tidy")
	out := scratch.Run(t, op, bin, "generate", "-v", "--ensure-kinds", "example.com/third/apis/v1.Filter", "--output-dir", "pkg/ssa")
	var files []string
	filepath.WalkDir(filepath.Join(op, "pkg", "ssa"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(op, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	want := []string{"pkg/ssa/fourth/apis/v1/ref.go", "pkg/ssa/fourth/apis/v1/zz_generated.convert.go", "pkg/ssa/internal/convert.go", "pkg/ssa/internal/internal.go",
		"pkg/ssa/third/common/match.go", "pkg/ssa/third/common/zz_generated.convert.go",
		"pkg/ssa/third/v1/ensure/ensure.go", "pkg/ssa/third/v1/filter.go", "pkg/ssa/third/v1/filterspec.go", "pkg/ssa/third/v1/zz_generated.convert.go", "pkg/ssa/utils.go"}
	if !slices.Equal(files, want) {
		t.Errorf("wrote %v\nwant %v (Filter and what it reaches; not Other)", files, want)
	}
	for _, s := range []string{
		"generating builders of what the run reaches in 3 package(s) whose modules ship no apply configurations this module can build: example.com/fourth/apis/v1, example.com/third/apis/v1, example.com/third/common",
		"example.com/fourth/applyconfiguration/apis/v1 (module example.com/fourth@v0.0.0) fits but does not build in this module",
		"note: 1 warning(s) about the markers of other modules' packages",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if n := strings.Count(out, "warning:"); n != 0 {
		t.Errorf("%d warnings about the third party's markers, want the one note:\n%s", n, out)
	}
	scratch.Write(t, filepath.Join(root, opTest), vendoredFiles[opTest])
	scratch.Run(t, op, "go", "build", "./...")
	scratch.Run(t, op, "go", "vet", "./...")
	scratch.Run(t, op, "go", "test", "-count=1", "./...")
	checkPins(t, op, pinned)
}

// vendoredFiles are TestEnsureKindsVendored's modules: example.com/third
// (a kind asked, a kind not asked, shared types), example.com/fourth (apply
// configurations that do not compile here) and the operator's test.
var vendoredFiles = map[string]string{
	"third/apis/v1/types.go": `// +groupName=third.example.com
package v1

import (
	fourth "example.com/fourth/apis/v1"
	"example.com/third/common"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

type FilterSpec struct {
	Match  *common.Match  ` + "`" + `json:"match,omitempty"` + "`" + `
	Weight *float64       ` + "`" + `json:"weight,omitempty"` + "`" + `
	Ref    *fourth.Ref    ` + "`" + `json:"ref,omitempty"` + "`" + `
	Routes []common.Match ` + "`" + `json:"routes,omitempty" patchStrategy:"merge" patchMergeKey:"path"` + "`" + `
}

// +kubebuilder:object:root=true
type Filter struct {
	metav1.TypeMeta   ` + "`" + `json:",inline"` + "`" + `
	metav1.ObjectMeta ` + "`" + `json:"metadata,omitempty"` + "`" + `
	Spec              FilterSpec ` + "`" + `json:"spec,omitempty"` + "`" + `
}

// +kubebuilder:object:root=true
type FilterList struct {
	metav1.TypeMeta ` + "`" + `json:",inline"` + "`" + `
	metav1.ListMeta ` + "`" + `json:"metadata,omitempty"` + "`" + `
	Items           []Filter ` + "`" + `json:"items"` + "`" + `
}

type OtherSpec struct {
	Size int32 ` + "`" + `json:"size,omitempty"` + "`" + `
}

// +kubebuilder:object:root=true
type Other struct {
	metav1.TypeMeta   ` + "`" + `json:",inline"` + "`" + `
	metav1.ObjectMeta ` + "`" + `json:"metadata,omitempty"` + "`" + `
	Spec              OtherSpec ` + "`" + `json:"spec,omitempty"` + "`" + `
}

func (in *Filter) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.Spec.Match != nil {
		m := *in.Spec.Match
		out.Spec.Match = &m
	}
	if in.Spec.Ref != nil {
		r := *in.Spec.Ref
		out.Spec.Ref = &r
	}
	if in.Spec.Weight != nil {
		w := *in.Spec.Weight
		out.Spec.Weight = &w
	}
	return &out
}

func (in *FilterList) DeepCopyObject() runtime.Object {
	out := &FilterList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		out.Items = append(out.Items, *in.Items[i].DeepCopyObject().(*Filter))
	}
	return out
}

func (in *Other) DeepCopyObject() runtime.Object { out := *in; return &out }
`,
	"third/common/types.go": `package common

type Match struct {
	Path string ` + "`" + `json:"path"` + "`" + `
}
`,
	"fourth/go.mod": `module example.com/fourth

go 1.26.0
`,
	"fourth/apis/v1/types.go": `package v1

type Ref struct {
	Name string ` + "`" + `json:"name"` + "`" + `
}
`,
	"fourth/applyconfiguration/apis/v1/ref.go": `package v1

import "example.com/fourth/applyconfiguration/internal"

type RefApplyConfiguration struct {
	Name *string ` + "`" + `json:"name,omitempty"` + "`" + `
}

var _ = internal.Parser
`,
	"fourth/applyconfiguration/internal/internal.go": `// Package internal stands for apply configurations built for another
// structured-merge-diff: it does not compile here.
package internal

var Parser int = "built for structured-merge-diff v4"
`,
	"op/controllers/doc.go": `package controllers

import (
	_ "example.com/third/apis/v1"
	_ "github.com/ssagen/ssagen/ensure"
	_ "k8s.io/client-go/applyconfigurations/meta/v1"
)
`,
	"op/controllers/filter_test.go": `package controllers

import (
	"context"
	"testing"

	thirdv1 "example.com/third/apis/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	ssaensure "github.com/ssagen/ssagen/ensure"

	refac "example.com/op/pkg/ssa/fourth/apis/v1"
	commonac "example.com/op/pkg/ssa/third/common"
	filterac "example.com/op/pkg/ssa/third/v1"
	"example.com/op/pkg/ssa/third/v1/ensure"
)

// TestEnsureVendoredKind: the helper of a third-party kind whose builders
// were generated here creates it with the fields set through the vendored
// builders, then sends nothing for the same desired state.
func TestEnsureVendoredKind(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	gv := schema.GroupVersion{Group: "third.example.com", Version: "v1"}
	scheme.AddKnownTypes(gv, &thirdv1.Filter{}, &thirdv1.FilterList{})
	metav1.AddToGroupVersion(scheme, gv)
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "ns", UID: "u1"}}
	writes := 0
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(owner).WithInterceptorFuncs(interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			writes++
			return c.Patch(ctx, obj, patch, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			writes++
			return c.Apply(ctx, obj, opts...)
		},
	}).Build()
	ctx := context.Background()
	ec := ssaensure.NewClient(c) // the memory of the applies, as a reconciler holds it
	for range 3 {
		desired := filterac.Filter("f", "ns").WithSpec(filterac.FilterSpec().
			WithMatch(commonac.Match().WithPath("/api")).
			WithRef(refac.Ref().WithName("backend")).
			WithWeight(0.5))
		if _, _, err := ensure.EnsureFilter(ctx, ec, owner, desired); err != nil {
			t.Fatal(err)
		}
	}
	var got thirdv1.Filter
	if err := c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "f"}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Match == nil || got.Spec.Match.Path != "/api" || got.Spec.Ref == nil || got.Spec.Ref.Name != "backend" || got.Spec.Weight == nil || *got.Spec.Weight != 0.5 {
		t.Errorf("spec = %+v", got.Spec)
	}
	if len(got.OwnerReferences) != 1 || got.OwnerReferences[0].UID != "u1" {
		t.Errorf("owner references = %+v", got.OwnerReferences)
	}
	if writes != 1 {
		t.Errorf("%d writes for 3 calls with the same desired state, want 1", writes)
	}
}
`,
}

const gatewayTypes = `// +groupName=example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

type RouteSpec struct {
	// +listType=atomic
	ParentRefs []gatewayv1.ParentReference ` + "`json:\"parentRefs,omitempty\"`" + `
	Match      *gatewayv1.HTTPRouteMatch   ` + "`json:\"match,omitempty\"`" + `
}

// +kubebuilder:object:root=true
type Route struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec              RouteSpec ` + "`json:\"spec,omitempty\"`" + `
}

func (in *Route) DeepCopyObject() runtime.Object { out := *in; return &out }
`

const thirdPartyTypes = `// +groupName=example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	bare "example.com/third/bare/v1"
	third "example.com/third/apis/v1"
)

type WidgetSpec struct {
	Ref   *third.Ref  ` + "`json:\"ref,omitempty\"`" + `
	Thing *bare.Thing ` + "`json:\"thing,omitempty\"`" + `
}

// +kubebuilder:object:root=true
type Widget struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec              WidgetSpec ` + "`json:\"spec,omitempty\"`" + `
}

func (in *Widget) DeepCopyObject() runtime.Object { out := *in; return &out }
`

// TestGolangciLintPlugin builds golangci-lint with ssagen's module plugin
// the way `golangci-lint custom` does (its source, a plugins.go importing
// the plugin, the plugin's module required; `custom` clones from GitHub,
// the module proxy serves the same source), for the version Kubebuilder
// scaffolds (v2.12) and the oldest docs/vet.md names (v2.5), and runs it
// with docs/vet.md's .golangci.yml on an operator's packages: one finding
// for one Create → AlreadyExists → Update site, and one for a cached pod
// handed to a helper of another package that Updates it (facts across
// packages).
func TestGolangciLintPlugin(t *testing.T) {
	scratch.MatrixOnly(t)
	repo := scratch.Repo()
	op := t.TempDir()
	scratch.Write(t, filepath.Join(op, "go.mod"), goMod("example.com/gclop", "1.26.0", pins("v0.37.0", "v0.25.2"), filepath.Join(repo, "ensure")))
	scratch.Write(t, filepath.Join(op, "controllers", "role.go"), gclOperator)
	scratch.Write(t, filepath.Join(op, "controllers", "label.go"), gclLabel)
	scratch.Write(t, filepath.Join(op, "kube", "kube.go"), gclKube)
	scratch.Write(t, filepath.Join(op, ".golangci.yml"), gclConfig)
	scratch.Run(t, op, "go", "mod", "tidy")
	for _, version := range []string{"v2.5.0", "v2.12.2"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			dl := scratch.Run(t, op, "go", "mod", "download", "-json", "github.com/golangci/golangci-lint/v2@"+version)
			var info struct{ Dir string }
			if err := json.Unmarshal([]byte(dl), &info); err != nil || info.Dir == "" {
				t.Fatalf("go mod download: %v\n%s", err, dl)
			}
			// A folder that stays between runs: the build cache keys
			// golangci-lint's own packages by their folder, so a second run
			// compiles only what the plugin changed.
			src := filepath.Join(repo, ".cache", "golangci-lint", version)
			if err := os.RemoveAll(src); err != nil {
				t.Fatal(err)
			}
			copyTree(t, info.Dir, src)
			scratch.Write(t, filepath.Join(src, "cmd", "golangci-lint", "plugins.go"), "package main\n\nimport _ \"github.com/ssagen/ssagen/vet/golangci\"\n")
			scratch.Run(t, src, "go", "mod", "edit", "-require=github.com/ssagen/ssagen@v0.0.0-00010101000000-000000000000",
				"-replace=github.com/ssagen/ssagen="+repo, "-replace=github.com/ssagen/ssagen/ensure="+filepath.Join(repo, "ensure"))
			scratch.Run(t, src, "go", "mod", "tidy")
			bin := filepath.Join(t.TempDir(), "custom-gcl")
			scratch.Run(t, src, "go", "build", "-o", bin, "./cmd/golangci-lint")
			// Both versions run at once in the same folder: golangci-lint
			// refuses a second run there unless told it may.
			cmd := exec.Command(bin, "run", "--allow-parallel-runners", "./...")
			cmd.Dir = op
			out, _ := cmd.CombinedOutput() // exit 1: there are issues
			if !strings.Contains(string(out), "controllers/role.go:15:9: createupdate: Create → AlreadyExists → Update") ||
				!strings.Contains(string(out), "controllers/label.go:17:9: updatefromscratch: Update of a Pod read from the cache, in Label") ||
				!strings.Contains(string(out), "2 issues") {
				t.Errorf("golangci-lint %s with the plugin:\n%s", version, out)
			}
		})
	}
}

const gclOperator = `package controllers

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// EnsureRole writes a role the 409-prone way.
func EnsureRole(ctx context.Context, c client.Client, ns string) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: ns}}
	err := c.Create(ctx, role)
	if apierrors.IsAlreadyExists(err) {
		return c.Update(ctx, role)
	}
	return err
}
`

// gclLabel hands a pod read from the cache to a helper of another package
// of the module (gclKube) that Updates it: flow's facts cross the packages
// under golangci-lint too.
const gclLabel = `package controllers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/gclop/kube"
)

func LabelPod(ctx context.Context, c client.Client) error {
	pod := &corev1.Pod{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "p"}, pod); err != nil {
		return err
	}
	return kube.Label(ctx, c, pod)
}
`

const gclKube = `package kube

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Label marks the pod it is handed and writes it.
func Label(ctx context.Context, c client.Client, pod *corev1.Pod) error {
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels["seen"] = "true"
	return c.Update(ctx, pod)
}
`

// gclConfig is docs/vet.md's .golangci.yml, with only ssagen's linter on.
const gclConfig = `version: "2"
linters:
  default: none
  enable: [ssagenvet]
  settings:
    custom:
      ssagenvet:
        type: module
        description: 409-prone Kubernetes write patterns
`
