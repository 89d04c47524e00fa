package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/packages"

	"github.com/ssagen/ssagen/internal/gosrc"
)

// vetCheck decides which fixes of one package to apply: a fix is kept
// only if the package, with it and the fixes kept before it, still
// builds and passes go vet (test files included). The check runs the
// real `go vet` with the edited files as an overlay, so what it accepts
// is what the author's `go build` and `go vet` accept.
type vetCheck struct {
	pkg          *packages.Package
	tags         string
	skip         bool              // -fix.nocheck
	runTests     bool              // -fix.tests
	baseline     map[string]int    // go vet's complaints before any edit, by message
	failedBefore map[string]bool   // the tests that fail without the edits
	base         map[string][]byte // files earlier rounds changed, as they now read: edits apply to them
}

// source is a file as the fixes find it: changed by an earlier round, or
// on disk.
func (ch *vetCheck) source(name string) ([]byte, error) { return sourceOf(ch.base, name) }

// withBase is files over the earlier rounds' changes.
func (ch *vetCheck) withBase(files map[string][]byte) map[string][]byte {
	if len(ch.base) == 0 {
		return files
	}
	all := map[string][]byte{}
	for name, b := range ch.base {
		all[name] = b
	}
	for name, b := range files {
		all[name] = b
	}
	return all
}

// decide tries all fixes together (one go vet), and when that fails,
// each in turn on top of those kept (the last not again if it is all).
func (ch *vetCheck) decide(cands []*candidate) outcome {
	out := outcome{declined: map[*finding]string{}}
	allWhy := ""
	if files, err := ch.apply(cands); err == nil {
		if !ch.skip {
			allWhy = ch.passes(files)
		}
		if allWhy == "" {
			out.accepted, out.files = cands, files
			return out
		}
	}
	var kept []*candidate
	for i, c := range cands {
		if allWhy != "" && i == len(cands)-1 && len(kept) == i {
			out.declined[c.f] = allWhy
			continue
		}
		try := append(append([]*candidate(nil), kept...), c)
		files, err := ch.apply(try)
		if err != nil {
			out.declined[c.f] = err.Error()
			continue
		}
		if why := ch.passes(files); why != "" && !ch.skip {
			out.declined[c.f] = why
			continue
		}
		kept = try
		out.files = files
	}
	out.accepted = kept
	return out
}

// apply returns the new contents of the files cands edit: edits in
// order, identical ones once, imports no longer used removed, gofmt-ed.
// Overlapping edits, or a result that does not parse, are an error.
func (ch *vetCheck) apply(cands []*candidate) (map[string][]byte, error) {
	byFile := map[string][]edit{}
	for _, c := range cands {
		for _, e := range c.edits {
			byFile[e.file] = append(byFile[e.file], e)
		}
	}
	out := map[string][]byte{}
	for name, edits := range byFile {
		src, err := ch.source(name)
		if err != nil {
			return nil, err
		}
		sort.SliceStable(edits, func(i, j int) bool {
			if edits[i].start != edits[j].start {
				return edits[i].start < edits[j].start
			}
			return edits[i].end < edits[j].end
		})
		var b bytes.Buffer
		at := 0
		var prev *edit
		for i := range edits {
			e := &edits[i]
			if prev != nil && e.start == prev.start && e.end == prev.end && bytes.Equal(e.text, prev.text) {
				continue // the same edit from two fixes (an import both add)
			}
			if e.start < at || e.end > len(src) || e.start > e.end {
				return nil, fmt.Errorf("its edits overlap another fix's in %s", filepath.Base(name))
			}
			b.Write(src[at:e.start])
			b.Write(e.text)
			at = e.end
			prev = e
		}
		b.Write(src[at:])
		clean, err := ch.tidy(name, b.Bytes())
		if err != nil {
			return nil, fmt.Errorf("the rewritten %s does not parse: %v", filepath.Base(name), err)
		}
		out[name] = clean
	}
	return out, nil
}

