package load

import (
	"fmt"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/ssagen/ssagen/internal/gosrc"
)

// packageSet is a run's one loader: one file set and the packages loaded
// into it, which grows as the run finds what it needs and never loads a
// package twice. A run loads packages (go list and the type checker, or
// go/packages) once per kind of question, and again only for paths no
// earlier load had:
//
//  1. the input patterns and the packages of --ensure-kinds, with the
//     types of what their declarations reach (loadRoots; one load, the
//     first round's);
//  2. apply configuration packages of other modules, to see that they
//     declare what a type needs and build here: client-go's of the
//     meta/v1 and k8s.io/api packages the first load lists are listed
//     while it parses (prefetchApplyConfigs), and applyConfigs loads
//     only the paths that listing and earlier rounds did not have — none
//     on every path TestEachPackageLoadedOnce runs but a kind whose own
//     module's apply configurations are found.
//
// Packages the run adds later to its inputs — shared types the input
// uses, the packages of a module it vendors — are dependencies of what
// the first load read: their types are already in it, so they are only
// parsed, for their markers (with), and checked against those types for
// errors (check). A path the first load does not reach is loaded on its
// own (a "more" load): no path the tests know of takes it. The rounds
// of Load rebuild the model from this set; none of them reads a package
// again (TestEachPackageLoadedOnce).
type packageSet struct {
	cfg    *packages.Config
	choice Loader
	load   packagesLoad
	// first holds the first load's roots; graph every package they
	// reach, by path; universe the type-checked package of every path.
	first    []*packages.Package
	graph    map[string]*packages.Package
	universe map[string]*types.Package
	// added are the packages given syntax after the first load.
	added map[string]*packages.Package
	// acs are the apply configuration packages loaded, acTyped those
	// loaded with their types.
	acs     map[string]*packages.Package
	acTyped map[string]bool
	// fromSource: the first load type-checked every dependency from
	// source (source.go), not from export data.
	fromSource bool
	// prefetched is closed when prefetchApplyConfigs has listed what it
	// guessed into early (nil: nothing guessed).
	prefetched chan struct{}
	early      []*packages.Package
	// loads records every load of the run, one line each (tests).
	loads []string
}

func newPackageSet(cfg Config) *packageSet {
	load := cfg.loadPackages
	if load == nil {
		load = packages.Load
	}
	return &packageSet{
		cfg: &packages.Config{
			Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
				packages.NeedImports | packages.NeedModule,
			Dir:        cfg.Dir,
			BuildFlags: cfg.BuildFlags,
			Fset:       token.NewFileSet(),
		},
		choice:   cfg.Loader,
		load:     load,
		graph:    map[string]*packages.Package{},
		universe: map[string]*types.Package{},
		added:    map[string]*packages.Package{},
		acs:      map[string]*packages.Package{},
		acTyped:  map[string]bool{},
	}
}

// loadRoots is the run's first load, done once: the patterns with their
// dependencies. Later calls return what it loaded.
func (s *packageSet) loadRoots(patterns []string) ([]*packages.Package, error) {
	if s.first != nil {
		return s.first, nil
	}
	s.loads = append(s.loads, "roots "+strings.Join(patterns, " "))
	roots, fromSource, err := loadInput(s.load, s.choice, s.cfg, patterns, s.prefetchApplyConfigs)
	if err != nil {
		return nil, err
	}
	s.first, s.fromSource = roots, fromSource
	packages.Visit(roots, nil, func(p *packages.Package) {
		s.graph[p.PkgPath] = p
	})
	var walk func(*types.Package)
	walk = func(tp *types.Package) {
		if tp == nil || s.universe[tp.Path()] != nil {
			return
		}
		s.universe[tp.Path()] = tp
		for _, imp := range tp.Imports() {
			walk(imp)
		}
	}
	for _, p := range roots {
		walk(p.Types)
	}
	for path, p := range s.graph {
		if s.universe[path] == nil && p.Types != nil {
			s.universe[path] = p.Types
		}
	}
	return roots, nil
}

// with returns the first load's roots and the packages of paths, giving
// those not loaded with syntax yet their syntax: a dependency of the
// first load is parsed and keeps the types it was loaded with, so that a
// type reached through an input and through its own package is one; a
// path the first load does not reach is loaded (its own load).
func (s *packageSet) with(paths []string) ([]*packages.Package, error) {
	all := slices.Clone(s.first)
	var missing []string
	for _, path := range paths {
		if slices.ContainsFunc(s.first, func(p *packages.Package) bool { return p.PkgPath == path }) {
			continue
		}
		if p, ok := s.added[path]; ok {
			all = append(all, p)
			continue
		}
		dep, ok := s.graph[path]
		if !ok || s.universe[path] == nil {
			missing = append(missing, path)
			continue
		}
		p := s.parse(dep)
		s.added[path] = p
		all = append(all, p)
	}
	if len(missing) > 0 {
		s.loads = append(s.loads, "more "+strings.Join(missing, " "))
		more, _, err := loadInput(s.load, s.choice, s.cfg, missing, nil)
		if err != nil {
			return nil, err
		}
		for _, p := range more {
			s.added[p.PkgPath] = p
			all = append(all, p)
		}
	}
	return all, nil
}

