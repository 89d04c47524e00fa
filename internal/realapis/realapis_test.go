// Package realapis generates large public APIs, pinned, from scratch
// modules outside this repository, as their users would, and builds and
// vets the output: the guard that a correctness rule never again refuses
// an API controller-gen and applyconfiguration-gen accept (issue 36).
// Where a project publishes applyconfiguration-gen output, ssagen's
// --compat=applyconfiguration-gen output must have its exported API.
package realapis

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ssagen/ssagen/internal/apisurface"
	"github.com/ssagen/ssagen/internal/scratch"
)

func TestMain(m *testing.M) { scratch.Main(m) }

// an API is a scratch module requiring a public API module at a pinned
// version, and a run of ssagen on it.
type api struct {
	name string
	// require are module@version pins; k8s.io/client-go is pinned at the
	// version the API's module requires (the apply configurations of
	// meta/v1 come from it).
	require []string
	// imports are the packages the scratch module imports, so that go mod
	// tidy keeps what they need.
	imports []string
	args    []string // ssagen generate's flags and packages
	ensure  bool     // the module requires the Ensure runtime (this checkout's)
	// published is applyconfiguration-gen's package the output under
	// pkg/ac/<compared> must match, export for export.
	published, compared string
	// warn are lines ssagen must print on stderr.
	warn []string
	// refused: ssagen must exit 1 with this message and write nothing.
	refused string
	// noClientGo: the module does not use client-go, so ssagen generates
	// apimachinery's meta/v1 builders too, ObjectMeta's converters with
	// them. ssagen runs with -mod=readonly, as go generate in a module
	// that keeps its go.mod does: -mod=mod would add client-go.
	noClientGo bool
	// older: the module builds with a k8s.io older than ssagen's own, so
	// make test leaves it to make test-matrix (compiling another
	// client-go costs minutes on a fresh machine).
	older bool
	// convert are kinds whose converters are checked by property in the
	// scratch module (testdata/convprop).
	convert []kinds
}

// kinds are kinds of a types package whose apply configurations the run
// writes under pkg/ac/<ac>.
type kinds struct {
	ac    string
	names []string
}

// trainerExternal is Kubeflow Trainer's own --applyconfig-externals
// (hack/update-codegen.sh at v2.0.0): JobSet's published apply
// configurations and client-go's, type by type.
var trainerExternal = "sigs.k8s.io/jobset/api/jobset/v1alpha2.JobSetSpec:sigs.k8s.io/jobset/client-go/applyconfiguration/jobset/v1alpha2," +
	"k8s.io/api/core/v1.EnvVar:k8s.io/client-go/applyconfigurations/core/v1," +
	"k8s.io/api/core/v1.EnvFromSource:k8s.io/client-go/applyconfigurations/core/v1," +
	"k8s.io/api/core/v1.ResourceRequirements:k8s.io/client-go/applyconfigurations/core/v1," +
	"k8s.io/api/core/v1.Toleration:k8s.io/client-go/applyconfigurations/core/v1," +
	"k8s.io/api/core/v1.Volume:k8s.io/client-go/applyconfigurations/core/v1," +
	"k8s.io/api/core/v1.VolumeMount:k8s.io/client-go/applyconfigurations/core/v1," +
	"k8s.io/api/autoscaling/v2.MetricSpec:k8s.io/client-go/applyconfigurations/autoscaling/v2"