// tidy removes the imports the edits left unused, and imports written
// twice, and formats the file.
func (ch *vetCheck) tidy(name string, src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	used := gosrc.Qualifiers(f)
	seen := map[string]bool{}
	for _, imp := range append([]*ast.ImportSpec(nil), f.Imports...) {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := ""
		if imp.Name != nil {
			name = imp.Name.Name
		}
		key := name + " " + path
		if seen[key] {
			astutil.DeleteNamedImport(fset, f, name, path)
			// DeleteNamedImport removed every copy: put one back.
			astutil.AddNamedImport(fset, f, name, path)
			continue
		}
		seen[key] = true
		if name == "_" || name == "." {
			continue
		}
		local := name
		if local == "" {
			local = ch.importName(path)
		}
		if local == "" || used[local] {
			continue
		}
		astutil.DeleteNamedImport(fset, f, name, path)
	}
	var b bytes.Buffer
	if err := format.Node(&b, fset, f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// importName is the name an unnamed import of path declares, from the
// package's type information ("" when unknown: then it is kept).
func (ch *vetCheck) importName(path string) string {
	if imp, ok := ch.pkg.Imports[path]; ok && imp.Types != nil {
		return imp.Types.Name()
	}
	if imp, ok := ch.pkg.Imports[path]; ok {
		return imp.Name
	}
	// A test file's import: among the package's dependencies, or else
	// named, as a rule, by its path's last element.
	name := ""
	packages.Visit([]*packages.Package{ch.pkg}, func(p *packages.Package) bool {
		if p.PkgPath == path && p.Types != nil {
			name = p.Types.Name()
		}
		return name == ""
	}, nil)
	if name != "" {
		return name
	}
	last := path[strings.LastIndex(path, "/")+1:]
	if token.IsIdentifier(last) {
		return last
	}
	return ""
}

var vetLine = regexp.MustCompile(`^(?:vet: )?(\S+?\.go):(\d+):(\d+): (.*)$`)

// passes runs go vet on the package with files as an overlay, and says
// what it finds that it did not find before the edits ("" when nothing).
func (ch *vetCheck) passes(files map[string][]byte) string {
	problems, err := ch.vet(files)
	if err != nil {
		return "the rewritten package could not be checked: " + err.Error()
	}
	if len(problems) == 0 {
		return ch.testsPass(files)
	}
	if ch.baseline == nil {
		base, _ := ch.vet(nil)
		ch.baseline = map[string]int{}
		for _, p := range base {
			ch.baseline[p.msg]++
		}
	}
	count := map[string]int{}
	for _, p := range problems {
		count[p.msg]++
		if count[p.msg] > ch.baseline[p.msg] {
			return fmt.Sprintf("the rewritten package would fail go vet: %s:%d: %s", filepath.Base(p.file), p.line, p.msg)
		}
	}
	return ch.testsPass(files)
}

// testsPass runs the package's tests with the edits (with -fix.tests)
// and says which test that passed before fails now ("" when none).
func (ch *vetCheck) testsPass(files map[string][]byte) string {
	if !ch.runTests {
		return ""
	}
	failed, err := ch.tests(files)
	if err != nil {
		return "the package's tests could not be run with the rewrite: " + err.Error()
	}
	if len(failed) == 0 {
		return ""
	}
	if ch.failedBefore == nil {
		ch.failedBefore = map[string]bool{}
		before, _ := ch.tests(nil)
		for _, t := range before {
			ch.failedBefore[t] = true
		}
	}
	var now []string
	for _, t := range failed {
		if !ch.failedBefore[t] && !ch.failedBefore[strings.SplitN(t, "/", 2)[0]] {
			now = append(now, t)
		}
	}
	if len(now) == 0 {
		return ""
	}
	// The subtests say more than their parent.
	var leaves []string
	for _, t := range now {
		if !slices.ContainsFunc(now, func(o string) bool { return strings.HasPrefix(o, t+"/") }) {
			leaves = append(leaves, t)
		}
	}
	now = leaves
	if ch.injects(now) {
		return fmt.Sprintf("the package's test %s fails with the rewrite (a test that injects errors into Create or Update through the fake client's interceptor in a way -fix does not move to the apply's Patch — Patch already replaced, Create and Update replaced differently, or the injection made outside the test: move it by hand, then run -fix again; docs/vet.md, \"Tests that inject errors\")", strings.Join(now, ", "))
	}
	return fmt.Sprintf("the package's test %s fails with the rewrite: it sees what the apply does otherwise than the Update — an apply removes only the fields its manager owns, and the fake client records no owner for what the test stored, so a field the code clears by leaving it out stays there (on an API server the helpers migrate the controller's own Update-written fields and it goes): store the test's object through the helper first, or keep the Update (docs/vet.md, \"Tests that fail\")", strings.Join(now, ", "))
}

// injects reports whether every failing test replaces the fake client's
// writes (controller-runtime's interceptor) in its own body.
func (ch *vetCheck) injects(failing []string) bool {
	names := map[string]bool{}
	for _, t := range failing {
		names[strings.SplitN(t, "/", 2)[0]] = true
	}
	injecting := map[string]bool{}
	for _, name := range testFiles(ch.pkg) {
		src, err := ch.source(name)
		if err != nil {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || !names[fd.Name.Name] {
				continue
			}
			body := src[int(fd.Body.Pos()-f.FileStart):int(fd.Body.End()-f.FileStart)]
			if bytes.Contains(body, []byte("interceptor.Funcs")) || bytes.Contains(body, []byte("WithInterceptorFuncs(")) {
				injecting[fd.Name.Name] = true
			}
		}
	}
	return len(names) > 0 && len(injecting) == len(names)
}

// testFiles are the package's _test.go files, from its folder, in name
// order.
func testFiles(pkg *packages.Package) []string {
	if len(pkg.GoFiles) == 0 {
		return nil
	}
	names, _ := filepath.Glob(filepath.Join(filepath.Dir(pkg.GoFiles[0]), "*_test.go"))
	return names
}

// sourceOf is a file as changed holds it, else as on disk.
func sourceOf(changed map[string][]byte, name string) ([]byte, error) {
	if b, ok := changed[name]; ok {
		return b, nil
	}
	return os.ReadFile(name)
}

type problem struct {
	file string
	line int
	msg  string
}

// vet runs go vet on the package, with files in place of those on disk.
func (ch *vetCheck) vet(files map[string][]byte) ([]problem, error) {
	out, err := ch.goRun("vet", files)
	if err != nil || out == "" {
		return nil, err
	}
	var ps []problem
	for _, line := range strings.Split(out, "\n") {
		if m := vetLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			n, _ := strconv.Atoi(m[2])
			ps = append(ps, problem{file: m[1], line: n, msg: m[4]})
		}
	}
	if len(ps) == 0 {
		return []problem{{msg: strings.TrimSpace(out)}}, nil
	}
	return ps, nil
}

var failLine = regexp.MustCompile(`^\s*--- FAIL: (\S+)`)

// tests runs the package's tests with files in place of those on disk,
// and returns the names of those that fail.
func (ch *vetCheck) tests(files map[string][]byte) ([]string, error) {
	out, err := ch.goRun("test", files)
	if err != nil || out == "" {
		return nil, err
	}
	var failed []string
	for _, line := range strings.Split(out, "\n") {
		if m := failLine.FindStringSubmatch(line); m != nil {
			failed = append(failed, m[1])
		}
	}
	if len(failed) == 0 {
		failed = append(failed, "(the test binary: "+firstLine(out)+")")
	}
	return failed, nil
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return strings.TrimSpace(s)
}

// goRun runs go <verb> on the package with files as an overlay; its
// output when it fails, "" when it passes.
func (ch *vetCheck) goRun(verb string, files map[string][]byte) (string, error) {
	dir := ""
	if len(ch.pkg.GoFiles) > 0 {
		dir = filepath.Dir(ch.pkg.GoFiles[0])
	}
	args := []string{verb}
	if verb == "test" {
		args = append(args, "-count=1")
	}
	if ch.tags != "" {
		args = append(args, "-tags="+ch.tags)
	}
	if files != nil {
		files = ch.withBase(files)
	}
	if len(files) > 0 {
		tmp, err := os.MkdirTemp("", "ssagen-vet-fix")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(tmp)
		replace := map[string]string{}
		i := 0
		for name, b := range files {
			p := filepath.Join(tmp, fmt.Sprintf("%d_%s", i, filepath.Base(name)))
			i++
			if err := os.WriteFile(p, b, 0o644); err != nil {
				return "", err
			}
			replace[name] = p
		}
		js, _ := json.Marshal(map[string]any{"Replace": replace})
		overlay := filepath.Join(tmp, "overlay.json")
		if err := os.WriteFile(overlay, js, 0o644); err != nil {
			return "", err
		}
		args = append(args, "-overlay="+overlay)
	}
	args = append(args, ".")
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err == nil {
		return "", nil
	}
	if _, ok := err.(*exec.ExitError); !ok {
		return "", err
	}
	if out.Len() == 0 {
		return "go " + verb + " failed", nil
	}
	return out.String(), nil
}
