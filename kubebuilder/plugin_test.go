package kubebuilder

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/ssagen/ssagen/audit"
)

// serve sends req through Serve, as kubebuilder does, and decodes the
// response.
func serve(t *testing.T, req any, env Env) Response {
	t.Helper()
	var in bytes.Buffer
	switch r := req.(type) {
	case string:
		in.WriteString(r)
	default:
		if err := json.NewEncoder(&in).Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := Serve(&in, &out, env); err != nil {
		t.Fatal(err)
	}
	var res Response
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("response %q: %v", out.String(), err)
	}
	if res.APIVersion != APIVersion {
		t.Errorf("response apiVersion %q", res.APIVersion)
	}
	return res
}

// goV4 is the PROJECT configuration of a go/v4 project with the plugin
// and one namespaced kind, as kubebuilder sends it.
func goV4(layout ...string) map[string]any {
	if layout == nil {
		layout = []string{"go.kubebuilder.io/v4", Key}
	}
	var l []any
	for _, k := range layout {
		l = append(l, k)
	}
	return map[string]any{"domain": "example.com", "repo": "example.com/op", "layout": l, "version": "3",
		"resources": []any{map[string]any{"group": "web", "version": "v1", "kind": "Site", "domain": "example.com",
			"path": "example.com/op/api/v1", "controller": true, "api": map[string]any{"namespaced": true}}}}
}

func testdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBadInput: every request the plugin cannot serve is answered with an
// error that says what is wrong and what to do, and no file.
func TestBadInput(t *testing.T) {
	mk := testdata(t, "Makefile.go-v4")
	scaffolded, _ := editMakefile(mk)
	api := []string{"--group", "web", "--version", "v1", "--kind", "Site"}
	for _, tc := range []struct {
		name string
		req  any
		want string
	}{
		{"not JSON", "{", "reading the plugin request from standard input"},
		{"apiVersion", Request{APIVersion: "v2", Command: "init"}, `request apiVersion "v2": this plugin speaks v1alpha1`},
		{"unknown command", Request{APIVersion: APIVersion, Command: "create operator"}, `unknown command "create operator"`},
		{"flags of an unknown subcommand", Request{APIVersion: APIVersion, Command: "flags", Args: []string{"--deploy"}}, "want one of --init, --api, --webhook, --edit"},
		{"unknown flag", Request{APIVersion: APIVersion, Command: "init", Args: []string{"--sssagen-version", "v1.0.0"}, Config: goV4(),
			Universe: map[string]string{"Makefile": mk}}, "unknown flag --sssagen-version for init: the plugin's flags are --ssagen-version, --ssagen-replace"},
		{"bad version", Request{APIVersion: APIVersion, Command: "init", Args: []string{"--ssagen-version=latest"}, Config: goV4(),
			Universe: map[string]string{"Makefile": mk}}, "--ssagen-version=latest: want a module version such as v0.4.0"},
		{"devel build without a version", Request{APIVersion: APIVersion, Command: "init", Config: goV4(),
			Universe: map[string]string{"Makefile": mk}}, "this ssagen was built from a checkout"},
		{"layout", Request{APIVersion: APIVersion, Command: "edit", Config: goV4("go.kubebuilder.io/v3"),
			Universe: map[string]string{"Makefile": mk, "PROJECT": "x"}}, "PROJECT: layout go.kubebuilder.io/v3: ssagen.io/v1-alpha works with go.kubebuilder.io/v4 projects only"},
		{"no PROJECT", Request{APIVersion: APIVersion, Command: "edit", Universe: map[string]string{"main.go": "package main"}}, "PROJECT: no Kubebuilder project here: run kubebuilder init first"},
		{"no Makefile", Request{APIVersion: APIVersion, Command: "edit", Config: goV4(), Universe: map[string]string{"PROJECT": "x"}}, "Makefile: not found"},
		{"kind not in PROJECT", Request{APIVersion: APIVersion, Command: "create api", Args: []string{"--group", "web", "--version", "v1", "--kind", "Shop"}, Config: goV4(),
			Universe: map[string]string{"Makefile": scaffolded}}, "PROJECT: no resource web/v1 Shop"},
		{"child", Request{APIVersion: APIVersion, Command: "create api", Args: append(api, "--child", "statefulset"), Config: goV4(),
			Universe: map[string]string{"Makefile": scaffolded}}, "--child=statefulset: want configmap or deployment"},
		{"no tooling", Request{APIVersion: APIVersion, Command: "create api", Args: api, Config: goV4(),
			Universe: map[string]string{"Makefile": mk}}, "Makefile: ssagen is not in the generate target: run kubebuilder edit --plugins ssagen.io/v1-alpha first"},
		{"kind scaffolded already", Request{APIVersion: APIVersion, Command: "create api", Args: api, Config: goV4(),
			Universe: map[string]string{"Makefile": scaffolded, "internal/controller/site_controller.go": "package controller\n\n" + scaffoldedBy + "\n"}},
			"internal/controller/site_controller.go: Site already has a reconciler scaffolded by ssagen.io/v1-alpha"},
		{"kind with a reconciler of the user's", Request{APIVersion: APIVersion, Command: "create api", Args: api, Config: goV4(),
			Universe: map[string]string{"Makefile": scaffolded, "internal/controller/site_controller.go": "package controller\n\nfunc x() {}\n"}},
			"Site already has a reconciler with code of yours: the plugin does not rewrite it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := serve(t, tc.req, Env{Dir: t.TempDir(), Version: "(devel)"})
			if !res.Error || len(res.ErrorMsgs) != 1 || !strings.Contains(res.ErrorMsgs[0], tc.want) {
				t.Errorf("response %+v: want one error containing %q", res, tc.want)
			}
			if len(res.Universe) != 0 {
				t.Errorf("an error response carries files %v", res.Universe)
			}
		})
	}
}

