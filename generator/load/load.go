// Package load turns Go API packages into ssagen's model.
//
// It is the only code in ssagen that touches go/packages, go/types and
// go/ast: input packages are type-checked from source with their syntax,
// dependencies from source too, only their declarations, only those the
// inputs reach (source.go); the few files that declare external types
// reached from the inputs are parsed for their markers. A run's packages
// are one packageSet that grows (packages.go).
// Marker syntax is controller-tools' (see markers.go).
package load

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"io"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gobuffalo/flect"
	"golang.org/x/tools/go/packages"
	crdmarkers "sigs.k8s.io/controller-tools/pkg/crd/markers"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/ssagen/ssagen/generator/diag"
	"github.com/ssagen/ssagen/generator/model"
	"github.com/ssagen/ssagen/internal/gomod"
)

// Config says what to load.
type Config struct {
	// Dir is the folder go list runs in; "" means the current one.
	Dir string
	// Patterns are go list patterns of the input API packages.
	Patterns []string
	// BuildFlags are passed to go list (for example -tags=...).
	BuildFlags []string
	// OutputPkg is the import path of the output tree's root, OutputDir
	// its folder (absolute): neither inside an input package nor in the
	// module cache.
	OutputPkg string
	OutputDir string
	// Layout, when OutputPkg is empty, generates each input package where
	// controller-gen applyconfiguration does: only packages marked
	// +kubebuilder:ac:generate=true, each into its own tree,
	// <package>/<+kubebuilder:ac:output:package, default applyconfiguration>.
	Layout bool
	// External maps types of third-party modules to the apply
	// configurations those modules ship (--external-applyconfigurations).
	External []ExternalMapping
	// EnsureKinds are kinds of other modules (<package>.<Kind>, such as
	// k8s.io/api/rbac/v1.Role) that get Ensure helpers.
	EnsureKinds []string
	// Ensure asks for EnsureX helpers as well as builders.
	Ensure bool
	// AllowDangerousTypes accepts float fields in CRD packages
	// (controller-gen's crd:allowDangerousTypes=true).
	AllowDangerousTypes bool
	// CompatApplyconfigurationGen keeps named slices and maps of structs as
	// their Go types, as applyconfiguration-gen does.
	CompatApplyconfigurationGen bool
	// Log, if set, gets a line for each type package whose apply
	// configurations were found without a flag, and where.
	Log io.Writer
	// BeforeDeepCopy accepts the type errors of a kind whose DeepCopy
	// methods are not generated yet ("does not implement runtime.Object
	// (missing method DeepCopyObject)"): they concern the scheme's
	// registration only, never a field, so the apply configurations are
	// the same as after controller-gen object has run. The Kubebuilder
	// plugin generates in the same command that scaffolds the kind.
	BeforeDeepCopy bool
	// Loader chooses the first load: LoaderAuto (the zero value), as
	// every run should; tests force LoaderExport to compare the two.
	Loader Loader
	// loadPackages replaces packages.Load when set (tests).
	loadPackages packagesLoad
	// loads, when set, gets a line for every load of the run (tests).
	loads *[]string
}

// Loader is how the input packages' dependencies are type-checked.
type Loader uint8

const (
	// LoaderAuto is LoaderSource, the loader of every run (source.go).
	LoaderAuto Loader = iota
	// LoaderExport always uses export data (compiling what is missing).
	LoaderExport
	// LoaderSource always type-checks from source.
	LoaderSource
)

const (
	metaV1Pkg        = "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientGoApplyPkg = "k8s.io/client-go/applyconfigurations"
	hintGroupName    = "add `// +groupName=<group>` above the package clause of one file of the package (groupversion_info.go or doc.go); use `// +groupName=` for the core group"
	externalFlagHint = "pass --external-applyconfigurations=%s:<import path of its apply configurations>, or make it a value type"
)

// matchesAny reports whether a go list pattern names the import path:
// the path itself, or a /... pattern above it. Relative patterns name
// folders of the current module, never a package of --ensure-kinds.
// sharedOutside lists the packages of the input packages' own modules
// that their struct fields use, transitively, and that no pattern
// matched: the packages of shared types ssagen must generate too.
func sharedOutside(pkgs []*packages.Package, patterns []string, skip map[string]bool) []string {
	loaded := map[string]bool{}
	for _, p := range pkgs {
		loaded[p.PkgPath] = true
	}
	found := map[string]bool{}
	w := moduleWalk{seen: map[types.Type]bool{}, skip: skip, visit: func(pkg string) {
		if !loaded[pkg] && !matchesAny(patterns, pkg) {
			found[pkg] = true
		}
	}}
	for _, p := range pkgs {
		if p.Types == nil || p.Module == nil || p.Module.Path == "" || skip[p.PkgPath] {
			continue
		}
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			if tn, ok := scope.Lookup(name).(*types.TypeName); ok && tn.Exported() {
				w.walk(tn.Type(), p.Module.Path)
			}
		}
	}
	return sortedKeys(found)
}

// moduleWalk follows what a type uses — fields, pointers, slices, maps,
// aliases — through the named types of module mod, calling visit with the
// package of each; it does not enter the packages skip names.
type moduleWalk struct {
	seen  map[types.Type]bool
	skip  map[string]bool
	visit func(pkgPath string)
}

