// Package generator runs ssagen's generate command: load the input
// packages into the model, render every output file in memory, and hand
// the whole tree to a sink. Nothing is written unless everything rendered.
package generator

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/ssagen/ssagen/generator/diag"
	"github.com/ssagen/ssagen/generator/emit"
	"github.com/ssagen/ssagen/generator/load"
	"github.com/ssagen/ssagen/generator/model"
	"github.com/ssagen/ssagen/generator/output"
	"github.com/ssagen/ssagen/internal/contract"
	"github.com/ssagen/ssagen/internal/gomod"
)

// Config is everything one generate run needs; the CLI fills it from flags.
type Config struct {
	// Dir is where package patterns resolve ("" = current directory).
	Dir string
	// Packages are go list patterns of the input API packages.
	Packages []string
	// OutputDir is the folder of the output tree (--output-dir).
	OutputDir string
	// OutputPkg is its import path (--output-pkg); derived from go.mod when empty.
	OutputPkg string
	// HeaderFile is a boilerplate file put above generated code (--go-header-file).
	HeaderFile string
	// External is --external-applyconfigurations.
	External string
	// BuildTags are passed to go list.
	BuildTags string
	// Ensure adds EnsureX helpers for every kind, in <group version>/ensure.
	Ensure bool
	// EnsureKinds are kinds of other modules (k8s.io/api/rbac/v1.Role) that
	// get Ensure helpers too (--ensure-kinds).
	EnsureKinds []string
	// AllowDangerousTypes accepts float fields in CRD packages, as
	// controller-gen's crd:allowDangerousTypes=true does.
	AllowDangerousTypes bool
	// Compat is "" (typed builders throughout) or "applyconfiguration-gen"
	// (its exported surface: named collections of structs stay raw).
	Compat string
	// Strict turns warnings about the input into errors (--strict).
	Strict bool
	// Warnings receives warnings about the input, one per line; nil drops them.
	Warnings io.Writer
	// Log receives what was decided without a flag (the apply
	// configurations found for types of other modules); nil drops it.
	Log io.Writer
	// BeforeDeepCopy accepts kinds whose DeepCopy methods controller-gen
	// object has not generated yet (see load.Config.BeforeDeepCopy).
	BeforeDeepCopy bool
	// loader forces the first load's kind (tests compare both); zero:
	// chosen by the build cache.
	loader load.Loader
}

// Load validates the configuration and loads the model.
func Load(cfg *Config) (*model.Universe, error) {
	if len(cfg.Packages) == 0 && len(cfg.EnsureKinds) == 0 {
		return nil, errors.New("no input packages: name them as go list patterns, for example ./api/... (or name kinds of other modules with --ensure-kinds alone)")
	}
	// Without --output-dir each package goes where controller-gen
	// applyconfiguration writes it (load.Config.Layout).
	layout := cfg.OutputDir == ""
	var outDir string
	var err error
	if layout {
		if cfg.OutputPkg != "" {
			return nil, errors.New("--output-pkg needs --output-dir: without it each package's output goes where controller-gen writes it")
		}
	} else {
		if outDir, err = filepath.Abs(filepath.Join(cfg.Dir, cfg.OutputDir)); err != nil {
			return nil, err
		}
		if cfg.OutputPkg == "" {
			if cfg.OutputPkg, err = importPathOf(outDir); err != nil {
				return nil, err
			}
		}
	}
	if cfg.Compat != "" && cfg.Compat != "applyconfiguration-gen" {
		return nil, fmt.Errorf("--compat=%s: the only compatibility mode is applyconfiguration-gen", cfg.Compat)
	}
	external, err := load.ParseExternal(cfg.External)
	if err != nil {
		return nil, err
	}
	var flags []string
	if cfg.BuildTags != "" {
		flags = append(flags, "-tags="+cfg.BuildTags)
	}
	u, err := load.Load(load.Config{Dir: cfg.Dir, Patterns: cfg.Packages, BuildFlags: flags, OutputPkg: cfg.OutputPkg, Layout: layout, External: external,
		OutputDir: outDir, EnsureKinds: cfg.EnsureKinds, Ensure: cfg.Ensure, AllowDangerousTypes: cfg.AllowDangerousTypes,
		CompatApplyconfigurationGen: cfg.Compat == "applyconfiguration-gen", Log: cfg.Log, Loader: cfg.loader, BeforeDeepCopy: cfg.BeforeDeepCopy})
	if err != nil {
		wd := cfg.Dir
		if wd == "" {
			wd, _ = os.Getwd()
		}
		return nil, diag.Relative(err, wd)
	}
	if len(u.Warnings) > 0 {
		wd := cfg.Dir
		if wd == "" {
			wd, _ = os.Getwd()
		}
		warnings := diag.Relative(diag.Errors(u.Warnings), wd)
		if cfg.Strict {
			return nil, warnings
		}
		if cfg.Warnings != nil {
			for _, w := range warnings.(diag.Errors) {
				fmt.Fprintln(cfg.Warnings, "warning: "+w.Error())
			}
		}
	}
	if n := len(u.VendoredWarnings); n > 0 && cfg.Warnings != nil {
		// Their authors' markers: one line, the list on the -v log.
		fmt.Fprintf(cfg.Warnings, "note: %d warning(s) about the markers of other modules' packages whose builders this run generates for --ensure-kinds; they are not yours to fix (-v lists them)\n", n)
		if cfg.Log != nil {
			wd := cfg.Dir
			if wd == "" {
				wd, _ = os.Getwd()
			}
			for _, w := range diag.Relative(diag.Errors(u.VendoredWarnings), wd).(diag.Errors) {
				fmt.Fprintln(cfg.Log, "  "+w.Error())
			}
		}
	}
	return u, nil
}

