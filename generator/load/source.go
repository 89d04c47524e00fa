package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"

	"github.com/ssagen/ssagen/internal/gosrc"
)

// The first load type-checks the input packages from source, in full,
// and of their dependencies only what the inputs' declarations reach,
// without function bodies: one go list (no compile, no staleness check),
// the roots parsed, then wave by wave the dependencies whose declarations
// the last wave's name (an import only bodies use is dropped), each
// package checked once its imports are. It needs no build cache, so a
// fresh CI runner pays what a warm machine pays; go/packages over the
// compiler's export data (LoaderExport) would first compile every
// dependency there, and even warm its staleness check costs more than
// this whole load (docs/generator-benchmark.md).

// listed is what `go list -json` says of one package.
type listed struct {
	ImportPath string
	Name       string
	Dir        string
	GoFiles    []string
	CgoFiles   []string
	Imports    []string
	ImportMap  map[string]string
	Module     *packages.Module
	Standard   bool
	DepOnly    bool
	Error      *struct{ Pos, Err string }

	// generated marks the files of a root that say they are generated
	// ("// Code generated … DO NOT EDIT."), read as a dependency's are:
	// their bodies are not the API, and they compile as generated.
	generated []bool
}

// loadInput is the run's first load: the source loader, or load
// (packages.Load over export data) when choice is LoaderExport.
// fromSource says which it was.
//
// listed, if set, is handed what go list said before anything is parsed.
func loadInput(load packagesLoad, choice Loader, cfg *packages.Config, patterns []string, listed func([]*listed)) (pkgs []*packages.Package, fromSource bool, err error) {
	if choice != LoaderExport {
		list, err := goList(cfg, true, patterns)
		if err == nil {
			if listed != nil {
				listed(list)
			}
			return loadFromSource(cfg, list), true, nil
		}
	}
	pkgs, err = load(cfg, patterns...)
	return pkgs, false, err
}