func (w *moduleWalk) walk(t types.Type, mod string) {
	if w.seen[t] {
		return
	}
	w.seen[t] = true
	switch t := t.(type) {
	case *types.Pointer:
		w.walk(t.Elem(), mod)
	case *types.Slice:
		w.walk(t.Elem(), mod)
	case *types.Array:
		w.walk(t.Elem(), mod)
	case *types.Map:
		w.walk(t.Key(), mod)
		w.walk(t.Elem(), mod)
	case *types.Alias:
		w.walk(types.Unalias(t), mod)
	case *types.Named:
		pkg := t.Obj().Pkg()
		if pkg == nil || !strings.HasPrefix(pkg.Path()+"/", mod+"/") || w.skip[pkg.Path()] {
			return
		}
		w.visit(pkg.Path())
		w.walk(t.Underlying(), mod)
	case *types.Struct:
		for i := 0; i < t.NumFields(); i++ {
			w.walk(t.Field(i).Type(), mod)
		}
	}
}

func matchesAny(patterns []string, pkgPath string) bool {
	for _, pat := range patterns {
		switch {
		case strings.HasPrefix(pat, "."):
		case pat == pkgPath:
			return true
		case strings.HasSuffix(pat, "/..."):
			if base := strings.TrimSuffix(pat, "/..."); pkgPath == base || strings.HasPrefix(pkgPath, base+"/") {
				return true
			}
		}
	}
	return false
}

// packagesLoad is packages.Load or, in tests, a function that counts the
// loads (Config.loadPackages); packageSet says how many a run makes.
type packagesLoad func(*packages.Config, ...string) ([]*packages.Package, error)

// Load reads the packages and builds the model. Its error is a diag.Errors
// listing every problem found.
//
// A run is a few phases over one packageSet, each a method of a loader
// whose Config is read-only: follow the patterns (the first load) and
// select the inputs (selectInputs: shared types they use and packages to
// vendor join them, parsed, not loaded again), settle them (markers,
// folders, roots, groups), resolve what other modules provide, and build
// the universe. A kind of --ensure-kinds, or a type a vendored package
// reaches, may turn out to have no apply configuration this module can
// use only once its module's are resolved (they fit, but were built for
// another structured-merge-diff): then the model is built again, from
// the same packages, with those vendored too, a few times at most. The
// model is rebuilt rather than patched — a package turning from external
// into vendored changes every type that reaches it — and that costs
// little next to loading: the packages are not read again.
func Load(cfg Config) (*model.Universe, error) {
	set := newPackageSet(cfg)
	plan := vendorPlan{force: map[string]string{}, only: map[string]map[string]bool{}}
	log := cfg.Log
	for round := 0; ; round++ {
		var last bytes.Buffer // the log of the last round only
		if log != nil {
			cfg.Log = &last
		}
		u, more, err := build(cfg, set, plan)
		if len(more) == 0 || round == maxVendorRounds {
			if log != nil {
				log.Write(last.Bytes())
			}
			if cfg.loads != nil {
				*cfg.loads = set.loads
			}
			return u, err
		}
		plan.add(more)
	}
}

// maxVendorRounds bounds the times Load builds the model again: each
// vendors what the last found unusable, one module's reach further.
const maxVendorRounds = 4

// vendorPlan is what Load has decided to vendor: force, package → why;
// only, of a package client-go ships apply configurations for
// (apimachinery's meta/v1), the types it ships none for, which alone are
// vendored.
type vendorPlan struct {
	force map[string]string
	only  map[string]map[string]bool
}

func (v vendorPlan) add(more map[string]vendorWhy) {
	for p, why := range more {
		v.force[p] = why.why
		if why.types != nil {
			if v.only[p] == nil {
				v.only[p] = map[string]bool{}
			}
			for t := range why.types {
				v.only[p][t] = true
			}
		}
	}
}

// build is one round of Load: the model of the set's packages with the
// plan's vendored. It returns the packages to vendor as well when some
// types would otherwise have no usable apply configuration (vendorable),
// and then no model.
func build(cfg Config, set *packageSet, plan vendorPlan) (*model.Universe, map[string]vendorWhy, error) {
	l := newLoader(cfg, set, plan.only)
	pkgs, vendored, err := l.selectInputs(plan.force)
	if err != nil || l.errs.Len() > 0 {
		if err == nil {
			err = l.errs.Err()
		}
		return nil, nil, err
	}
	anyKind, err := l.settle(pkgs, vendored)
	if err != nil {
		return nil, nil, err
	}
	external, more := l.resolve(plan.force)
	if len(more) > 0 {
		return nil, more, nil
	}
	u, err := l.universe(external, anyKind)
	return u, nil, err
}

// resolve finds what other modules provide: the kinds of --ensure-kinds
// (one external group version per package) and the apply configurations
// of every external type; more lists the packages still to vendor.
func (l *loader) resolve(force map[string]string) (external []*model.GroupVersion, more map[string]vendorWhy) {
	external = l.loadEnsureKinds()
	l.resolveExternal()
	return external, l.vendorable(external, force)
}

