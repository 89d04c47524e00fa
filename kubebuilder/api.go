package kubebuilder

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"
	"unicode"

	"github.com/ssagen/ssagen/generator"
	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/templates"
)

// children are the kinds a scaffolded reconciler can ensure (--child).
var children = map[string]struct{ kind, plural, ensureKind string }{
	"configmap":  {"ConfigMap", "configmaps", "k8s.io/api/core/v1.ConfigMap"},
	"deployment": {"Deployment", "deployments", "k8s.io/api/apps/v1.Deployment"},
}

// stockController is a line of go/v4's controller scaffold that a
// controller someone has written no longer has.
const stockController = "// TODO(user): your logic here"

// stockTest is the same for go/v4's controller test.
const stockTest = "// TODO(user): Add more specific assertions"

// scaffoldedBy marks the files this plugin scaffolds.
const scaffoldedBy = "// Scaffolded by " + Key + ": yours to edit."

var tmpl = template.Must(template.ParseFS(templates.Kubebuilder, "kubebuilder/*.tmpl"))

// createAPI generates the new kind's apply configurations and helpers and,
// when the kind has a controller, replaces go/v4's empty reconciler with
// one that writes through them, and its test with tests that count.
func createAPI(req *Request, env Env, p *project, a args, out files) (err error) {
	group, version, kind := a["group"], a["version"], a["kind"]
	if version == "" || kind == "" {
		return fmt.Errorf("create api needs --version and --kind (and --group)")
	}
	r, ok := p.find(group, version, kind)
	if !ok {
		return fmt.Errorf("PROJECT: no resource %s/%s %s: create it with go/v4 in the chain (kubebuilder create api --group %s --version %s --kind %s)", group, version, kind, group, version, kind)
	}
	if a["controller-name"] != "" {
		return fmt.Errorf("--controller-name=%s: the plugin scaffolds one controller per kind, named after it; leave the flag out", a["controller-name"])
	}
	if !r.HasAPI || (r.Path != p.Repo && !strings.HasPrefix(r.Path, p.Repo+"/")) {
		return fmt.Errorf("%s/%s %s: its API is in %s, not this project: the plugin scaffolds reconcilers of the project's own kinds; generate helpers for it with SSAGEN_ENSURE_KINDS in the Makefile", group, version, kind, r.Path)
	}
	child, ok := children[a["child"]]
	if !ok {
		return fmt.Errorf("--child=%s: want configmap or deployment", a["child"])
	}
	makefile, ok := req.Universe["Makefile"]
	if !ok || !strings.Contains(makefile, "$(SSAGEN) generate") {
		return fmt.Errorf("Makefile: ssagen is not in the generate target: run kubebuilder edit --plugins %s first", Key)
	}
	// create api --ssa adds controller-gen applyconfiguration to the
	// manifests target for a project's first such kind; ssagen replaces it.
	if edited, err := editMakefile(makefile); err != nil {
		return err
	} else if edited != makefile {
		makefile = edited
		out["Makefile"] = makefile
	}
	toDir := outputToDir(makefile)
	if !toDir && !r.SSA {
		return fmt.Errorf("%s: this project generates apply configurations where controller-gen applyconfiguration did, for kinds marked +kubebuilder:ac:generate=true: create the kind with --ssa", kind)
	}
	apiDir := r.dir(p.Repo)
	ctrlDir, pkg := controllerDir(p, group)
	lower := strings.ToLower(kind)
	ctrlFile := path.Join(ctrlDir, lower+"_controller.go")
	stock, hasController := req.Universe[ctrlFile]
	if r.Controller && hasController {
		switch {
		case strings.Contains(stock, scaffoldedBy):
			return fmt.Errorf("%s: %s already has a reconciler scaffolded by %s", ctrlFile, kind, Key)
		case !strings.Contains(stock, stockController):
			return fmt.Errorf("%s: %s already has a reconciler with code of yours: the plugin does not rewrite it (go tool -modfile=tools.mod ssagen vet ./... lists its 409-prone writes and their fixes)", ctrlFile, kind)
		}
	}
	scaffoldController := r.Controller && hasController

	if scaffoldController {
		var err error
		if makefile, err = addEnsureKind(makefile, child.ensureKind); err != nil {
			return err
		}
		out["Makefile"] = makefile
		if _, err := requireRuntime(req.Universe, out); err != nil {
			return err
		}
	}

	// go/v4 opts the kinds created without --ssa out of apply
	// configurations in a package where a kind is created with it (this
	// one, or a later one). The reconcilers scaffolded here need them, and
	// make generate must keep generating them: their opt-outs go.
	if toDir {
		var restores []func()
		defer func() {
			if err != nil {
				for _, restore := range restores {
					restore()
				}
			}
		}()
		for _, other := range p.Resources {
			otherLower := strings.ToLower(other.Kind)
			otherDir, _ := controllerDir(p, other.Group)
			ours := strings.Contains(req.Universe[path.Join(otherDir, otherLower+"_controller.go")], scaffoldedBy) ||
				(other == r && scaffoldController)
			typesFile := path.Join(other.dir(p.Repo), otherLower+"_types.go")
			types, ok := req.Universe[typesFile]
			if !ours || !ok || !strings.Contains(types, acOptOut) {
				continue
			}
			restore, err := rewriteTypes(env, typesFile, types, strings.Replace(types, acOptOut, "", 1), out)
			if err != nil {
				return err
			}
			restores = append(restores, restore)
		}
	}

	// The helpers are generated now, in the same command: the scaffolded
	// controller imports them, and go/v4 runs go mod tidy before make
	// generate.
	trees, err := render(req, env, makefile, out)
	if err != nil {
		return err
	}
	if !scaffoldController {
		return nil
	}

	d := data{Package: pkg, Kind: kind, LowerKind: lower, Var: varName(kind),
		Namespaced: r.Namespaced, ChildKind: child.kind, ChildPlural: child.plural, ChildLower: strings.ToLower(child.kind),
		Deployment: child.kind == "Deployment", APIImport: r.Path, GroupDomain: r.groupDomain()}
	d.Plural, d.APIAlias = stockNames(stock, r)
	types := req.Universe[path.Join(apiDir, lower+"_types.go")]
	d.Foo = regexp.MustCompile(`(?m)^\s*Foo \*string\s+` + "`" + `json:"foo`).MatchString(types)
	if d.Namespaced {
		d.ChildNamespace, d.ChildNamespaceTest = d.Var+".Namespace", `"default"`
	} else {
		d.ChildNamespace, d.ChildNamespaceTest = d.Var+"ChildNamespace", d.Var+"ChildNamespace"
	}
	find := func(name string) (generator.Kind, error) {
		for _, t := range trees {
			for _, k := range t.Kinds {
				if k.Name == name && k.HelperPkg != "" {
					return k, nil
				}
			}
		}
		return generator.Kind{}, fmt.Errorf("generating the apply configurations: no %s in the output: ssagen found no such kind in ./api/...", contract.Ensure(name))
	}
	own, err := find(kind)
	if err != nil {
		return err
	}
	d.EnsureImport, d.ACImport, d.Status = own.HelperPkg, own.ACPkg, own.Status
	childKind, err := find(child.kind)
	if err != nil {
		return err
	}
	d.ChildEnsureImport = childKind.HelperPkg
	for _, t := range trees {
		if slices.ContainsFunc(t.Kinds, func(k generator.Kind) bool { return k.Name == kind && k.HelperPkg != "" }) {
			d.ConverterImport = t.Pkg // utils.go of the tree that holds the kind
		}
	}
	// The runtime and the helper packages are imported by the names
	// generated code and vet's fixes import them by.
	d.RuntimeImport, d.RuntimeAlias = contract.RuntimePkg, contract.RuntimeAlias
	d.ACAlias, d.EnsureAlias = d.APIAlias+"ac", contract.HelperAlias(own.HelperPkg)
	d.ChildEnsureAlias = contract.HelperAlias(childKind.HelperPkg)
	d.EnsureStatus = contract.EnsureStatus(kind)
	d.ChildEnsure, d.ChildOwnedChanges = contract.Ensure(child.kind), contract.OwnedChanges(child.kind)
	d.ConverterAlias = "applyconfiguration"
	// The license header go/v4 put on the file it scaffolded (with the
	// year filled in), so that the project's files stay alike.
	if i := strings.Index(stock, "\npackage "); i >= 0 {
		d.Boilerplate = stock[:i+1]
	}
	d.Boilerplate += scaffoldedBy + "\n\n"

	todo := map[string]string{
		ctrlFile: "controller.go.tmpl",
		path.Join(ctrlDir, lower+"_controller_fake_test.go"): "controller_fake_test.go.tmpl",
	}
	if test, ok := req.Universe[path.Join(ctrlDir, lower+"_controller_test.go")]; !ok || strings.Contains(test, stockTest) {
		todo[path.Join(ctrlDir, lower+"_controller_test.go")] = "controller_test.go.tmpl"
	}
	if _, ok := req.Universe[path.Join(ctrlDir, "ssagen_helpers_test.go")]; !ok {
		todo[path.Join(ctrlDir, "ssagen_helpers_test.go")] = "helpers_test.go.tmpl"
	}
	for file, name := range todo {
		var b bytes.Buffer
		if err := tmpl.ExecuteTemplate(&b, name, d); err != nil {
			return err
		}
		src, err := format.Source(b.Bytes())
		if err != nil {
			return fmt.Errorf("%s: the scaffold does not parse (a bug of the plugin): %v\n%s", file, err, b.Bytes())
		}
		out[file] = string(src)
	}
	if !d.Status {
		env.note("%s has no status subresource: its reconciler writes no status", kind)
	}
	return nil
}