// goList runs go list over the patterns and, with deps, their
// dependencies, without compiling anything, and returns the packages in
// dependency order (go list's own: every package after its imports).
// Without deps it lists the packages alone (-find): a package's imports
// are not resolved, which would read the whole graph below it (client-go's
// discovery client below its meta/v1 apply configurations): a sixth of a
// run on Gateway API's apis/v1, warm or cold, before -find.
func goList(cfg *packages.Config, deps bool, patterns []string) ([]*listed, error) {
	args := []string{"list", "-e", "-json=ImportPath,Name,Dir,GoFiles,CgoFiles,Imports,ImportMap,Module,Standard,DepOnly,Error"}
	if deps {
		args = append(args, "-deps")
	} else {
		args = append(args, "-find")
	}
	args = append(args, cfg.BuildFlags...)
	args = append(append(args, "--"), patterns...)
	cmd := exec.Command("go", args...)
	cmd.Dir = cfg.Dir
	cmd.Env = cfg.Env // nil: this process's environment, as packages.Load has it
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var out []*listed
	dec := json.NewDecoder(&stdout)
	for {
		p := &listed{}
		if err := dec.Decode(p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// loadFromSource builds what packages.Load returns for the listed roots
// (NeedName, NeedFiles, NeedSyntax, NeedTypes, NeedImports, NeedModule)
// by type-checking every package from source: the roots in full, their
// dependencies without function bodies.
func loadFromSource(cfg *packages.Config, list []*listed) []*packages.Package {
	fset := cfg.Fset
	if fset == nil {
		fset = token.NewFileSet()
	}
	cache := openDepCache(cfg.BuildFlags, list)
	checked := map[string]*types.Package{}
	had, _ := cache.read(fset, checked) // the dependencies a run with the same ones checked
	files, parseErrs, reached := parseListed(fset, list, had)
	errs := checkListed(fset, list, files, parseErrs, reached, checked)
	cache.write(fset, list, reached, checked, had)
	return linkListed(fset, list, files, checked, errs)
}

// parseListed parses the roots with their comments (markers), then, wave
// by wave, the dependencies their declarations reach: a dependency is
// parsed without function bodies and initializers, and its imports that
// only those used are dropped (pruneImports), so the packages only
// bodies import — most of the standard library, most of a client — are
// neither parsed nor checked. A dependency cached holds the imports its
// declarations use, and is not parsed. reached says which packages were
// reached.
func parseListed(fset *token.FileSet, list []*listed, cached map[string][]string) (files [][]*ast.File, parseErrs [][]error, reached []bool) {
	files = make([][]*ast.File, len(list))
	parseErrs = make([][]error, len(list))
	reached = make([]bool, len(list))
	index := make(map[string]int, len(list))
	var wave []int
	for i, p := range list {
		index[p.ImportPath] = i
		if !p.DepOnly {
			wave = append(wave, i)
			reached[i] = true
		}
	}
	for len(wave) > 0 {
		var parse []int
		for _, i := range wave {
			if imps, ok := cached[list[i].ImportPath]; ok && list[i].DepOnly {
				list[i].Imports = imps // checked by an earlier run: depCache has its types
			} else {
				parse = append(parse, i)
			}
		}
		parseWave(fset, list, parse, files, parseErrs)
		var next []int
		for _, i := range wave {
			if _, ok := cached[list[i].ImportPath]; list[i].DepOnly && !ok {
				list[i].Imports = pruneImports(files[i], list, index, list[i], nil)
			} else if !list[i].DepOnly && slices.Contains(list[i].generated, true) {
				list[i].Imports = pruneImports(files[i], list, index, list[i], list[i].generated)
			}
			for _, imp := range list[i].Imports {
				if j, ok := index[list[i].resolve(imp)]; ok && !reached[j] {
					reached[j] = true
					next = append(next, j)
				}
			}
		}
		wave = next
	}
	return files, parseErrs, reached
}

// parseWave parses the files of the packages of wave, in parallel.
func parseWave(fset *token.FileSet, list []*listed, wave []int, files [][]*ast.File, parseErrs [][]error) {
	type job struct {
		pkg  int
		file int
		path string
		mode parser.Mode
	}
	var jobs []job
	for _, i := range wave {
		p := list[i]
		// cgo files are type-checked with a fake "C" package; the
		// dependencies' declarations that use C are not looked at.
		p.GoFiles = append(p.GoFiles, p.CgoFiles...)
		files[i] = make([]*ast.File, len(p.GoFiles))
		parseErrs[i] = make([]error, len(p.GoFiles))
		p.generated = make([]bool, len(p.GoFiles))
		mode := parser.SkipObjectResolution
		if !p.DepOnly {
			mode |= parser.ParseComments | parser.AllErrors
		}
		for j, f := range p.GoFiles {
			jobs = append(jobs, job{i, j, p.Dir + string(os.PathSeparator) + f, mode})
		}
	}
	work := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				src, err := os.ReadFile(j.path)
				if err != nil {
					parseErrs[j.pkg][j.file] = err
					continue
				}
				if p := list[j.pkg]; !p.DepOnly && !generatedSource(src) {
					files[j.pkg][j.file], parseErrs[j.pkg][j.file] = parser.ParseFile(fset, j.path, src, j.mode)
					continue
				} else if !p.DepOnly {
					p.generated[j.file] = true
				}
				// A dependency, or a root's generated file: only its
				// declarations' types are wanted.
				f, err := parser.ParseFile(fset, j.path, blankBodies(src), j.mode)
				if f != nil {
					dropInitializers(f)
				}
				files[j.pkg][j.file], parseErrs[j.pkg][j.file] = f, err
			}
		}()
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
}

// generatedSource reports whether a file says it is generated, as
// ast.IsGenerated reads it: a line "// Code generated … DO NOT EDIT."
// before the package clause.
func generatedSource(src []byte) bool {
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if bytes.HasPrefix(line, []byte("package ")) {
			return false
		}
		if bytes.HasPrefix(line, []byte("// Code generated ")) && bytes.HasSuffix(line, []byte(" DO NOT EDIT.")) {
			return true
		}
	}
	return false
}