func newLoader(cfg Config, set *packageSet, only map[string]map[string]bool) *loader {
	return &loader{
		set:         set,
		only:        only,
		cfg:         cfg,
		fset:        set.cfg.Fset,
		types:       map[string]*model.Type{},
		files:       map[string]*ast.File{},
		inputs:      map[string]*input{},
		checking:    map[*model.Type]bool{},
		externalErr: map[string]string{},
		modules:     map[string]*packages.Module{},
		discovered:  map[string]discovery{},
		structs:     map[string]fileDecls{},
		unexported:  map[*model.Type][]token.Position{},
		typeErrs:    typeErrs{},

		typeMarkerCache: map[*ast.TypeSpec]typeMarkerEntry{},
	}
}

// selectInputs follows the patterns and selects the input packages: those
// the patterns match, the packages of shared types of the same module
// they use (followed as controller-gen follows them), the packages of
// --ensure-kinds to vendor (vendored.go) with the packages of their
// module the kinds reach, and those force names. It returns the inputs,
// sorted, and which of them are vendored. The patterns with the shared
// packages followed are the loader's (l.patterns); its Config stays as
// given.
func (l *loader) selectInputs(force map[string]string) ([]*packages.Package, map[string]bool, error) {
	ensureKinds, ensurePaths := l.parseEnsureKinds()
	patterns := append(slices.Clone(l.cfg.Patterns), ensurePaths...)
	first, err := l.set.loadRoots(patterns)
	if err != nil {
		return nil, nil, fmt.Errorf("loading %s: %w", strings.Join(l.cfg.Patterns, " "), err)
	}
	skip := map[string]bool{}
	for path := range ensureKinds {
		skip[path] = true // packages of --ensure-kinds are not scanned
	}
	for _, m := range l.cfg.External {
		skip[m.TypePkg] = true // mapped to apply configurations: not followed
	}
	vendored := l.vendoredPkgs(first, ensureKinds, force)
	reached := reachedInModule(first, vendored, ensureKinds)
	var extra []string
	shared := sharedOutside(first, l.cfg.Patterns, skip)
	l.patterns = l.cfg.Patterns
	if len(shared) > 0 && !l.cfg.Layout && !l.cfg.CompatApplyconfigurationGen {
		l.patterns = append(slices.Clone(l.cfg.Patterns), shared...)
		extra = append(extra, shared...)
		if l.cfg.Log != nil {
			fmt.Fprintf(l.cfg.Log, "followed %d package(s) of shared types the input uses: %s\n", len(shared), strings.Join(shared, ", "))
		}
	}
	extra = append(extra, reached...)
	for _, p := range sortedKeys(force) {
		if _, ok := ensureKinds[p]; !ok {
			extra = append(extra, p) // a package a vendored one reaches
		}
	}
	all, err := l.set.with(extra)
	if err != nil {
		return nil, nil, fmt.Errorf("loading %s: %w", strings.Join(l.patterns, " "), err)
	}
	for _, p := range reached {
		vendored[p] = true
	}
	if l.cfg.Log != nil && len(vendored) > 0 {
		fmt.Fprintf(l.cfg.Log, "generating builders of what the run reaches in %d package(s) whose modules ship no apply configurations this module can build: %s\n", len(vendored), strings.Join(sortedKeys(vendored), ", "))
		for _, p := range sortedKeys(force) {
			fmt.Fprintf(l.cfg.Log, "  %s: %s\n", p, force[p])
		}
	}
	var pkgs []*packages.Package
	l.ensurePkgs, l.ensureKinds = map[string]*packages.Package{}, ensureKinds
	for _, p := range all {
		if _, ok := ensureKinds[p.PkgPath]; ok {
			l.ensurePkgs[p.PkgPath] = p // named by --ensure-kinds
			if !matchesAny(l.patterns, p.PkgPath) && !vendored[p.PkgPath] {
				continue // and not an input
			}
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 && len(l.patterns) > 0 {
		l.errs.Add(token.Position{}, "check the package patterns: they are resolved from the current module, like `go list`", "no packages match %s", strings.Join(l.patterns, " "))
		return nil, nil, nil
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].PkgPath < pkgs[j].PkgPath })
	for _, p := range pkgs {
		l.addPackageErrors(p)
	}
	l.indexModules(all)
	return pkgs, vendored, nil
}

// settle reads the inputs' markers and decides what each is: its output
// folder, its kinds and what they reach, whether it is kept at all
// (layoutInputs, skipForeign), its group. It reports whether any input
// has a kind.
func (l *loader) settle(pkgs []*packages.Package, vendored map[string]bool) (bool, error) {
	for _, p := range pkgs {
		l.addInput(p)
		l.inputs[p.PkgPath].vendored = vendored[p.PkgPath]
	}
	if l.cfg.Layout {
		l.layoutInputs()
		if err := l.errs.Err(); err != nil {
			return false, err
		}
	}
	// Folders are settled before the roots are found (their types take
	// the folder's import path); a package skipForeign drops may have
	// lengthened another's folder name, as if it were generated.
	l.settleFolders()
	for _, in := range l.sortedInputs() {
		l.findRoots(in)
	}
	anyKind := false
	for _, in := range l.sortedInputs() {
		anyKind = anyKind || len(in.gv.Kinds()) > 0
	}
	if anyKind {
		l.skipForeign()
	}
	for _, in := range l.sortedInputs() {
		in.gv.NoGroup = !in.groupSet && !in.genclient && len(in.gv.Kinds()) == 0
		if in.vendored && len(in.gv.Kinds()) == 0 {
			in.gv.CRD = !in.builtIn() // only what the kinds reach, no group needed
			continue
		}
		if anyKind && len(in.gv.Kinds()) == 0 && in.hasStructs {
			// A package of shared types (common/v1): builders for every
			// exported type, as applyconfiguration-gen makes them; no kind,
			// so no group is needed.
			l.sharedTypes(in)
			continue
		}
		l.defaultGroup(in)
	}
	l.checkGroupVersions()
	return anyKind, nil
}

