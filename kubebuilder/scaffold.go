package kubebuilder

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"

	"github.com/ssagen/ssagen/internal/contract"
)

// Module paths the scaffolds pin and import.
const (
	generatorModule = "github.com/ssagen/ssagen"
	runtimeModule   = contract.RuntimePkg
	toolPackage     = "github.com/ssagen/ssagen/cmd/ssagen"
	// develVersion is what a replaced module is required at.
	develVersion = "v0.0.0-00010101000000-000000000000"
)

// Env is what the plugin reads of the machine it runs on.
type Env struct {
	// Dir is the project's folder: Kubebuilder runs the plugin there.
	Dir string
	// Version is this ssagen's module version, "(devel)" when built from
	// a checkout; the tool module pins it unless --ssagen-version is set.
	Version string
	// Stderr gets notes for the user (Kubebuilder shows the plugin's
	// standard error); nil drops them.
	Stderr interface{ Write([]byte) (int, error) }
}

// BuildVersion is the version of the ssagen module this binary was built
// from, as `go install` and `go tool` record it.
func BuildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path == generatorModule {
		return bi.Main.Version
	}
	return "(devel)"
}

func (e Env) note(format string, a ...any) {
	if e.Stderr != nil {
		fmt.Fprintf(e.Stderr, Key+": "+format+"\n", a...)
	}
}

// scaffold runs init, create api or edit and returns the files to write.
func scaffold(req *Request, env Env) (map[string]string, error) {
	sub := req.Command
	switch sub {
	case "create api":
		sub = "api"
	}
	a, err := parseArgs(sub, req.Args, req.PluginChain)
	if err != nil {
		return nil, err
	}
	p, err := readProject(req)
	if err != nil {
		return nil, err
	}
	out := files{}
	switch req.Command {
	case "init", "edit":
		err = addTooling(req, env, p, a, out)
	case "create api":
		err = createAPI(req, env, p, a, out)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// files are the universe of a response: only what the plugin changed.
type files map[string]string

// addTooling is init and edit: the tool module, the generate step, the
// golangci-lint plugin and the README section. Files that already have
// them are left as they are, so running edit twice changes nothing.
func addTooling(req *Request, env Env, p *project, a args, out files) error {
	makefile, ok := req.Universe["Makefile"]
	if !ok {
		return errors.New("Makefile: not found: the go/v4 Makefile's generate target is where ssagen runs")
	}
	if _, ok := req.Universe["tools.mod"]; !ok {
		mod, sum, err := toolModule(env, p.Repo, a["ssagen-version"], a["ssagen-replace"])
		if err != nil {
			return err
		}
		out["tools.mod"], out["tools.sum"] = mod, sum
	} else {
		env.note("tools.mod exists: left as it is (upgrade with go get -tool -modfile=tools.mod %s@latest)", toolPackage)
	}
	if req.Command == "edit" && hasAPI(req.Universe) {
		// The helpers of the project's kinds import the runtime module;
		// init leaves it to create api, as go/v4's go mod tidy would drop
		// it from a project with no kinds yet.
		changed, err := requireRuntime(req.Universe, out)
		if err != nil {
			return err
		}
		if changed {
			env.note("go.mod requires %s now: run make generate, then go mod tidy", runtimeModule)
		}
	}
	edited, err := editMakefile(makefile)
	if err != nil {
		return err
	}
	if gated, ok := addAuditGate(edited); ok {
		edited = gated
		addAuditFiles(req.Universe, p.Name, out)
	}
	if edited != makefile {
		out["Makefile"] = edited
	}
	for name, edit := range map[string]func(string) string{
		".custom-gcl.yml": func(s string) string {
			return addGolangciPlugin(s, a["ssagen-version"], a["ssagen-replace"], env.Version)
		},
		".golangci.yml": enableGolangciLinter,
		"README.md":     addReadme,
	} {
		if s, ok := req.Universe[name]; ok {
			if e := edit(s); e != s {
				out[name] = e
			}
		}
	}
	if req.Command == "edit" && !slices.Contains(p.Layout, Key) {
		// Kubebuilder writes PROJECT's layout at init only, and writes
		// PROJECT after the plugins: the plugin cannot add itself.
		env.note("PROJECT's layout keeps go/v4 alone: scaffold kinds with kubebuilder create api --plugins go/v4,%s ...", Key)
	}
	if req.Command == "edit" && hasAPI(req.Universe) {
		if _, err := render(req, env, edited, out); err != nil {
			return err
		}
	}
	if req.Command == "edit" && len(p.Resources) > 0 {
		env.note("your controllers are not rewritten: run `go tool -modfile=tools.mod ssagen vet ./...` to list their 409-prone writes and the helper that replaces each")
	}
	return nil
}

// pinnedVersion is the version the tool module pins.
func pinnedVersion(env Env, version, replace string) (string, error) {
	switch {
	case replace != "":
		return develVersion, nil
	case version != "":
		if !semver.IsValid(version) {
			return "", fmt.Errorf("--ssagen-version=%s: want a module version such as v0.4.0", version)
		}
		return version, nil
	case semver.IsValid(env.Version):
		return env.Version, nil
	}
	return "", fmt.Errorf("this ssagen was built from a checkout (version %s), so there is no version to pin: pass --ssagen-version=vX.Y.Z, or --ssagen-replace=<checkout folder> to develop against it", env.Version)
}

// toolModule writes tools.mod, requiring ssagen as a tool, in a folder of
// its own and lets go mod tidy complete it and write its sums there: a
// tidy in the project's folder would add the project's imports to it.
func toolModule(env Env, repo, version, replace string) (mod, sum string, err error) {
	v, err := pinnedVersion(env, version, replace)
	if err != nil {
		return "", "", err
	}
	f := &modfile.File{}
	f.AddModuleStmt(repo + "/tools")
	f.AddGoStmt("1.26.0")
	f.AddRequire(generatorModule, v)
	f.AddRequire(runtimeModule, v)
	f.AddTool(toolPackage)
	if replace != "" {
		dir, err := filepath.Abs(replace)
		if err != nil {
			return "", "", err
		}
		if _, err := os.Stat(filepath.Join(dir, "cmd", "ssagen")); err != nil {
			return "", "", fmt.Errorf("--ssagen-replace=%s: not an ssagen checkout (no cmd/ssagen)", replace)
		}
		f.AddReplace(generatorModule, "", dir, "")
		// The runtime is a module of its own in the checkout's folder of
		// its path.
		f.AddReplace(runtimeModule, "", filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(runtimeModule, generatorModule+"/"))), "")
	}
	f.Cleanup()
	b, err := f.Format()
	if err != nil {
		return "", "", err
	}
	tmp, err := os.MkdirTemp("", "ssagen-tools-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), b, 0o644); err != nil {
		return "", "", err
	}
	cmd := exec.Command("go", "mod", "tidy")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("tools.mod: go mod tidy for %s@%s: %v\n%s", generatorModule, v, err, msg)
	}
	m, err := os.ReadFile(filepath.Join(tmp, "go.mod"))
	if err != nil {
		return "", "", err
	}
	s, err := os.ReadFile(filepath.Join(tmp, "go.sum"))
	if err != nil {
		return "", "", err
	}
	header := "// The tool module of ssagen (ssagen.io/v1-alpha): the generator's\n" +
		"// dependencies stay out of the project's go.mod. Run it with\n" +
		"// go tool -modfile=tools.mod ssagen; upgrade it with\n" +
		"// go get -tool -modfile=tools.mod " + toolPackage + "@latest\n" +
		"// (never go mod tidy -modfile=tools.mod here: it would add the project's imports).\n"
	return header + string(m), string(s), nil
}