// pruneImports drops from a dependency's files (of a root's, those only
// marks) the imports nothing left in them names (what only function
// bodies and dropped initializers used), and returns the import paths
// that stay. Dot imports and "C" stay; blank imports go (their side
// effects do not type anything).
func pruneImports(files []*ast.File, list []*listed, index map[string]int, p *listed, only []bool) []string {
	kept := map[string]bool{}
	for j, f := range files {
		if f == nil {
			continue
		}
		if only != nil && !only[j] {
			for _, is := range f.Imports {
				path, _ := strconv.Unquote(is.Path.Value)
				kept[path] = true
			}
			continue
		}
		used := gosrc.Qualifiers(f)
		decls := f.Decls[:0]
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.IMPORT {
				decls = append(decls, d)
				continue
			}
			specs := gd.Specs[:0]
			for _, sp := range gd.Specs {
				is := sp.(*ast.ImportSpec)
				path, _ := strconv.Unquote(is.Path.Value)
				name := ""
				if is.Name != nil {
					name = is.Name.Name
				} else if j, ok := index[p.resolve(path)]; ok {
					name = list[j].Name
				}
				if path == "C" || name == "." || name != "_" && (name == "" || used[name]) {
					specs = append(specs, is)
					kept[path] = true
				}
			}
			if gd.Specs = specs; len(specs) > 0 {
				decls = append(decls, gd)
			}
		}
		f.Decls = decls
	}
	return sortedKeys(kept)
}

// checkListed type-checks each package reached once its imports are
// checked, in parallel, into checked (which holds what depCache read
// already): roots in full, dependencies without bodies and without their
// errors. It keeps the roots' syntax in files, drops the others'.
func checkListed(fset *token.FileSet, list []*listed, files [][]*ast.File, parseErrs [][]error, reached []bool, checked map[string]*types.Package) [][]packages.Error {
	errs := make([][]packages.Error, len(list))
	done := make([]chan struct{}, len(list))
	index := make(map[string]int, len(list))
	for i, p := range list {
		done[i] = make(chan struct{})
		index[p.ImportPath] = i
	}
	var mu sync.Mutex
	sizes := types.SizesFor("gc", goarch())
	check := func(i int) {
		defer close(done[i])
		p := list[i]
		syntax, pkgErrs := p.syntax(files[i], parseErrs[i])
		conf := p.checkConfig(sizes, &pkgErrs, func(path string) (*types.Package, bool) {
			mu.Lock()
			defer mu.Unlock()
			tp, ok := checked[path]
			return tp, ok
		})
		tp, _ := conf.Check(p.ImportPath, fset, syntax, nil)
		mu.Lock()
		checked[p.ImportPath] = tp
		errs[i] = pkgErrs
		if !p.DepOnly {
			files[i] = syntax
		} else {
			files[i] = nil // the dependencies' syntax is not kept
		}
		mu.Unlock()
	}
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var cw sync.WaitGroup
	read := make([]bool, len(list)) // read from depCache: checked holds them
	for i, p := range list {
		_, read[i] = checked[p.ImportPath]
	}
	for i := range list {
		if !reached[i] || read[i] && list[i].DepOnly {
			close(done[i])
			continue
		}
		cw.Add(1)
		go func() {
			defer cw.Done()
			// Wait for the imports before taking a worker's slot.
			for _, imp := range list[i].Imports {
				if j, ok := index[list[i].resolve(imp)]; ok && j != i {
					<-done[j]
				}
			}
			sem <- struct{}{}
			check(i)
			<-sem
		}()
	}
	cw.Wait()

	return errs
}

// checkConfig is the type checker's configuration for p: imports come
// from lookup, errors (a root's only) go to errs.
func (p *listed) checkConfig(sizes types.Sizes, errs *[]packages.Error, lookup func(path string) (*types.Package, bool)) types.Config {
	conf := types.Config{
		IgnoreFuncBodies: p.DepOnly,
		FakeImportC:      true,
		Sizes:            sizes,
		Importer: gosrc.ImporterFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			if tp, ok := lookup(p.resolve(path)); ok {
				return tp, nil
			}
			return nil, fmt.Errorf("package %s not found", path)
		}),
		Error: func(err error) {
			if p.DepOnly {
				return // it compiles; what go/types misses without bodies is no concern
			}
			if te, ok := err.(types.Error); ok {
				if te.Msg == "missing return" && p.isGenerated(te.Fset.Position(te.Pos).Filename) {
					return // a generated file's body, blanked
				}
				*errs = append(*errs, packages.Error{Pos: te.Fset.Position(te.Pos).String(), Msg: te.Msg, Kind: packages.TypeError})
			}
		},
	}
	return conf
}