// parse gives a dependency of the first load its syntax: its files
// parsed with their comments, and their errors: from export data, a
// package compiled (the input importing it would not have loaded
// otherwise); checked from source without bodies and errors, it is
// checked again as a root is (check).
func (s *packageSet) parse(dep *packages.Package) *packages.Package {
	p := &packages.Package{ID: dep.ID, Name: dep.Name, PkgPath: dep.PkgPath, Module: dep.Module, Fset: s.cfg.Fset,
		GoFiles: dep.GoFiles, CompiledGoFiles: dep.GoFiles, Imports: dep.Imports, Types: s.universe[dep.PkgPath],
		Errors: slices.Clone(dep.Errors)}
	for _, f := range dep.GoFiles {
		file, err := parser.ParseFile(s.cfg.Fset, f, nil, parser.ParseComments|parser.AllErrors|parser.SkipObjectResolution)
		if err != nil {
			p.Errors = append(p.Errors, packages.Error{Msg: err.Error(), Kind: packages.ParseError})
		}
		if file != nil {
			p.Syntax = append(p.Syntax, file)
		}
	}
	if s.fromSource {
		s.check(p, dep)
	}
	return p
}

// applyConfigs loads the apply configuration packages of paths: their
// files, and with typed their types too (which must build here). A path
// loaded before is not loaded again, unless its types are wanted now.
func (s *packageSet) applyConfigs(paths []string, typed bool) (map[string]*packages.Package, error) {
	if s.prefetched != nil {
		<-s.prefetched
		for _, p := range s.early {
			if _, ok := s.acs[p.PkgPath]; !ok {
				s.acs[p.PkgPath], s.acTyped[p.PkgPath] = p, false
			}
		}
		s.prefetched, s.early = nil, nil
	}
	var missing []string
	for _, p := range paths {
		if _, ok := s.acs[p]; !ok || typed && !s.acTyped[p] {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		mode := packages.NeedName | packages.NeedFiles
		if typed {
			mode |= packages.NeedTypes
		}
		s.loads = append(s.loads, "applyconfigurations "+strings.Join(missing, " "))
		var pkgs []*packages.Package
		var err error
		if typed || s.choice == LoaderExport {
			pkgs, err = s.load(&packages.Config{Mode: mode, Dir: s.cfg.Dir, BuildFlags: s.cfg.BuildFlags}, missing...)
		} else {
			pkgs, err = s.listFiles(missing) // one go list, without go/packages' own queries
		}
		if err != nil {
			return nil, err
		}
		for _, p := range pkgs {
			s.acs[p.PkgPath], s.acTyped[p.PkgPath] = p, typed
		}
	}
	out := make(map[string]*packages.Package, len(paths))
	for _, p := range paths {
		if pkg, ok := s.acs[p]; ok {
			out[p] = pkg
		}
	}
	return out, nil
}

// check type-checks p's syntax against the types the first load checked
// from source, for the errors a root would report; the types it makes
// are dropped, p keeps the first load's. The first load checks only what
// declarations reach (parseListed): where p's bodies import a package it
// did not check, nothing can be judged, and no error is added.
func (s *packageSet) check(p, dep *packages.Package) {
	var errs []packages.Error
	complete := true
	conf := types.Config{
		FakeImportC: true,
		Sizes:       types.SizesFor("gc", goarch()),
		Importer: gosrc.ImporterFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			if imp, ok := dep.Imports[path]; ok {
				path = imp.PkgPath
			}
			if tp := s.universe[path]; tp != nil {
				return tp, nil
			}
			complete = false
			return nil, fmt.Errorf("package %s not found", path)
		}),
		Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				errs = append(errs, packages.Error{Pos: te.Fset.Position(te.Pos).String(), Msg: te.Msg, Kind: packages.TypeError})
			}
		},
	}
	conf.Check(p.PkgPath, s.cfg.Fset, p.Syntax, nil)
	if complete {
		p.Errors = append(p.Errors, errs...)
	}
}

// prefetchApplyConfigs lists, while the first load parses and checks,
// the packages of client-go's apply configurations of the listed packages
// of apimachinery's meta/v1 and k8s.io/api: the apply configurations a
// run most often looks up (applyConfigs), found without waiting for a go
// list of their own. A package listed and not asked for costs go list's
// reading of it, nothing else.
func (s *packageSet) prefetchApplyConfigs(list []*listed) {
	var paths []string
	for _, p := range list {
		if ac := clientGoApplyPkgOf(p.ImportPath); ac != "" {
			paths = append(paths, ac)
		}
	}
	if len(paths) == 0 {
		return
	}
	sort.Strings(paths)
	s.loads = append(s.loads, "applyconfigurations "+strings.Join(paths, " "))
	s.prefetched = make(chan struct{})
	go func() {
		defer close(s.prefetched)
		s.early, _ = s.listFiles(paths) // an error: applyConfigs lists them again, and says it
	}()
}

// listFiles is what packages.Load gives with NeedName and NeedFiles: the
// packages of paths, their files and go list's errors.
func (s *packageSet) listFiles(paths []string) ([]*packages.Package, error) {
	list, err := goList(s.cfg, false, paths)
	if err != nil {
		return nil, err
	}
	pkgs := make([]*packages.Package, 0, len(list))
	for _, l := range list {
		p := &packages.Package{ID: l.ImportPath, Name: l.Name, PkgPath: l.ImportPath}
		for _, f := range l.GoFiles {
			p.GoFiles = append(p.GoFiles, filepath.Join(l.Dir, f))
		}
		if l.Error != nil {
			p.Errors = append(p.Errors, packages.Error{Pos: l.Error.Pos, Msg: l.Error.Err, Kind: packages.ListError})
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}