// universe checks what was resolved and builds the model: the inputs'
// group versions, sorted and named, then those of --ensure-kinds.
func (l *loader) universe(external []*model.GroupVersion, anyKind bool) (*model.Universe, error) {
	l.checkEnsureKinds(external)
	l.warnPatchTags()
	l.resolveJSON()
	l.validate()
	l.followPublishers()
	u := &model.Universe{Types: l.types, OutputPkg: l.cfg.OutputPkg, Ensure: l.cfg.Ensure}
	l.k8sFit(u)
	l.markUnreflectable(u)
	l.checkOutputDir()
	if !anyKind {
		for _, in := range l.sortedInputs() {
			if in.hasStructs {
				l.errs.Add(in.gv.Pos, "mark each kind with `// +kubebuilder:object:root=true` (kubebuilder) or `// +genclient` (code-generator) on a struct that embeds metav1.ObjectMeta; a package of shared types is generated beside the packages whose kinds use it",
					"package %s has types but no root kind, and neither has any other input package: looked for +kubebuilder:object:root and +genclient on structs embedding metav1.ObjectMeta", in.pkg.PkgPath)
			}
		}
	}
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	own, theirs := l.vendoredWarnings()
	u.Warnings, u.VendoredWarnings = own, theirs
	for _, in := range l.sortedInputs() {
		if len(in.gv.Types) == 0 {
			continue
		}
		sort.Slice(in.gv.Types, func(i, j int) bool { return in.gv.Types[i].Name.Name < in.gv.Types[j].Name.Name })
		settleNames(in.gv, l.cfg.CompatApplyconfigurationGen)
		u.GroupVersions = append(u.GroupVersions, in.gv)
	}
	u.GroupVersions = append(u.GroupVersions, external...)
	return u, nil
}

type input struct {
	pkg        *packages.Package
	gv         *model.GroupVersion
	hasStructs bool
	groupSet   bool // a +groupName marker was found
	// vendored: a package of another module generated for the kinds of
	// --ensure-kinds that reach it (vendored.go).
	vendored  bool
	genclient bool // some type has +genclient
	specs     map[string]typeDecl
	// acGenerate is the package's +kubebuilder:ac:generate (nil: none);
	// acOutput its +kubebuilder:ac:output:package.
	acGenerate *bool
	acOutput   string
}

type typeDecl struct {
	file *ast.File
	decl *ast.GenDecl
	spec *ast.TypeSpec
}

type loader struct {
	cfg    Config
	fset   *token.FileSet
	errs   diag.List
	warns  diag.List
	inputs map[string]*input
	types  map[string]*model.Type
	// files are the parsed files of external packages, by file name.
	files map[string]*ast.File
	// external struct types that need an apply configuration from elsewhere.
	external []*model.Type
	// only: of a package vendored in part, the types vendored (Load).
	only map[string]map[string]bool
	// typeMarkerCache holds the parsed markers of each type declaration.
	typeMarkerCache map[*ast.TypeSpec]typeMarkerEntry
	// externalErr holds why an apply configuration package did not load.
	externalErr map[string]string
	// ensurePkgs are the loaded packages of --ensure-kinds, ensureKinds the
	// kinds named in each.
	ensurePkgs  map[string]*packages.Package
	ensureKinds map[string][]string
	// modules is the module of every package the input reaches; discovered
	// what discover found per type package.
	modules    map[string]*packages.Module
	discovered map[string]discovery
	// structs are the declarations of parsed files of apply
	// configuration packages, by file name.
	structs map[string]fileDecls
	// checking guards checkApplyConfig against recursive named slices.
	checking map[*model.Type]bool
	// unexported holds where each struct declares unexported fields,
	// which encoding/json skips and controller-gen does not.
	unexported map[*model.Type][]token.Position
	// set is the run's packages; patterns the input patterns with the
	// packages of shared types followed (selectInputs).
	set      *packageSet
	patterns []string
	// owner is the type being modelled or validated, typeErrs the errors
	// found in each (typeerrs.go).
	owner    *model.Type
	typeErrs typeErrs
	// untypedField is set while the type of a field marked schemaless or
	// preserve-unknown-fields is modelled: interface{} is legal there.
	untypedField bool
}

func (l *loader) sortedInputs() []*input {
	out := make([]*input, 0, len(l.inputs))
	for _, in := range l.inputs {
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pkg.PkgPath < out[j].pkg.PkgPath })
	return out
}

func (l *loader) pos(p token.Pos) token.Position { return l.fset.Position(p) }

