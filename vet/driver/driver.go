// Package driver is the command `ssagen vet`: it loads the packages, runs
// ssagen's analyzers on them, prints the findings, and with -fix or -diff
// applies the suggested fixes — each only after the package it edits has
// been checked with the edit in place (it must build and pass go vet, its
// tests included), so that a fix never breaks the author's build. It says
// what it did: the sites rewritten, and those it left, grouped by reason.
//
// `go vet -vettool=ssagen` (unitchecker) does not come through here: go
// vet owns that protocol, and has no -fix.
package driver

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/ssagen/ssagen/internal/gomod"
	"github.com/ssagen/ssagen/internal/gosrc"
	"github.com/ssagen/ssagen/vet"
)

// Exit codes: as the analysis drivers of x/tools.
const (
	exitClean    = 0
	exitError    = 1
	exitUsage    = 2
	exitFindings = 3
)

// Main runs `ssagen vet` with args (the flags and packages after "vet").
// It loads the packages, then names their modules to the analyzers
// (vet.UseHelpers), whose generated helpers are found once per run: the
// passes themselves read nothing outside their package.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ssagen vet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.BoolVar(&o.fix, "fix", false, "apply the suggested fixes that keep the package building and passing go vet; print what was rewritten and what was left, with the reason")
	fs.BoolVar(&o.diff, "diff", false, "print the fixes -fix would apply as a unified diff, and write nothing")
	fs.StringVar(&o.tags, "tags", "", "build tags for loading the packages")
	fs.BoolVar(&o.json, "json", false, "print the findings as a JSON array on standard output (position, category, message, the kind whose helper the fix names, whether it is the status helper), not as text")
	fs.BoolVar(&o.tests, "fix.tests", true, "with -fix or -diff, also run the tests of each package a fix edits, and decline a fix that makes one of them fail")
	fs.BoolVar(&o.noCheck, "fix.nocheck", false, "apply fixes without checking the edited packages with go vet (for debugging ssagen only)")
	fs.StringVar(&o.helpers, "helpers", "", "import paths of generated helper packages (<apply configurations>/ensure) to fix with, besides those the packages import and those in their modules (comma-separated)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ssagen vet [flags] PACKAGES...\n\n%s\n\nFlags:\n", doc(vet.Analyzers))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitClean
		}
		return exitUsage
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	o.patterns = fs.Args()
	o.stdout, o.stderr = stdout, stderr
	o.wd, _ = os.Getwd()
	return run(o)
}

type options struct {
	fix, diff, noCheck, tests bool
	json                      bool
	tags, helpers             string
	patterns                  []string
	stdout, stderr            io.Writer
	wd                        string // the working directory, for relative positions
}

func doc(analyzers []*analysis.Analyzer) string {
	var b strings.Builder
	b.WriteString("Checks:")
	for _, a := range analyzers {
		fmt.Fprintf(&b, "\n  %-18s %s", a.Name, strings.SplitN(a.Doc, "\n", 2)[0])
	}
	return b.String()
}

// finding is one diagnostic of the run, with where it is and the helper
// its fix names.
type finding struct {
	pkg    *packages.Package
	diag   analysis.Diagnostic
	pos    token.Position
	target vet.Target
}

func run(o options) int {
	found, err := analyze(o.patterns, o.tags, o.helpers, nil)
	if err != nil {
		fmt.Fprintf(o.stderr, "ssagen vet: %v\n", err)
		return exitError
	}
	if !o.fix && !o.diff {
		if o.json {
			if err := o.printJSON(found); err != nil {
				fmt.Fprintf(o.stderr, "ssagen vet: %v\n", err)
				return exitError
			}
		} else {
			for _, f := range found {
				fmt.Fprintf(o.stderr, "%s: %s\n", o.relPos(f.pos), o.relText(f.diag.Message))
			}
		}
		if len(found) > 0 {
			return exitFindings
		}
		return exitClean
	}
	return fix(found, o)
}