// isGenerated reports whether file is one of p's generated files.
func (p *listed) isGenerated(file string) bool {
	for j, f := range p.GoFiles {
		if j < len(p.generated) && p.generated[j] && p.Dir+string(os.PathSeparator)+f == file {
			return true
		}
	}
	return false
}

// resolve is the package an import path of p names (go list's ImportMap:
// vendored packages).
func (p *listed) resolve(path string) string {
	if to, ok := p.ImportMap[path]; ok {
		return to
	}
	return path
}

// syntax is what parsing left of p's files, and p's errors so far: go
// list's and the parser's.
func (p *listed) syntax(files []*ast.File, parseErrs []error) ([]*ast.File, []packages.Error) {
	var pkgErrs []packages.Error
	if p.Error != nil {
		pkgErrs = append(pkgErrs, packages.Error{Pos: p.Error.Pos, Msg: p.Error.Err, Kind: packages.ListError})
	}
	var syntax []*ast.File
	for j, f := range files {
		if err := parseErrs[j]; err != nil {
			var list scanner.ErrorList
			if errors.As(err, &list) {
				for _, e := range list {
					pkgErrs = append(pkgErrs, packages.Error{Pos: e.Pos.String(), Msg: e.Msg, Kind: packages.ParseError})
				}
			} else {
				pkgErrs = append(pkgErrs, packages.Error{Msg: err.Error(), Kind: packages.ParseError})
			}
		}
		if f != nil {
			syntax = append(syntax, f)
		}
	}
	return syntax, pkgErrs
}

// linkListed builds what packages.Load returns: the roots, sorted, their
// imports linked.
func linkListed(fset *token.FileSet, list []*listed, files [][]*ast.File, checked map[string]*types.Package, errs [][]packages.Error) []*packages.Package {
	index := make(map[string]int, len(list))
	for i, p := range list {
		index[p.ImportPath] = i
	}
	pkgs := make([]*packages.Package, len(list))
	for i, p := range list {
		// Every package has its files and types (a dependency's checked
		// without bodies), as packageSet.with reads them; roots their
		// syntax.
		pkgs[i] = &packages.Package{ID: p.ImportPath, Name: p.Name, PkgPath: p.ImportPath, Module: p.Module, Fset: fset, Errors: errs[i],
			Types: checked[p.ImportPath]}
		for _, f := range p.GoFiles {
			pkgs[i].GoFiles = append(pkgs[i].GoFiles, p.Dir+string(os.PathSeparator)+f)
		}
		pkgs[i].CompiledGoFiles = pkgs[i].GoFiles
		if !p.DepOnly {
			pkgs[i].Syntax = files[i]
		}
	}
	var roots []*packages.Package
	for i, p := range list {
		pkgs[i].Imports = map[string]*packages.Package{}
		for _, imp := range p.Imports {
			if j, ok := index[p.resolve(imp)]; ok {
				pkgs[i].Imports[imp] = pkgs[j]
			}
		}
		if !p.DepOnly {
			roots = append(roots, pkgs[i])
		}
	}
	sort.Slice(roots, func(i, j int) bool { return roots[i].PkgPath < roots[j].PkgPath })
	return roots
}

// goarch is the architecture go list and the compiler use.
func goarch() string {
	if a := os.Getenv("GOARCH"); a != "" {
		return a
	}
	return runtime.GOARCH
}