// addPackageErrors reports what go list and the type checker found.
func (l *loader) addPackageErrors(p *packages.Package) {
	for i, e := range p.Errors {
		// go list's own summary ("# pkg" and the compiler's lines) repeats
		// the type checker's errors; "too many errors" is no error at all;
		// go/types' "other declaration of X" note joins the error before it.
		if strings.HasPrefix(e.Msg, "# ") || e.Msg == "too many errors" || strings.HasPrefix(strings.TrimSpace(e.Msg), "other declaration of") {
			continue
		}
		msg := e.Msg
		if l.cfg.BeforeDeepCopy && strings.Contains(msg, "(missing method DeepCopyObject)") {
			continue
		}
		if i+1 < len(p.Errors) && strings.HasPrefix(strings.TrimSpace(p.Errors[i+1].Msg), "other declaration of") {
			msg += " (other declaration at " + shortPos(parsePos(p.Errors[i+1].Pos)) + ")"
		}
		pos := parsePos(e.Pos)
		if hint := gomod.Nested(l.cfg.Dir, msg); hint != "" {
			l.errs.Add(pos, hint, "%s", msg)
			continue
		}
		l.errs.Add(pos, "make the package compile (`go build "+p.PkgPath+"`) and run ssagen again", "%s", msg)
	}
}

// shortPos is file:line:col with the file's base name, for positions
// quoted inside a message.
func shortPos(p token.Position) string {
	return fmt.Sprintf("%s:%d:%d", filepath.Base(p.Filename), p.Line, p.Column)
}

func parsePos(s string) token.Position {
	if s == "" || s == "-" {
		return token.Position{}
	}
	parts := strings.Split(s, ":")
	var p token.Position
	p.Filename = parts[0]
	if len(parts) > 1 {
		fmt.Sscan(parts[1], &p.Line)
	}
	if len(parts) > 2 {
		fmt.Sscan(parts[2], &p.Column)
	}
	return p
}

// addInput reads the package markers of an input package.
func (l *loader) addInput(p *packages.Package) {
	in := &input{pkg: p, specs: map[string]typeDecl{}}
	gv := &model.GroupVersion{
		PkgPath:    p.PkgPath,
		PkgName:    p.Name,
		OutSubdir:  model.OutSubdir(p.PkgPath),
		OutPkgPath: path.Join(l.cfg.OutputPkg, model.OutSubdir(p.PkgPath)),
		Version:    path.Base(p.PkgPath),
	}
	if len(p.GoFiles) > 0 {
		gv.Dir = filepath.Dir(p.GoFiles[0])
	}
	in.gv = gv
	groupSet := false
	files := append([]*ast.File(nil), p.Syntax...)
	sort.Slice(files, func(i, j int) bool { return l.pos(files[i].Pos()).Filename < l.pos(files[j].Pos()).Filename })
	pm := l.packageMarkers(files, gv)
	groupSet = pm.groupSet
	in.acGenerate, in.acOutput = pm.acGenerate, pm.acOutput
	l.placeOutput(in)
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				in.specs[ts.Name.Name] = typeDecl{file: f, decl: gd, spec: ts}
				if _, ok := ts.Type.(*ast.StructType); ok {
					in.hasStructs = true
				}
			}
		}
	}
	in.groupSet = groupSet
	l.inputs[p.PkgPath] = in
}

// settleFolders names the output folder of each input package. It is the
// last two elements of the package path, as applyconfiguration-gen names
// it (rbac/v1), unless two input packages share them (api/v1alpha1 and
// extensions/api/v1alpha1): then each of those is named after its group,
// as client-gen names group packages — the group's first label, or as
// many labels as make it unique (extensions/v1alpha1 and gateway/v1alpha1),
// then the version. Only colliding packages move, so adding a package to
// a run never renames another's folder unless it collides with it.
func (l *loader) settleFolders() {
	byDir := map[string][]*input{}
	for _, in := range l.sortedInputs() {
		key := in.gv.OutRoot + "\x00" + in.gv.OutSubdir
		byDir[key] = append(byDir[key], in)
	}
	for _, ins := range byDir {
		if len(ins) < 2 {
			continue
		}
		for labels := 1; ; labels++ {
			names := map[string]int{}
			for _, in := range ins {
				names[in.groupFolder(labels)]++
			}
			unique := len(names) == len(ins)
			if unique || labels > 8 {
				for _, in := range ins {
					in.gv.OutSubdir = in.groupFolder(labels)
					in.gv.OutPkgPath = path.Join(in.gv.OutRoot, in.gv.OutSubdir)
				}
				break
			}
		}
	}
}

// groupFolder is <first n labels of the group, dots removed>/<version>,
// core/<version> for the core group (+groupName= with no value), or, for a
// package without +groupName (shared types, a vendored package's), the
// last n+2 elements of its path.
func (in *input) groupFolder(n int) string {
	gv := in.gv
	if gv.Group == "" && !in.groupSet && !in.genclient {
		// No group at all (shared types, a vendored package's): as many
		// trailing elements of the package path as make it unique.
		parts := strings.Split(gv.PkgPath, "/")
		if n+2 > len(parts) {
			n = len(parts) - 2
		}
		return strings.ToLower(strings.Join(parts[len(parts)-n-2:], "/"))
	}
	if gv.Group == "" {
		return path.Join("core", strings.ToLower(gv.Version))
	}
	labels := strings.Split(gv.Group, ".")
	if n > len(labels) {
		n = len(labels)
	}
	return path.Join(strings.ToLower(strings.Join(labels[:n], "")), strings.ToLower(gv.Version))
}