var apis = []api{
	{
		name:    "envoy-gateway",
		require: []string{"github.com/envoyproxy/gateway@v1.9.1", "k8s.io/client-go@v0.36.3"},
		imports: []string{"github.com/envoyproxy/gateway/api/v1alpha1"},
		args:    []string{"--ensure", "--output-dir", "pkg/ac", "github.com/envoyproxy/gateway/api/v1alpha1"},
		ensure:  true,
	},
	{
		name:    "envoy-gateway-external",
		require: []string{"github.com/envoyproxy/gateway@v1.9.1", "k8s.io/client-go@v0.36.3"},
		imports: []string{"github.com/envoyproxy/gateway/api/v1alpha1", "sigs.k8s.io/gateway-api/applyconfiguration/apis/v1"},
		args: []string{"--output-dir", "pkg/ac", "--external-applyconfigurations",
			"sigs.k8s.io/gateway-api/apis/v1:sigs.k8s.io/gateway-api/applyconfiguration/apis/v1," +
				"sigs.k8s.io/gateway-api/apis/v1alpha2:sigs.k8s.io/gateway-api/applyconfiguration/apis/v1alpha2",
			"github.com/envoyproxy/gateway/api/v1alpha1"},
	},
	{
		name: "prometheus-operator",
		require: []string{"github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring@v0.85.0",
			"github.com/prometheus-operator/prometheus-operator/pkg/client@v0.85.0", "k8s.io/client-go@v0.33.3"},
		imports: []string{"github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1",
			"github.com/prometheus-operator/prometheus-operator/pkg/client/applyconfiguration/monitoring/v1"},
		args:      []string{"--compat=applyconfiguration-gen", "--output-dir", "pkg/ac", "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"},
		published: "github.com/prometheus-operator/prometheus-operator/pkg/client/applyconfiguration/monitoring/v1",
		compared:  "monitoring/v1",
		// k8s.io v0.33: NewTypeConverter is client-go's testing one.
		older: true,
		warn:  []string{"ServiceMonitor holds uint64 values (.spec.endpoints[*].metricRelabelings[*].modulus, .spec.endpoints[*].relabelings[*].modulus, .spec.keepDroppedTargets and 6 more): NewTypeConverter is client-go's testing.TypeConverter below k8s.io v0.34"},
	},
	{
		name:    "cluster-api",
		require: []string{"sigs.k8s.io/cluster-api/api@v1.14.2", "k8s.io/client-go@v0.36.3"},
		imports: []string{"sigs.k8s.io/cluster-api/api/core/v1beta2"},
		args:    []string{"--ensure", "--output-dir", "pkg/ac", "sigs.k8s.io/cluster-api/api/core/v1beta2"},
		ensure:  true,
	},
	{
		// Kueue publishes applyconfiguration-gen output for its v1beta2.
		name:    "kueue",
		require: []string{"sigs.k8s.io/kueue@v0.17.0", "k8s.io/client-go@v0.35.3"},
		imports: []string{"sigs.k8s.io/kueue/apis/kueue/v1beta2", "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"},
		args: []string{"--compat=applyconfiguration-gen", "--output-dir", "pkg/ac",
			"--external-applyconfigurations", "k8s.io/api/core/v1:k8s.io/client-go/applyconfigurations/core/v1", "sigs.k8s.io/kueue/apis/kueue/v1beta2"},
		published: "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2",
		compared:  "kueue/v1beta2",
		older:     true, // compared with what kueue published for k8s.io v0.35
	},
	{
		// Argo Rollouts pins k8s.io v0.29.3: the builders compile there,
		// utils.go has ForKind alone (client-go/testing has no type
		// converter before v0.31), as applyconfiguration-gen of that
		// release wrote it.
		name:    "argo-rollouts",
		require: []string{"github.com/argoproj/argo-rollouts@v1.8.3", "k8s.io/client-go@v0.29.3"},
		imports: []string{"github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"},
		args:    []string{"--output-dir", "pkg/ac", "github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"},
		older:   true,
	},
	{
		// The Ensure runtime needs k8s.io v0.34: refused before writing.
		name:    "argo-rollouts-ensure",
		require: []string{"github.com/argoproj/argo-rollouts@v1.8.3", "k8s.io/client-go@v0.29.3"},
		imports: []string{"github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"},
		args:    []string{"--ensure", "--output-dir", "pkg/ac", "github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"},
		refused: "this module builds with k8s.io/apimachinery v0.29.3; the Ensure helpers' runtime (github.com/ssagen/ssagen/ensure) needs v0.34.0 or later",
		older:   true,
	},
	{
		// Apply configurations of two other modules (JobSet's, client-go's)
		// mapped type by type, in applyconfiguration-gen's mode: the
		// builders keep what no flag maps raw (a corev1.LocalObjectReference
		// field) as Trainer's published package does, while the converters
		// of the mapped types build what their publishers declared for the
		// same types (EnvFromSource's ConfigMapRef embeds a
		// LocalObjectReferenceApplyConfiguration), across packages (JobSet's
		// ReplicatedJob holds client-go's JobTemplateSpec).
		name: "kubeflow-trainer",
		require: []string{"github.com/kubeflow/trainer/v2@v2.0.0", "sigs.k8s.io/jobset@v0.8.2",
			"k8s.io/client-go@v0.32.2", "k8s.io/api@v0.32.2", "k8s.io/apimachinery@v0.32.2"},
		imports: []string{"github.com/kubeflow/trainer/v2/pkg/apis/trainer/v1alpha1",
			"github.com/kubeflow/trainer/v2/pkg/client/applyconfiguration/trainer/v1alpha1",
			"sigs.k8s.io/jobset/client-go/applyconfiguration/jobset/v1alpha2",
			"k8s.io/client-go/applyconfigurations/autoscaling/v2"},
		args: []string{"--compat=applyconfiguration-gen", "--output-dir", "pkg/ac",
			"--external-applyconfigurations", trainerExternal, "github.com/kubeflow/trainer/v2/pkg/apis/trainer/v1alpha1"},
		published: "github.com/kubeflow/trainer/v2/pkg/client/applyconfiguration/trainer/v1alpha1",
		compared:  "trainer/v1alpha1",
		convert:   []kinds{{"trainer/v1alpha1", []string{"TrainJob", "TrainingRuntime", "ClusterTrainingRuntime"}}},
		older:     true, // at Trainer's own k8s.io v0.32.2 in make test-matrix
	},
	{
		// All of k8s.io/api in one run of applyconfiguration-gen's mode, in
		// a user's module: meta/v1's published apply configurations map only
		// applyconfiguration-gen's defaults, so DeleteOptions (an Eviction's)
		// brings client-go's Preconditions apply configuration with it. The
		// packages without a client (apidiscovery v2 and v2beta1) get the
		// verdict core/v1 gets for list-map keys on optional fields: a
		// warning, as for every built-in, OpenAPI-served package.
		name:    "k8s-all-api",
		require: []string{"k8s.io/api@v0.37.0", "k8s.io/client-go@v0.37.0"},
		imports: []string{"k8s.io/api/core/v1"},
		args:    []string{"--compat=applyconfiguration-gen", "--output-dir", "pkg/ac", "k8s.io/api/..."},
		warn:    []string{"apidiscovery/v2/types.go"},
		convert: []kinds{
			{"policy/v1", []string{"Eviction"}},
			{"apps/v1", []string{"StatefulSet", "Deployment"}},
			{"core/v1", []string{"Pod", "Service"}},
			{"autoscaling/v2", []string{"HorizontalPodAutoscaler"}},
		},
	},
	{
		// k8s.io/api's core/v1 in a module without client-go: meta/v1 is
		// generated whole, and the kinds' converters call the object
		// metadata converter generated beside it.
		name:       "k8s-core-without-client-go",
		require:    []string{"k8s.io/api@v0.37.0"},
		imports:    []string{"k8s.io/api/core/v1"},
		args:       []string{"--output-dir", "pkg/ac", "k8s.io/api/core/v1"},
		noClientGo: true,
	},
}