// TestFlagsAndMetadata: what kubebuilder asks before a command.
func TestFlagsAndMetadata(t *testing.T) {
	for sub, want := range map[string][]string{"init": {"ssagen-version", "ssagen-replace"}, "api": {"child"}, "edit": {"ssagen-version", "ssagen-replace"}, "webhook": nil} {
		res := serve(t, Request{APIVersion: APIVersion, Command: "flags", Args: []string{"--" + sub}}, Env{})
		var got []string
		for _, f := range res.Flags {
			got = append(got, f.Name)
		}
		if res.Error || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("flags --%s: %v %v, want %v", sub, got, res.ErrorMsgs, want)
		}
		res = serve(t, Request{APIVersion: APIVersion, Command: "metadata", Args: []string{"--" + sub}}, Env{})
		if res.Error || !strings.Contains(res.Metadata.Description, Key) {
			t.Errorf("metadata --%s: %+v", sub, res)
		}
	}
	// Flags travel under their Go names: external.Flag has no JSON tags.
	b, _ := json.Marshal(flagsOf("api"))
	if !strings.Contains(string(b), `"Name":"child","Type":"string","Default":"configmap"`) {
		t.Errorf("flags encode as %s", b)
	}
	// A webhook gets nothing from the plugin, and no error.
	res := serve(t, Request{APIVersion: APIVersion, Command: "create webhook", Args: []string{"--defaulting"}}, Env{})
	if res.Error || len(res.Universe) != 0 {
		t.Errorf("create webhook: %+v", res)
	}
}

func TestParseArgs(t *testing.T) {
	a, err := parseArgs("api", []string{"--group", "web", "--resource", "--controller=false", "--namespaced=false", "--kind", "Site", "--make=false"}, []string{"go.kubebuilder.io/v4", Key})
	if err != nil {
		t.Fatal(err)
	}
	if a["group"] != "web" || a["kind"] != "Site" || a["resource"] != "true" || a["controller"] != "false" || a["child"] != "configmap" {
		t.Errorf("parsed %v", a)
	}
	// Another plugin in the chain may have flags of its own.
	if _, err := parseArgs("api", []string{"--image", "nginx", "--kind", "Site"}, []string{"go.kubebuilder.io/v4", "deploy-image.go.kubebuilder.io/v1-alpha", Key}); err != nil {
		t.Errorf("a flag of deploy-image: %v", err)
	}
	if _, err := parseArgs("api", []string{"--image", "nginx"}, []string{"go.kubebuilder.io/v4", Key}); err == nil {
		t.Errorf("a flag no plugin of the chain has was accepted")
	}
	if _, err := parseArgs("api", []string{"--resource=maybe"}, nil); err == nil || !strings.Contains(err.Error(), "want true or false") {
		t.Errorf("--resource=maybe: %v", err)
	}
}