// packageMarkers reads +groupName and +versionName from the comments
// above the package clause of the files (sorted by name) into gv, and
// reports whether a group was named. Input packages and --ensure-kinds
// packages are read this one way.
func (l *loader) packageMarkers(files []*ast.File, gv *model.GroupVersion) (pm packageInfo) {
	for _, f := range files {
		if !gv.Pos.IsValid() {
			gv.Pos = l.pos(f.Package)
		}
		var groups []*ast.CommentGroup
		for _, g := range f.Comments {
			if g.End() < f.Package {
				groups = append(groups, g)
			}
		}
		vals := l.parseMarkers(markerLines(groups...), ctmarkers.DescribesPackage)
		if vals.has("groupName") {
			gv.Group = vals.str("groupName")
			pm.groupSet = true
			gv.Pos = l.pos(f.Package)
		}
		if vals.has("versionName") {
			gv.Version = vals.str("versionName")
		}
		if vals.has("kubebuilder:ac:generate") {
			on := vals.boolean("kubebuilder:ac:generate")
			pm.acGenerate = &on
		}
		if vals.has("kubebuilder:ac:output:package") {
			pm.acOutput = vals.str("kubebuilder:ac:output:package")
		}
	}
	return pm
}

// packageInfo is what a package's markers say beyond its group version.
type packageInfo struct {
	groupSet bool // +groupName was found
	// acGenerate is +kubebuilder:ac:generate (nil: not stated); acOutput
	// is +kubebuilder:ac:output:package.
	acGenerate *bool
	acOutput   string
}

// placeOutput decides the output tree of an input package: the run's
// (--output-dir), or, in the controller-gen layout, the package's own.
func (l *loader) placeOutput(in *input) {
	gv := in.gv
	if !l.cfg.Layout {
		gv.OutRoot = l.cfg.OutputPkg
	} else {
		out := in.acOutput
		if out == "" {
			out = "applyconfiguration" // controller-tools' default
		}
		gv.OutRoot = path.Join(in.pkg.PkgPath, out)
		gv.OutRootDir = filepath.Join(gv.Dir, filepath.FromSlash(out))
	}
	gv.OutPkgPath = path.Join(gv.OutRoot, gv.OutSubdir)
}

// layoutInputs keeps, in the controller-gen layout, the input packages
// controller-gen generates: marked +kubebuilder:ac:generate=true, and not
// inside another input's output tree (a ./... pattern finds the output of
// the last run, ssagen's or controller-gen's; it is not an API).
func (l *loader) layoutInputs() {
	var roots []string
	for _, in := range l.inputs {
		if in.acGenerate != nil && *in.acGenerate {
			roots = append(roots, in.gv.OutRootDir)
		}
	}
	for p, in := range l.inputs {
		inTree := false
		for _, r := range roots {
			inTree = inTree || within(in.gv.Dir, r)
		}
		if inTree || in.acGenerate == nil || !*in.acGenerate {
			delete(l.inputs, p)
		}
	}
	if len(l.inputs) == 0 {
		l.errs.Add(token.Position{}, "add `// +kubebuilder:ac:generate=true` above the package clause of the API package (groupversion_info.go), as `kubebuilder create api --ssa` does, or pass --output-dir",
			"no input package is marked +kubebuilder:ac:generate=true, and no --output-dir was given: nothing to generate where controller-gen would")
	}
}