// toolPins reads the tool module: the version of ssagen it requires and
// the folders it replaces ssagen's modules with.
func toolPins(universe map[string]string) (version string, replaces map[string]string, err error) {
	src, ok := universe["tools.mod"]
	if !ok {
		return "", nil, fmt.Errorf("tools.mod: not found: this project has no ssagen tool module yet; run kubebuilder edit --plugins %s first", Key)
	}
	f, err := modfile.Parse("tools.mod", []byte(src), nil)
	if err != nil {
		return "", nil, err
	}
	for _, r := range f.Require {
		if r.Mod.Path == generatorModule {
			version = r.Mod.Version
		}
	}
	if version == "" {
		return "", nil, fmt.Errorf("tools.mod: no require of %s: add it with go get -tool -modfile=tools.mod %s@latest", generatorModule, toolPackage)
	}
	replaces = map[string]string{}
	for _, r := range f.Replace {
		if r.New.Version == "" {
			replaces[r.Old.Path] = r.New.Path
		}
	}
	return version, replaces, nil
}

// requireRuntime adds the runtime module to go.mod at the version the
// tool module pins (in the universe, or written by this command), with the
// tool module's replace, if any, and reports whether go.mod changed.
// go/v4's create api runs go mod tidy after the plugins, which writes the
// sums.
func requireRuntime(universe map[string]string, out files) (bool, error) {
	pins := maps.Clone(universe)
	maps.Copy(pins, out)
	version, replaces, err := toolPins(pins)
	if err != nil {
		return false, err
	}
	gomod := universe["go.mod"]
	f, err := modfile.Parse("go.mod", []byte(gomod), nil)
	if err != nil {
		return false, fmt.Errorf("go.mod: %v", err)
	}
	for _, r := range f.Require {
		if r.Mod.Path == runtimeModule {
			return false, nil
		}
	}
	if err := f.AddRequire(runtimeModule, version); err != nil {
		return false, err
	}
	if dir, ok := replaces[runtimeModule]; ok {
		if err := f.AddReplace(runtimeModule, "", dir, ""); err != nil {
			return false, err
		}
	}
	f.Cleanup()
	b, err := f.Format()
	if err != nil {
		return false, err
	}
	out["go.mod"] = string(b)
	return true, nil
}

// controllerDir is where go/v4 puts a kind's controller, and the package
// name there.
func controllerDir(p *project, group string) (dir, pkg string) {
	if p.MultiGroup && group != "" {
		return filepath.ToSlash(filepath.Join("internal", "controller", group)), strings.ReplaceAll(group, "-", "")
	}
	return "internal/controller", "controller"
}

// hasAPI reports whether the project has API packages under api/.
func hasAPI(universe map[string]string) bool {
	for p := range universe {
		if strings.HasPrefix(p, "api/") && strings.HasSuffix(p, ".go") {
			return true
		}
	}
	return false
}