// data fills the templates.
type data struct {
	Boilerplate                         string
	Package                             string
	Kind, LowerKind, Var, Plural        string
	GroupDomain                         string
	Namespaced, Status, Foo, Deployment bool
	ChildKind, ChildPlural, ChildLower  string
	ChildNamespace, ChildNamespaceTest  string
	APIImport, APIAlias                 string
	ACImport, ACAlias                   string
	EnsureImport, EnsureAlias           string
	ChildEnsureImport, ChildEnsureAlias string
	ConverterImport, ConverterAlias     string
	// RuntimeImport and RuntimeAlias are the helpers' runtime and the name
	// it is imported by (internal/contract).
	RuntimeImport, RuntimeAlias string
	// The helpers the reconciler calls: the kind's status helper, the
	// child's Ensure helper and its Owned…Changes predicate.
	EnsureStatus, ChildEnsure, ChildOwnedChanges string
}

var (
	rbacResources = regexp.MustCompile(`\+kubebuilder:rbac:groups=[^,]*,resources=([a-z0-9.-]+),verbs=`)
	importAlias   = regexp.MustCompile(`(?m)^\s*(\w+) "([^"]+)"$`)
)

// stockNames reads the kind's plural and the API package's import alias
// from go/v4's controller scaffold, which settled them.
func stockNames(stock string, r resource) (plural, alias string) {
	if m := rbacResources.FindStringSubmatch(stock); m != nil {
		plural = m[1]
	} else {
		plural = strings.ToLower(r.Kind) + "s"
	}
	for _, m := range importAlias.FindAllStringSubmatch(stock, -1) {
		if m[2] == r.Path {
			alias = m[1]
		}
	}
	if alias == "" {
		alias = strings.ReplaceAll(r.Group, "-", "") + r.Version
	}
	return plural, alias
}