// TestEditMakefile: the step goes into go/v4's generate target once;
// controller-gen applyconfiguration leaves the manifests target, and the
// output then stays where it wrote it.
func TestEditMakefile(t *testing.T) {
	for _, tc := range []struct {
		file   string
		layout bool
	}{{"Makefile.go-v4", false}, {"Makefile.ssa", true}} {
		mk := testdata(t, tc.file)
		got, err := editMakefile(mk)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got, "\"$(CONTROLLER_GEN)\" object:headerFile=\"hack/boilerplate.go.txt\",year=$(YEAR) paths=\"./...\"\n"+makefileStep) {
			t.Errorf("%s: the step is not right after controller-gen object:\n%s", tc.file, got)
		}
		if strings.Contains(got, "applyconfiguration:") || strings.Contains(got, "and ApplyConfiguration types") {
			t.Errorf("%s: controller-gen applyconfiguration is still there", tc.file)
		}
		if outputToDir(got) == tc.layout {
			t.Errorf("%s: output to pkg/applyconfiguration = %v", tc.file, outputToDir(got))
		}
		again, _ := editMakefile(got)
		if again != got {
			t.Errorf("%s: a second edit changed the Makefile", tc.file)
		}
		got, err = addEnsureKind(got, "k8s.io/api/core/v1.ConfigMap")
		if err == nil {
			got, err = addEnsureKind(got, "k8s.io/api/apps/v1.Deployment")
		}
		if err == nil {
			got, err = addEnsureKind(got, "k8s.io/api/core/v1.ConfigMap")
		}
		if err != nil || !strings.Contains(got, "\nSSAGEN_ENSURE_KINDS ?= k8s.io/api/apps/v1.Deployment,k8s.io/api/core/v1.ConfigMap\n") {
			t.Errorf("%s: ensure kinds %v %v", tc.file, ensureKinds(got), err)
		}
	}
	if _, err := editMakefile("all:\n\techo\n"); err == nil || !strings.Contains(err.Error(), "Makefile: no generate target") {
		t.Errorf("a Makefile without generate: %v", err)
	}
}

// TestGolangciConfig: the lines added to go/v4's golangci files are YAML
// golangci-lint reads: the plugin listed, the linter on and configured.
func TestGolangciConfig(t *testing.T) {
	var custom struct {
		Plugins []map[string]string `json:"plugins"`
	}
	if err := yaml.Unmarshal([]byte(addGolangciPlugin(testdata(t, "custom-gcl.yml"), "v0.9.0", "", "")), &custom); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range custom.Plugins {
		found = found || (p["module"] == generatorModule && p["import"] == generatorModule+"/vet/golangci" && p["version"] == "v0.9.0")
	}
	if !found || len(custom.Plugins) != 2 {
		t.Errorf(".custom-gcl.yml plugins %v", custom.Plugins)
	}
	var cfg struct {
		Linters struct {
			Enable   []string `json:"enable"`
			Settings struct {
				Custom map[string]map[string]string `json:"custom"`
			} `json:"settings"`
		} `json:"linters"`
	}
	edited := enableGolangciLinter(testdata(t, "golangci.yml"))
	if err := yaml.Unmarshal([]byte(edited), &cfg); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(cfg.Linters.Enable, ","), "ssagenvet") || cfg.Linters.Settings.Custom["ssagenvet"]["type"] != "module" || cfg.Linters.Settings.Custom["logcheck"] == nil {
		t.Errorf(".golangci.yml linters %+v", cfg.Linters)
	}
	if enableGolangciLinter(edited) != edited {
		t.Errorf("a second edit changed .golangci.yml")
	}
}