// printJSON prints found as a JSON array, positions as the text output
// gives them.
func (o options) printJSON(found []finding) error {
	type jsonFinding struct {
		Pos      string `json:"pos"`
		Category string `json:"category"`
		Message  string `json:"message"`
		Kind     string `json:"kind,omitempty"`
		Status   bool   `json:"status,omitempty"`
	}
	out := make([]jsonFinding, 0, len(found))
	for _, f := range found {
		out = append(out, jsonFinding{o.relPos(f.pos), f.diag.Category, o.relText(f.diag.Message), f.target.Kind, f.target.Status})
	}
	enc := json.NewEncoder(o.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// analyzeMu holds one analysis at a time: the helpers the analyzers
// resolve are set for the process (vet.UseHelpers).
var analyzeMu sync.Mutex

// analyze loads the packages (with overlay's files in place of those on
// disk) and runs the analyzers on them: the findings, sorted by
// position, each once.
func analyze(patterns []string, tags, helpers string, overlay map[string][]byte) ([]finding, error) {
	pkgs, err := load(patterns, tags, overlay)
	if err != nil {
		return nil, err
	}
	pkgs = withoutTestOnly(pkgs, patterns, overlay)
	if len(pkgs) == 0 {
		return nil, nil
	}
	analyzeMu.Lock()
	defer analyzeMu.Unlock()
	vet.UseHelpers(moduleDirs(pkgs), strings.Split(helpers, ","))
	vet.UseOverlay(overlay)
	graph, err := checker.Analyze(vet.Analyzers, pkgs, nil)
	if err != nil {
		return nil, err
	}
	var found []finding
	var errs []error
	seen := map[string]bool{}
	for _, act := range graph.Roots {
		if act.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", act, act.Err))
			continue
		}
		var targets vet.Targets
		if r, ok := act.Result.(*vet.Result); ok {
			targets = r.Targets
		}
		for _, d := range act.Diagnostics {
			pos := act.Package.Fset.Position(d.Pos)
			key := fmt.Sprintf("%s\x00%s", pos, d.Message)
			if seen[key] {
				continue
			}
			seen[key] = true
			found = append(found, finding{pkg: act.Package, diag: d, pos: pos, target: targets.Of(d)})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.Slice(found, func(i, j int) bool { return less(found[i].pos, found[j].pos) })
	return found, nil
}

// Finding is one of ssagen vet's findings, for other commands (ssagen
// audit joins them to what an API server's audit log shows).
type Finding struct {
	Pos      token.Position
	Category string // the diagnostic's category: create-update, status-update, …
	Message  string
	// Kind is the kind whose helper the finding's fix names (EnsureRole:
	// Role), "" when the finding cannot tell; Status, whether that helper
	// is the kind's status helper (EnsureRoleStatus). Data, as the
	// analyzers produced it: nothing reads them back from Message.
	Kind   string
	Status bool
}

// Findings runs ssagen vet's analyzers on the packages of patterns.
func Findings(patterns []string, tags string) ([]Finding, error) {
	found, err := analyze(patterns, tags, "", nil)
	if err != nil {
		return nil, err
	}
	out := make([]Finding, len(found))
	for i, f := range found {
		out[i] = Finding{Pos: f.pos, Category: f.diag.Category, Message: f.diag.Message, Kind: f.target.Kind, Status: f.target.Status}
	}
	return out, nil
}

// moduleDirs are the folders of the analysed packages' modules, one per
// module: where their helpers are looked for.
func moduleDirs(pkgs []*packages.Package) []string {
	var dirs []string
	seen := map[string]bool{}
	for _, p := range pkgs {
		dir := ""
		switch {
		case p.Module != nil && p.Module.Dir != "":
			dir = p.Module.Dir
		case len(p.GoFiles) > 0:
			dir = filepath.Dir(p.GoFiles[0])
		}
		if dir != "" && !seen[dir] {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// load loads the packages to analyse: syntax and types for them, export
// data for their dependencies. The dependencies in the analysed module
// get their syntax and type information too (withModuleSyntax), so that
// flow's facts about their functions reach the packages that import
// them, as go vet analyses a package's dependencies before it. A package
// that does not load is an error that names the cause.
func load(patterns []string, tags string, overlay map[string][]byte) ([]*packages.Package, error) {
	cfg := &packages.Config{
		Mode:    packages.LoadSyntax | packages.NeedModule,
		Overlay: overlay,
	}
	if tags != "" {
		cfg.BuildFlags = []string{"-tags=" + tags}
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	var msgs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			msgs = append(msgs, explain(e))
		}
	})
	if len(msgs) > 0 {
		sort.Strings(msgs)
		msgs = slices.Compact(msgs)
		return nil, fmt.Errorf("%d package error(s); ssagen vet needs packages that build:\n  %s", len(msgs), strings.Join(msgs, "\n  "))
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no packages match %s", strings.Join(patterns, " "))
	}
	withModuleSyntax(pkgs, overlay)
	return pkgs, nil
}

// withoutTestOnly drops the roots that only tests import — a fixture or
// testutil package of the module: some _test.go file of the module
// imports it, and no other Go file of the module does (nor is it a
// command). Every file of the module counts, not only the roots': a
// package cmd/main.go imports is operator code when vet is run on
// ./pkg/... alone (lws' disaggregatedset). A package named by a pattern
// without "..." is always analysed: it was asked for. Decided from the
// import graph, not from names; a package nothing imports stays.
func withoutTestOnly(pkgs []*packages.Package, patterns []string, overlay map[string][]byte) []*packages.Package {
	byTests, byCode := map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	read := func(path string) {
		var src any // the file on disk, unless the overlay has it
		if b, ok := overlay[path]; ok {
			src = b
		}
		f, err := parser.ParseFile(fset, path, src, parser.ImportsOnly)
		if err != nil {
			return
		}
		into := byCode
		if strings.HasSuffix(path, "_test.go") {
			into = byTests
		}
		for _, imp := range f.Imports {
			if ip, err := strconv.Unquote(imp.Path.Value); err == nil {
				into[ip] = true
			}
		}
	}
	// The roots' own folders (a testdata tree the walk leaves out too).
	named := map[string]bool{}
	for _, pat := range patterns {
		if !strings.Contains(pat, "...") {
			if abs, err := filepath.Abs(pat); err == nil {
				named[abs] = true
			}
		}
	}
	done := map[string]bool{}
	for _, p := range pkgs {
		if len(p.GoFiles) > 0 && !done[filepath.Dir(p.GoFiles[0])] {
			dir := filepath.Dir(p.GoFiles[0])
			done[dir] = true
			tests, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
			for _, t := range tests {
				read(t)
			}
		}
	}
	for _, p := range pkgs {
		if p.Module == nil || !p.Module.Main || p.Module.Dir == "" || done[p.Module.Dir] {
			continue
		}
		root := p.Module.Dir
		done[root] = true
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				name := d.Name()
				if path != root && (name == "vendor" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
					fileExists(filepath.Join(path, "go.mod"))) {
					return filepath.SkipDir // another module's, or none the go command builds
				}
				return nil
			}
			if strings.HasSuffix(path, ".go") && !done[filepath.Dir(path)] {
				read(path)
			} else if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
				read(path) // a root's folder: its tests were read above
			}
			return nil
		})
	}
	out := pkgs[:0:0]
	for _, p := range pkgs {
		named := len(p.GoFiles) > 0 && named[filepath.Dir(p.GoFiles[0])]
		if !named && p.Module != nil && p.Module.Main && p.Name != "main" && byTests[p.PkgPath] && !byCode[p.PkgPath] {
			continue
		}
		out = append(out, p)
	}
	return out
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// withModuleSyntax parses and type-checks, from their files, the
// packages of the main module (or workspace) that pkgs import directly or
// not and that were loaded from export data, against the export data of
// their own imports: the analyzers that use facts (flow) then see their
// functions. Each gets types of its own, apart from the export data the
// roots were checked against; flow finds a function of either by its
// object path. A package that does not check keeps its export data (its
// functions then have no summaries). This replaces a second go list of
// the module's dependencies, which cost about as much as the whole load.
func withModuleSyntax(pkgs []*packages.Package, overlay map[string][]byte) {
	var deps []*packages.Package
	exported := map[*packages.Package]*types.Package{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.Module != nil && p.Module.Main && len(p.Syntax) == 0 && p.Types != nil {
			deps = append(deps, p)
		}
		exported[p] = p.Types
	})
	for _, p := range deps {
		checkFromSource(p, exported, overlay)
	}
}