// reserved are the names a scaffold's locals must not shadow.
var reserved = map[string]bool{"ctx": true, "req": true, "log": true, "data": true, "child": true, "applied": true,
	"result": true, "err": true, "c": true, "r": true, "s": true, "labels": true, "container": true, "live": true,
	"writes": true, "foo": true, "counts": true, "before": true,
	contract.RuntimeAlias: true, "client": true, "builder": true, "runtime": true, "ctrl": true, "fake": true, "interceptor": true,
	"metav1": true, "corev1": true, "appsv1": true, "testing": true, "context": true, "atomic": true}

// varName is the kind with a lower-case first letter, as a local name.
func varName(kind string) string {
	rs := []rune(kind)
	for i := 0; i < len(rs) && unicode.IsUpper(rs[i]); i++ {
		if i > 0 && i+1 < len(rs) && unicode.IsLower(rs[i+1]) {
			break
		}
		rs[i] = unicode.ToLower(rs[i])
	}
	v := string(rs)
	if reserved[v] {
		v += "Obj"
	}
	return v
}

// render generates the apply configurations and helpers as the Makefile's
// step will, in memory, and adds them to out. DeepCopy methods of a new
// kind come later, from make generate; the apply configurations do not
// depend on them. A file in the way is overwritten only if a generator
// wrote it: ssagen, or controller-gen applyconfiguration, which ssagen
// replaces.
func render(req *Request, env Env, makefile string, out files) ([]generator.Tree, error) {
	cfg := generator.Config{Dir: env.Dir, Packages: []string{"./api/..."}, Ensure: true,
		EnsureKinds: ensureKinds(makefile), BeforeDeepCopy: true}
	if outputToDir(makefile) {
		cfg.OutputDir = "pkg/applyconfiguration"
	}
	if compat(makefile) {
		cfg.Compat = "applyconfiguration-gen"
	}
	trees, err := generator.Render(cfg)
	if err != nil {
		return nil, fmt.Errorf("generating the apply configurations: %w", err)
	}
	for _, t := range trees {
		rel, err := filepath.Rel(env.Dir, t.Dir)
		if err != nil {
			return nil, err
		}
		for _, f := range t.Files {
			p := path.Join(filepath.ToSlash(rel), f.Path)
			if old, ok := req.Universe[p]; ok && !generatedByTool(old) {
				return nil, fmt.Errorf("%s: exists and no generator wrote it: move it away, then run the plugin again", p)
			}
			out[p] = string(f.Content)
		}
	}
	return trees, nil
}

// generatedByTool reports whether a file carries ssagen's or
// controller-gen's generated-code line.
func generatedByTool(src string) bool {
	return strings.Contains(src, templates.GeneratedMarker) || strings.Contains(src, "// Code generated by controller-gen. DO NOT EDIT.")
}

// acOptOut is the line go/v4 puts above a kind created without --ssa in a
// package where another kind was created with it.
const acOptOut = "// +kubebuilder:ac:generate=false\n"

// rewriteTypes changes an API file for this command's render, which reads
// the packages from disk, and returns it in the response too. It is the one
// file the plugin writes itself; restore puts the old content back if the
// command fails, so that a failed create api leaves the project as it was.
func rewriteTypes(env Env, file, old, new string, out files) (restore func(), err error) {
	abs := filepath.Join(env.Dir, filepath.FromSlash(file))
	if err := os.WriteFile(abs, []byte(new), 0o644); err != nil {
		return nil, err
	}
	out[file] = new
	return func() { os.WriteFile(abs, []byte(old), 0o644) }, nil
}