func TestVarName(t *testing.T) {
	for kind, want := range map[string]string{"Site": "site", "URLMap": "urlMap", "DNSRecord": "dnsRecord", "Client": "clientObj", "IP": "ip", "Log": "logObj"} {
		if got := varName(kind); got != want {
			t.Errorf("varName(%s) = %s, want %s", kind, got, want)
		}
	}
}

func TestPluginsRoot(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"linux", nil, "/home/u/.config/kubebuilder/plugins"},
		{"darwin", nil, "/home/u/Library/Application Support/kubebuilder/plugins"},
		{"linux", map[string]string{"XDG_CONFIG_HOME": "/x"}, "/x/kubebuilder/plugins"},
		{"darwin", map[string]string{"EXTERNAL_PLUGINS_PATH": "/p", "XDG_CONFIG_HOME": "/x"}, "/p"},
	} {
		got, err := PluginsRoot(tc.goos, env(tc.env), "/home/u")
		if err != nil || got != tc.want {
			t.Errorf("%s %v: %s %v, want %s", tc.goos, tc.env, got, err, tc.want)
		}
	}
	if _, err := PluginsRoot("windows", env(nil), `C:\u`); err == nil {
		t.Errorf("windows: no error")
	}
}

func TestInstall(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "ssagen")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for range 2 { // installing again replaces the file
		got, err := Install(exe, root)
		if err != nil {
			t.Fatal(err)
		}
		if got != filepath.Join(root, "ssagen.io", "v1-alpha", "ssagen.io") {
			t.Errorf("installed at %s", got)
		}
		fi, err := os.Stat(got)
		if err != nil || fi.Mode().Perm()&0o111 == 0 {
			t.Errorf("%s: %v, mode %v", got, err, fi.Mode())
		}
	}
	left, _ := os.ReadDir(filepath.Join(root, "ssagen.io", "v1-alpha"))
	if len(left) != 1 {
		t.Errorf("temp files left: %v", left)
	}
}

// TestAuditGate: the e2e audit gate goes after go/v4's e2e targets once,
// make reads it, and a Makefile without an e2e suite is left alone.
func TestAuditGate(t *testing.T) {
	mk, _ := editMakefile(testdata(t, "Makefile.go-v4"))
	got, ok := addAuditGate(mk)
	if !ok || !strings.Contains(got, "\t@$(KIND) delete cluster --name $(KIND_CLUSTER)\n"+auditGateRule) {
		t.Fatalf("the gate is not right after cleanup-test-e2e:\n%s", got)
	}
	if again, ok := addAuditGate(got); ok || again != got {
		t.Errorf("a second edit changed the Makefile")
	}
	if _, ok := addAuditGate("generate:\n\techo\n"); ok {
		t.Errorf("a gate was added to a Makefile with no e2e suite")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(got), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "-n", auditGateTarget, "KIND=true", "LOCALBIN="+dir)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n %s: %v\n%s", auditGateTarget, err, out)
	}
	for _, want := range []string{
		"true create cluster --name kbe-test-e2e-audit --config hack/audit/kind-config.yaml",
		"KIND=true KIND_CLUSTER=kbe-test-e2e-audit go test -tags=e2e ./test/e2e/",
		"docker exec kbe-test-e2e-audit-control-plane cat /var/log/kubernetes/kube-apiserver-audit.log > " + dir + "/e2e-audit.log",
		"go tool -modfile=tools.mod ssagen audit --budget .ssagen-budget.yaml --source ./... " + dir + "/e2e-audit.log",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("make -n %s runs no %q:\n%s", auditGateTarget, want, out)
		}
	}
	files := files{}
	addAuditFiles(map[string]string{auditBudgetFile: "mine"}, "shop", files)
	if _, ok := files[auditBudgetFile]; ok || files[auditPolicyFile] != audit.Policy || !strings.Contains(files[auditKindFile], "hostPath: ./hack/audit/audit-policy.yaml") {
		t.Errorf("files %v", files)
	}
	if b, err := audit.ParseBudget([]byte(auditBudget("shop"))); err != nil || b.Limits[0].Writer != "system:serviceaccount:shop-system:shop-controller-manager" {
		t.Errorf("budget %+v %v", b, err)
	}
}