// blankBodies returns src with the inside of every function body (and
// function literal) replaced by spaces, newlines kept: the parser then
// skips what the type checker would ignore anyway, and every position
// stays where it was. A body is a "{" after "func" at the same nesting of
// parentheses and brackets, not opening a struct or interface type. It
// reads the bytes itself (bodyScanner), as go/scanner would tokenize them
// but without making a token: it runs over every file of every
// dependency.
func blankBodies(src []byte) []byte {
	out := append([]byte(nil), src...)
	s := bodyScanner{src: src}
	var pending []int // depth of parentheses and brackets at each func whose body has not started
	depth := 0
	for {
		tok, off := s.next()
		switch tok {
		case bodyEOF:
			return out
		case bodyFunc:
			pending = append(pending, depth)
		case bodyOpen:
			depth++
		case bodyClose:
			depth--
			// A func type inside the parentheses just closed (a parameter
			// of type func(...)) has no body.
			for len(pending) > 0 && pending[len(pending)-1] > depth {
				pending = pending[:len(pending)-1]
			}
		case bodyLBrace:
			body := len(pending) > 0 && pending[len(pending)-1] == depth && s.before != bodyStruct && s.before != bodyInterface
			end := s.skipBraces()
			if end < 0 {
				return src // unbalanced: leave the file to the parser
			}
			if body {
				pending = pending[:len(pending)-1]
				for i := off + 1; i < end; i++ {
					if out[i] != '\n' {
						out[i] = ' '
					}
				}
			}
		case bodySemicolon:
			// A func declaration without a body (assembly), or a func type,
			// ends here.
			if n := len(pending); n > 0 && pending[n-1] == depth {
				pending = pending[:n-1]
			}
		}
	}
}

// The tokens blankBodies tells apart.
const (
	bodyOther = iota
	bodyEOF
	bodyFunc
	bodyStruct
	bodyInterface
	bodyOpen  // ( [
	bodyClose // ) ]
	bodyLBrace
	bodyRBrace
	bodySemicolon // ";" or a newline where Go inserts one
)

// bodyScanner tokenizes Go source as far as blankBodies needs: keywords
// func, struct and interface, brackets, braces, and semicolons, explicit
// or inserted at a newline after an identifier, a literal, one of break,
// continue, fallthrough, return, ++, --, ), ] or }. Strings, runes and
// comments are skipped whole.
type bodyScanner struct {
	src    []byte
	i      int
	prev   int  // the last token next returned
	before int  // the token before it
	semi   bool // a newline now ends a statement
}

// next returns the next token and its offset; s.before is then the
// token before it.
func (s *bodyScanner) next() (tok, off int) {
	tok, off = s.scan()
	s.before, s.prev = s.prev, tok
	return tok, off
}

func (s *bodyScanner) scan() (int, int) {
	src := s.src
	for s.i < len(src) {
		c, start := src[s.i], s.i
		switch {
		case c == '\n':
			s.i++
			if s.semi {
				s.semi = false
				return bodySemicolon, start
			}
		case c == ' ' || c == '\t' || c == '\r':
			s.i++
		case c == '/' && s.i+1 < len(src) && src[s.i+1] == '/':
			for s.i < len(src) && src[s.i] != '\n' {
				s.i++
			}
		case c == '/' && s.i+1 < len(src) && src[s.i+1] == '*':
			end := bytes.Index(src[s.i+2:], []byte("*/"))
			if end < 0 {
				s.i = len(src)
				return bodyEOF, start
			}
			comment := src[s.i : s.i+2+end+2]
			s.i += 2 + end + 2
			if s.semi && bytes.IndexByte(comment, '\n') >= 0 {
				s.semi = false
				return bodySemicolon, start
			}
		case c == '"' || c == '\'' || c == '`':
			s.skipQuoted(c)
			s.semi = true
			return bodyOther, start
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
			return s.word(), start
		case c >= '0' && c <= '9' || c == '.' && s.i+1 < len(src) && src[s.i+1] >= '0' && src[s.i+1] <= '9':
			s.skipNumber()
			s.semi = true
			return bodyOther, start
		default:
			return s.punct(c), start
		}
	}
	if s.semi {
		s.semi = false
		return bodySemicolon, len(src)
	}
	return bodyEOF, len(src)
}

// word scans an identifier or keyword.
func (s *bodyScanner) word() int {
	src, start := s.src, s.i
	for s.i < len(src) && (src[s.i] == '_' || src[s.i] >= 'a' && src[s.i] <= 'z' || src[s.i] >= 'A' && src[s.i] <= 'Z' || src[s.i] >= '0' && src[s.i] <= '9' || src[s.i] >= 0x80) {
		s.i++
	}
	word := src[start:s.i]
	s.semi = true
	switch string(word) {
	case "func":
		s.semi = false
		return bodyFunc
	case "struct":
		s.semi = false
		return bodyStruct
	case "interface":
		s.semi = false
		return bodyInterface
	case "break", "continue", "fallthrough", "return":
	default:
		if keyword(word) {
			s.semi = false
		}
	}
	return bodyOther
}