// checkFromSource gives p its syntax and type information, checked
// against the export data (exported) of its imports.
func checkFromSource(p *packages.Package, exported map[*packages.Package]*types.Package, overlay map[string][]byte) {
	files := make([]*ast.File, 0, len(p.CompiledGoFiles))
	for _, name := range p.CompiledGoFiles {
		var src any
		if b, ok := overlay[name]; ok {
			src = b
		}
		f, err := parser.ParseFile(p.Fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return
		}
		files = append(files, f)
	}
	info := &types.Info{
		Types:        map[ast.Expr]types.TypeAndValue{},
		Defs:         map[*ast.Ident]types.Object{},
		Uses:         map[*ast.Ident]types.Object{},
		Implicits:    map[ast.Node]types.Object{},
		Instances:    map[*ast.Ident]types.Instance{},
		Selections:   map[*ast.SelectorExpr]*types.Selection{},
		Scopes:       map[ast.Node]*types.Scope{},
		FileVersions: map[*ast.File]string{},
	}
	conf := types.Config{
		Importer: gosrc.ImporterFunc(func(path string) (*types.Package, error) {
			if imp := p.Imports[path]; imp != nil && exported[imp] != nil {
				return exported[imp], nil
			}
			return nil, fmt.Errorf("%s: no package for import %q", p.PkgPath, path)
		}),
		Sizes: p.TypesSizes,
		Error: func(error) {},
	}
	checked, err := conf.Check(p.PkgPath, p.Fset, files, info)
	if err != nil {
		return
	}
	p.Types, p.TypesInfo, p.Syntax = checked, info, files
}