func TestRealAPIs(t *testing.T) {
	bin := scratch.SSAgen(t)
	for _, a := range apis {
		t.Run(a.name, func(t *testing.T) {
			if a.older && !scratch.InMatrix() {
				t.Skip("an older k8s.io: runs in make test-matrix")
			}
			mod := t.TempDir()
			setup(t, mod, a)
			cmd, args := bin, append([]string{"generate"}, a.args...)
			if a.noClientGo {
				cmd, args = "env", append([]string{"GOFLAGS=-mod=readonly", bin}, args...)
			}
			out, err := scratch.Try(mod, cmd, args...)
			if a.refused != "" {
				if err == nil || !strings.Contains(out, a.refused) {
					t.Fatalf("want a refusal %q, got %v:\n%s", a.refused, err, out)
				}
				if _, err := os.Stat(filepath.Join(mod, "pkg")); !os.IsNotExist(err) {
					t.Fatalf("a refused run wrote pkg/: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ssagen generate: %v\n%s", err, out)
			}
			for _, w := range a.warn {
				if !strings.Contains(out, w) {
					t.Errorf("no warning %q in:\n%s", w, out)
				}
			}
			scratch.Run(t, mod, "go", "build", "./...")
			scratch.Run(t, mod, "go", "vet", "./pkg/...")
			if a.published != "" {
				compare(t, mod, a)
			}
			if len(a.convert) > 0 {
				checkConverters(t, mod, a.convert)
			}
		})
	}
}

func setup(t *testing.T, mod string, a api) {
	var b strings.Builder
	b.WriteString("module example.com/scratch\n\ngo 1.24.0\n\nrequire (\n")
	for _, r := range requirements(a) {
		path, version, _ := strings.Cut(r, "@")
		b.WriteString("\t" + path + " " + version + "\n")
	}
	if a.ensure {
		b.WriteString("\tgithub.com/ssagen/ssagen/ensure v0.0.0-00010101000000-000000000000\n")
	}
	b.WriteString(")\n")
	if a.ensure {
		b.WriteString("\nreplace github.com/ssagen/ssagen/ensure => " + filepath.Join(scratch.Repo(), "ensure") + "\n")
	}
	scratch.Write(t, filepath.Join(mod, "go.mod"), b.String())
	imports := append([]string{"k8s.io/client-go/applyconfigurations/meta/v1"}, a.imports...)
	if a.noClientGo {
		imports = a.imports
	}
	if a.ensure {
		imports = append(imports, "github.com/ssagen/ssagen/ensure")
	}
	var src strings.Builder
	src.WriteString("// Package deps keeps what the generated code imports in go.mod.\npackage deps\n\nimport (\n")
	for _, p := range imports {
		src.WriteString("\t_ \"" + p + "\"\n")
	}
	src.WriteString(")\n")
	scratch.Write(t, filepath.Join(mod, "deps", "deps.go"), src.String())
	scratch.Run(t, mod, "go", "mod", "tidy")
}

// ownK8s are the versions ssagen itself builds with (go.mod).
var ownK8s = []string{"k8s.io/client-go@v0.37.0", "k8s.io/api@v0.37.0", "k8s.io/apimachinery@v0.37.0", "sigs.k8s.io/controller-runtime@v0.25.2"}

// requirements are the API's pins in make test-matrix; in make test, an
// API at a newer k8s.io than the matrix's floor is built at ssagen's own
// versions instead — a user a release ahead of the API's authors —
// whose packages the rest of the suite has compiled already.
func requirements(a api) []string {
	if scratch.InMatrix() {
		return a.require
	}
	var out []string
	for _, r := range a.require {
		if !strings.HasPrefix(r, "k8s.io/") {
			out = append(out, r)
		}
	}
	return append(out, ownK8s...)
}

// compare checks ssagen's --compat output against the published package,
// export for export, with ssagen's package paths renamed to theirs.
func compare(t *testing.T, mod string, a api) {
	ours := "example.com/scratch/pkg/ac/" + a.compared
	theirsRoot := strings.TrimSuffix(a.published, "/"+a.compared)
	rename := func(p string) string {
		if rest, ok := strings.CutPrefix(p, "example.com/scratch/pkg/ac"); ok {
			return theirsRoot + rest
		}
		return p
	}
	s := scratch.Surfaces(t, mod, rename, ours, a.published)
	var missing, extra []string
	for k := range s[a.published] {
		if !s[ours][k] {
			missing = append(missing, k)
		}
	}
	// A package generated without an OpenAPI schema (prometheus-operator's)
	// has no Extract functions; ssagen derives the schema, so it always
	// has them (as internal/conformance allows).
	published := slices.Collect(maps.Keys(s[a.published]))
	noExtract := !slices.ContainsFunc(published, func(k string) bool { return strings.HasPrefix(k, "func Extract") })
	// applyconfiguration-gen added IsApplyConfiguration and the Get
	// methods of kinds in k8s.io v0.34 (controller-runtime's typed Apply
	// needs them); ssagen always writes them: a superset, which code
	// written against an older release's package compiles against.
	noGetters := !slices.ContainsFunc(published, func(k string) bool { return strings.Contains(k, ").IsApplyConfigurationfunc()") })
	newer := regexp.MustCompile(`\)\.(IsApplyConfigurationfunc\(\)|GetKindfunc\(\) \*string|GetAPIVersionfunc\(\) \*string|GetNamespacefunc\(\) \*string)$`)
	for k := range s[ours] {
		switch {
		case s[a.published][k]:
		case noExtract && strings.HasPrefix(k, "func Extract"):
		case noGetters && newer.MatchString(k):
		case apisurface.Converter.MatchString(k): // ssagen's converters
		default:
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	for _, m := range missing {
		t.Errorf("missing in ssagen's output: %s", m)
	}
	for _, e := range extra {
		t.Errorf("not in the published package: %s", e)
	}
	if len(s[a.published]) < 100 {
		t.Fatalf("only %d declarations published in %s", len(s[a.published]), a.published)
	}
	t.Logf("%d declarations alike", len(s[a.published]))
}

// checkConverters checks the converters of the kinds by property in the
// scratch module (testdata/convprop), at its own pins: 20 random objects
// a kind.
func checkConverters(t *testing.T, mod string, ks []kinds) {
	src, err := os.ReadFile(filepath.Join("testdata", "convprop", "convprop.go"))
	if err != nil {
		t.Fatal(err)
	}
	scratch.Write(t, filepath.Join(mod, "pkg", "convprop", "convprop.go"), string(src))
	var b strings.Builder
	b.WriteString("package convprop\n\nimport (\n\t\"testing\"\n\n")
	for i, k := range ks {
		fmt.Fprintf(&b, "\tac%d %q\n", i, "example.com/scratch/pkg/ac/"+k.ac)
	}
	b.WriteString(")\n\nfunc TestConverters(t *testing.T) {\n")
	for i, k := range ks {
		dir := filepath.Join(mod, "pkg", "ac", filepath.FromSlash(k.ac))
		for _, n := range k.names {
			// A kind with a status subresource leaves its status to
			// StatusFrom<Kind>.
			status := grep(t, dir, "func StatusFrom"+n+"(")
			fmt.Fprintf(&b, "\tCheck(t, %q, 20, ac%d.From%s, %v)\n", n, i, n, status)
		}
	}
	b.WriteString("}\n")
	scratch.Write(t, filepath.Join(mod, "pkg", "convprop", "kinds_test.go"), b.String())
	scratch.Run(t, mod, "go", "test", "-count=1", "./pkg/convprop")
}

// grep reports whether a Go file of dir holds s.
func grep(t *testing.T, dir, s string) bool {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), s) {
			return true
		}
	}
	return false
}