// within reports whether dir is root or inside it.
func within(dir, root string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// defaultGroup handles packages without +groupName. code-generator-style
// packages (with +genclient) have always fallen back to the parent folder's
// name (k8s.io/api/apps/v1 is group "apps"), so ssagen does too; for any
// other package that guess is how applyconfiguration-gen ends up with
// apiVersion "api/v1alpha1" for kubebuilder layouts, so it is an error.
func (l *loader) defaultGroup(in *input) {
	in.gv.CRD = !in.builtIn()
	if in.groupSet || !in.hasStructs {
		return
	}
	if in.genclient {
		in.gv.Group = path.Base(path.Dir(in.pkg.PkgPath))
		return
	}
	l.errs.Add(in.gv.Pos, hintGroupName, "package %s has no +groupName marker, so its API group is unknown", in.pkg.PkgPath)
}

// skipForeign drops the packages a pattern matched that hold no kind, no
// +groupName and are imported by no package with kinds, directly or
// through another input — protobuf
// messages, helpers beside an API — as controller-gen reads only packages
// with +groupName; a package of shared types the kinds import stays. It
// says so once, on the log.
func (l *loader) skipForeign() {
	// What the kinds' packages import, and what those import in turn
	// (shared types of shared types: pkg/api/meta using pkg/runtime/gvk).
	imported := map[string]bool{}
	var follow func(in *input)
	follow = func(in *input) {
		for path := range in.pkg.Imports {
			if imported[path] {
				continue
			}
			imported[path] = true
			if next, ok := l.inputs[path]; ok {
				follow(next)
			}
		}
	}
	for _, in := range l.inputs {
		if len(in.gv.Kinds()) > 0 {
			follow(in)
		}
	}
	var skipped []string
	for path, in := range l.inputs {
		if len(in.gv.Kinds()) == 0 && !in.groupSet && !imported[path] && !in.vendored {
			skipped = append(skipped, path)
			delete(l.inputs, path)
		}
	}
	if len(skipped) > 0 && l.cfg.Log != nil {
		sort.Strings(skipped)
		fmt.Fprintf(l.cfg.Log, "skipped %d package(s) with no kind, no +groupName and no kind importing them, as controller-gen does: %s\n", len(skipped), strings.Join(skipped, ", "))
	}
}

// builtIn reports a package of a built-in, OpenAPI-served API: one with
// +genclient, or any package of the k8s.io/api module (apidiscovery and
// imagepolicy have no client but are served the same way). Its schema
// comes from openapi-gen, not from a CRD, so what a CRD may not do is a
// warning there, the same for every package of the module.
func (in *input) builtIn() bool {
	return in.genclient || in.pkg.Module != nil && in.pkg.Module.Path == "k8s.io/api"
}

// sharedTypes walks every exported, non-generic type of a package without
// kinds, so that each gets a builder.
func (l *loader) sharedTypes(in *input) {
	in.gv.CRD = !in.builtIn()
	for _, name := range sortedKeys(in.specs) {
		obj, _ := in.pkg.Types.Scope().Lookup(name).(*types.TypeName)
		if obj == nil || !obj.Exported() {
			continue
		}
		n, ok := obj.Type().(*types.Named)
		if !ok || n.TypeParams().Len() > 0 {
			continue
		}
		if st, ok := n.Underlying().(*types.Struct); ok && embeds(st, "ListMeta") {
			continue // a list of a kind: applyconfiguration-gen skips these too
		}
		l.named(obj)
	}
}

func (l *loader) checkGroupVersions() {
	seen := map[string]*input{}
	seenDir := map[string]*input{}
	for _, in := range l.sortedInputs() {
		if !in.hasStructs {
			continue
		}
		key := in.gv.Group + "/" + in.gv.Version
		if prev, ok := seen[key]; ok && len(in.gv.Kinds()) > 0 && len(prev.gv.Kinds()) > 0 {
			l.errs.Add(in.gv.Pos, "generate the two packages in separate runs with separate --output-pkg, or give one of them another +groupName/+versionName",
				"packages %s and %s both declare group %q version %q", prev.pkg.PkgPath, in.pkg.PkgPath, in.gv.Group, in.gv.Version)
		}
		seen[key] = in
		if prev, ok := seenDir[in.gv.OutSubdir]; ok {
			l.errs.Add(in.gv.Pos, "give the packages distinct +groupName markers, or generate them in separate runs with separate --output-pkg",
				"packages %s and %s would both be generated into %s", prev.pkg.PkgPath, in.pkg.PkgPath, in.gv.OutPkgPath)
		}
		seenDir[in.gv.OutSubdir] = in
	}
}

// findRoots finds the kinds of an input package and walks everything they reach.
func (l *loader) findRoots(in *input) {
	for _, name := range sortedKeys(in.specs) {
		td := in.specs[name]
		if td.spec.TypeParams != nil && len(td.spec.TypeParams.List) > 0 {
			continue
		}
		lines, vals := l.typeMarkers(td.file, td.decl, td.spec)
		genclient := hasGenclient(lines, "")
		in.genclient = in.genclient || genclient
		root := vals.boolean("kubebuilder:object:root") || genclient
		if vals.has("kubebuilder:ac:generate") {
			// controller-gen's opt-in or opt-out of one type wins.
			root = vals.boolean("kubebuilder:ac:generate")
		}
		if in.vendored {
			root = slices.Contains(l.ensureKinds[in.pkg.PkgPath], name) // the kinds asked only
		}
		if !root {
			continue
		}
		obj, _ := in.pkg.Types.Scope().Lookup(name).(*types.TypeName)
		if obj == nil {
			continue
		}
		st, ok := obj.Type().Underlying().(*types.Struct)
		if !ok || !embedsObjectMeta(st) {
			continue // a List type, or a root without metadata: not a kind
		}
		t := l.named(obj)
		if t.ApplyConfig == nil {
			continue
		}
		t.Root = l.rootOf(t, lines, vals)
		l.applyInputs(in, lines)
	}
}

// applyInputs walks the types a kind's extra apply methods take
// (+genclient:method=ApplyScale,verb=apply,subresource=scale,input=<type>):
// they get apply configurations as applyconfiguration-gen gives them, when
// their package is an input. A bare name is a type of the kind's package.
func (l *loader) applyInputs(in *input, lines []markerLine) {
	for _, m := range lines {
		args, ok := strings.CutPrefix(m.text, "+genclient:method=")
		if !ok {
			continue
		}
		var verb, input string
		for _, kv := range strings.Split(args, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			switch k {
			case "verb":
				verb = v
			case "input":
				input = v
			}
		}
		if verb != "apply" || input == "" {
			continue
		}
		pkg, name := in.pkg.PkgPath, input
		if i := strings.LastIndex(input, "."); i >= 0 {
			pkg, name = input[:i], input[i+1:]
		}
		target := l.inputs[pkg]
		if target == nil {
			continue // not generated in this run, as with applyconfiguration-gen
		}
		if obj, ok := target.pkg.Types.Scope().Lookup(name).(*types.TypeName); ok {
			l.named(obj)
		}
	}
}

// rootOf decides everything about a kind — scope, plural, subresources —
// from its markers, once, for input kinds and --ensure-kinds alike:
// kubebuilder's +kubebuilder:resource and +kubebuilder:subresource:status,
// code-generator's +genclient, +genclient:nonNamespaced, :noStatus and
// :method=...,subresource=.
func (l *loader) rootOf(t *model.Type, lines []markerLine, vals markerValues) *model.Root {
	name := t.Name.Name
	genclient := hasGenclient(lines, "")
	root := &model.Root{Kind: name, Namespaced: true, Plural: flect.Pluralize(strings.ToLower(name))}
	if res, ok := vals["kubebuilder:resource"]; ok && len(res) > 0 {
		if r, ok := res[len(res)-1].(crdmarkers.Resource); ok {
			switch r.Scope {
			case "", "Namespaced":
			case "Cluster":
				root.Namespaced = false
			default:
				l.errs.Add(t.Pos, "use scope=Namespaced or scope=Cluster", "+kubebuilder:resource:scope=%s on %s: the scope is Namespaced or Cluster", r.Scope, name)
			}
			if r.Path != "" {
				root.Plural = r.Path
			}
		}
	}
	if hasGenclient(lines, "nonNamespaced") {
		root.Namespaced = false
	}
	hasStatus := false
	for _, f := range t.Fields {
		hasStatus = hasStatus || (f.GoName == "Status" && !f.Embedded)
	}
	if hasStatus && (vals.has("kubebuilder:subresource:status") || (genclient && !hasGenclient(lines, "noStatus"))) {
		root.Subresources = []string{"status"}
	}
	root.Subresources = append(root.Subresources, genclientSubresources(lines, root.Subresources)...)
	sort.Strings(root.Subresources)
	return root
}

func embedsObjectMeta(st *types.Struct) bool { return embeds(st, "ObjectMeta") }

// embeds reports whether st embeds the meta/v1 type of that name.
func embeds(st *types.Struct, metaType string) bool {
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !f.Embedded() {
			continue
		}
		t := f.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil &&
			n.Obj().Pkg().Path() == metaV1Pkg && n.Obj().Name() == metaType {
			return true
		}
	}
	return false
}