// Tree is one output tree of a run: its folder, its import path, every
// file in it, and the kinds it has builders or helpers for — what a
// consumer of the output (the Kubebuilder plugin's scaffolds) imports,
// typed, so that it never searches the rendered text.
type Tree struct {
	Dir   string // absolute
	Pkg   string // import path of the tree's root: ForKind, NewTypeConverter
	Files []output.File
	Kinds []Kind
}

// Kind is a kind of an output tree.
type Kind struct {
	Name, Group, Version string
	// ACPkg is the import path of its apply configurations (client-go's
	// for a built-in kind of --ensure-kinds); HelperPkg that of its
	// EnsureX helpers, "" without them.
	ACPkg, HelperPkg string
	// Status: the helpers include EnsureXStatus.
	Status bool
}

// Render loads the input and renders every output tree in memory: one
// with --output-dir, one per input package in the controller-gen layout.
func Render(cfg Config) ([]Tree, error) {
	u, err := Load(&cfg)
	if err != nil {
		return nil, err
	}
	var header []byte
	if cfg.HeaderFile != "" {
		if header, err = os.ReadFile(filepath.Join(cfg.Dir, cfg.HeaderFile)); err != nil {
			return nil, fmt.Errorf("--go-header-file: %w", err)
		}
	}
	var roots []string
	byRoot := map[string][]*model.GroupVersion{}
	dirs := map[string]string{}
	for _, gv := range u.GroupVersions {
		if _, ok := byRoot[gv.OutRoot]; !ok {
			roots = append(roots, gv.OutRoot)
		}
		byRoot[gv.OutRoot] = append(byRoot[gv.OutRoot], gv)
		dirs[gv.OutRoot] = gv.OutRootDir
	}
	sort.Strings(roots)
	var trees []Tree
	for _, root := range roots {
		tu := *u
		tu.OutputPkg, tu.GroupVersions = root, byRoot[root]
		files, err := emit.Render(&tu, header)
		if err != nil {
			return nil, err
		}
		dir := dirs[root]
		if cfg.OutputDir != "" {
			dir = OutputDir(cfg)
		}
		trees = append(trees, Tree{Dir: dir, Pkg: root, Files: files, Kinds: kindsOf(&tu)})
	}
	return trees, nil
}

// kindsOf lists the kinds of one tree's universe.
func kindsOf(u *model.Universe) []Kind {
	var out []Kind
	for _, gv := range u.GroupVersions {
		for _, k := range gv.Kinds() {
			kind := Kind{Name: k.Name.Name, Group: gv.Group, Version: gv.Version, ACPkg: gv.OutPkgPath}
			if gv.External {
				kind.ACPkg = k.ApplyConfig.Pkg
			}
			if u.Ensure || gv.External {
				kind.HelperPkg = contract.HelperPkg(gv.OutPkgPath)
				kind.Status = slices.Contains(k.Root.Subresources, "status")
			}
			out = append(out, kind)
		}
	}
	return out
}

// GenerateTrees renders every tree, then hands each to the sink for its
// folder: nothing is written unless everything rendered.
func GenerateTrees(cfg Config, sinkFor func(dir string) output.Sink) error {
	trees, err := Render(cfg)
	if err != nil {
		return err
	}
	for _, t := range trees {
		if err := sinkFor(t.Dir).Write(t.Files); err != nil {
			return err
		}
	}
	return nil
}

// Generate runs the whole pipeline of a run with --output-dir into sink.
func Generate(cfg Config, sink output.Sink) error {
	if cfg.OutputDir == "" {
		return errors.New("--output-dir is required here: the folder the apply configurations are written to")
	}
	return GenerateTrees(cfg, func(string) output.Sink { return sink })
}

// OutputDir is the absolute output folder of cfg.
func OutputDir(cfg Config) string {
	d, _ := filepath.Abs(filepath.Join(cfg.Dir, cfg.OutputDir))
	return d
}

// importPathOf derives a folder's import path from the nearest go.mod.
func importPathOf(dir string) (string, error) {
	root, mod, ok := gomod.Enclosing(dir)
	if !ok {
		return "", fmt.Errorf("--output-pkg is not set and no go.mod is above %s: pass --output-pkg", dir)
	}
	rel, _ := filepath.Rel(root, dir)
	if rel == "." {
		return mod, nil
	}
	return mod + "/" + filepath.ToSlash(rel), nil
}