// explain says what a load error means where go list's words mislead: a
// pattern inside a nested module is not "missing", it belongs to another
// module.
func explain(e packages.Error) string {
	msg := e.Error()
	if hint := gomod.Nested(".", msg); hint != "" {
		return msg + "\n    (" + hint + ")"
	}
	return msg
}

func less(a, b token.Position) bool {
	if a.Filename != b.Filename {
		return a.Filename < b.Filename
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Column < b.Column
}

// relText makes the paths under the working directory that text names
// (a reason citing another writer's position) relative, as relPos does.
func (o options) relText(text string) string {
	if o.wd == "" {
		return text
	}
	prefix := o.wd + string(filepath.Separator)
	var b strings.Builder
	for {
		i := strings.Index(text, prefix)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i])
		if i > 0 && !strings.ContainsRune(" \t(\"'`", rune(text[i-1])) {
			b.WriteString(prefix) // inside another path: not this one
		}
		text = text[i+len(prefix):]
	}
}

// relPos prints a position relative to the working directory (read once,
// in Main) when it is below it, as go vet does.
func (o options) relPos(p token.Position) string {
	if o.wd != "" {
		if rel, err := filepath.Rel(o.wd, p.Filename); err == nil && !strings.HasPrefix(rel, "..") {
			p.Filename = rel
		}
	}
	return p.String()
}