// typeMarkerLines returns the marker lines of a type: its doc comment, the
// declaration's doc for a lone spec, and the comment group just above.
func (l *loader) typeMarkerLines(file *ast.File, decl *ast.GenDecl, spec *ast.TypeSpec) []markerLine {
	doc := spec.Doc
	if doc == nil && decl != nil && len(decl.Specs) == 1 {
		doc = decl.Doc
	}
	var groups []*ast.CommentGroup
	start := spec.Pos()
	if doc != nil {
		start = doc.Pos()
	} else if decl != nil && len(decl.Specs) == 1 {
		start = decl.Pos()
	}
	if file != nil {
		if before := commentBefore(l.fset, file, l.pos(start).Line); before != nil && before != doc {
			groups = append(groups, before)
		}
	}
	groups = append(groups, doc)
	return markerLines(groups...)
}

// typeMarkers returns a type's marker lines and parsed values, once per
// declaration: roots are looked at by findRoots and again by named.
func (l *loader) typeMarkers(file *ast.File, decl *ast.GenDecl, spec *ast.TypeSpec) ([]markerLine, markerValues) {
	if m, ok := l.typeMarkerCache[spec]; ok {
		return m.lines, m.vals
	}
	lines := l.typeMarkerLines(file, decl, spec)
	vals := l.parseMarkers(lines, ctmarkers.DescribesType)
	l.typeMarkerCache[spec] = typeMarkerEntry{lines, vals}
	return lines, vals
}

type typeMarkerEntry struct {
	lines []markerLine
	vals  markerValues
}

func (l *loader) parseMarkers(lines []markerLine, target ctmarkers.TargetType) markerValues {
	vals, declarative := markerValues{}, markerValues{}
	for _, m := range lines {
		def := registry.Lookup(m.text, target)
		if def == nil {
			continue
		}
		v, err := def.Parse(m.text)
		if err != nil {
			l.errs.Add(l.pos(m.pos), "fix the marker's syntax; `controller-gen crd -www` lists each marker's arguments",
				"invalid marker %s: %v", strings.SplitN(m.text, "=", 2)[0], err)
			continue
		}
		name := def.Name
		if canonical, ok := aliases[name]; ok {
			if topology[name] {
				declarative[canonical] = append(declarative[canonical], v)
				continue
			}
			name = canonical
		}
		vals[name] = append(vals[name], v)
	}
	// The declarative-validation topology (+k8s:listType, +k8s:listMapKey)
	// is the field's merge topology only where the plain spelling is
	// absent: k8s.io/api pairs +listType=atomic with +k8s:listMapKey for
	// uniqueness validation, and its OpenAPI schema keeps the list atomic.
	if !vals.has("listType") {
		for name, vs := range declarative {
			vals[name] = append(vals[name], vs...)
		}
	}
	return vals
}