// punct scans an operator or punctuation c.
func (s *bodyScanner) punct(c byte) int {
	s.i++
	s.semi = false
	switch c {
	case '(', '[':
		return bodyOpen
	case ')', ']':
		s.semi = true
		return bodyClose
	case '{':
		return bodyLBrace
	case '}':
		s.semi = true
		return bodyRBrace
	case ';':
		return bodySemicolon
	case '+', '-':
		if s.i < len(s.src) && s.src[s.i] == c {
			s.i++
			s.semi = true
		}
	}
	return bodyOther
}

// skipQuoted skips a string, rune or raw string opened by q.
func (s *bodyScanner) skipQuoted(q byte) {
	src := s.src
	s.i++
	for s.i < len(src) {
		c := src[s.i]
		s.i++
		switch {
		case c == q:
			return
		case c == '\\' && q != '`':
			s.i++
		case c == '\n' && q != '`':
			return // unterminated: the parser says so
		}
	}
}

// skipNumber skips a number literal: digits, letters (bases, exponents,
// suffixes), dots, underscores, and a sign after an exponent.
func (s *bodyScanner) skipNumber() {
	src := s.src
	for s.i < len(src) {
		c := src[s.i]
		switch {
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.':
			s.i++
		case (c == '+' || c == '-') && s.i > 0 && strings.ContainsRune("eEpP", rune(src[s.i-1])) && !hexMantissa(src, s.i-1):
			s.i++
		default:
			return
		}
	}
}

// hexMantissa reports whether the 'e' or 'E' at i is a hex digit of a
// 0x literal (0x1e+2 is 0x1e plus 2), not an exponent.
func hexMantissa(src []byte, i int) bool {
	if src[i] == 'p' || src[i] == 'P' {
		return false
	}
	j := i
	for j > 0 && (src[j-1] >= '0' && src[j-1] <= '9' || src[j-1] >= 'a' && src[j-1] <= 'f' || src[j-1] >= 'A' && src[j-1] <= 'F' || src[j-1] == '_' || src[j-1] == '.') {
		j--
	}
	return j > 0 && (src[j-1] == 'x' || src[j-1] == 'X')
}

// skipBraces skips to the "}" closing the "{" just scanned and returns its
// offset, or -1.
func (s *bodyScanner) skipBraces() int {
	n := 1
	for {
		tok, off := s.scan()
		switch tok {
		case bodyEOF:
			return -1
		case bodyLBrace:
			n++
		case bodyRBrace:
			if n--; n == 0 {
				s.prev, s.semi = bodyRBrace, true
				return off
			}
		}
	}
}

// keyword reports Go's keywords after which no semicolon is inserted.
func keyword(w []byte) bool {
	switch string(w) {
	case "case", "chan", "const", "default", "defer", "else", "for", "go", "goto", "if", "import", "map", "package", "range", "select", "switch", "type", "var":
		return true
	}
	return false
}

// dropInitializers removes the values of a dependency's package-level
// variables whose type is written or can be read off a composite literal
// (tables of unicode, of x/net): checking them costs time and changes no
// type.
func dropInitializers(f *ast.File) {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, sp := range gd.Specs {
			vs := sp.(*ast.ValueSpec)
			if len(vs.Values) != len(vs.Names) {
				continue
			}
			if vs.Type == nil {
				if len(vs.Values) != 1 {
					continue
				}
				switch v := vs.Values[0].(type) {
				case *ast.CompositeLit:
					if v.Type == nil || isEllipsisArray(v.Type) {
						continue
					}
					vs.Type = v.Type
				case *ast.UnaryExpr:
					lit, ok := v.X.(*ast.CompositeLit)
					if v.Op != token.AND || !ok || lit.Type == nil || isEllipsisArray(lit.Type) {
						continue
					}
					vs.Type = &ast.StarExpr{Star: v.Pos(), X: lit.Type}
				default:
					continue
				}
			}
			vs.Values = nil
		}
	}
}

// isEllipsisArray: [...]T, whose length only its literal gives.
func isEllipsisArray(t ast.Expr) bool {
	at, ok := t.(*ast.ArrayType)
	if !ok || at.Len == nil {
		return false
	}
	_, ok = at.Len.(*ast.Ellipsis)
	return ok
}
