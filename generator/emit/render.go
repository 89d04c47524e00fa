package emit

import (
	"bytes"
	"fmt"
	"go/format"
	"path"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dave/jennifer/jen"

	"github.com/ssagen/ssagen/generator/model"
	"github.com/ssagen/ssagen/generator/output"
	"github.com/ssagen/ssagen/generator/schema"
	"github.com/ssagen/ssagen/templates"
)

// Render renders every file of the output tree in memory. header is the
// optional boilerplate (license) that goes above ssagen's own header.
func Render(u *model.Universe, header []byte) ([]output.File, error) {
	extra := []string{managedfieldsPkg, u.OutputPkg + "/internal"}
	if len(unreflectableKinds(u)) > 0 {
		extra = append(extra, runtimePkg, unstructuredPkg, u.SMDTyped(), "encoding/json", "bytes", "fmt", "strings")
	}
	aliases := NewAliases(u, extra)
	conv := newConversions(u, aliases)
	pr := newPrinter(header)
	add := pr.add
	for _, gv := range u.GroupVersions {
		names := fileNames(gv)
		for _, t := range gv.Types {
			if gv.External {
				break // their builders exist already
			}
			e := &typeFile{u: u, gv: gv, t: t, aliases: aliases}
			add(path.Join(gv.OutSubdir, names[t]), e.render())
		}
		if !gv.External && len(gv.Types) > 0 {
			add(path.Join(gv.OutSubdir, "zz_generated.convert.go"), convertFile(conv, gv))
		}
		if (u.Ensure || gv.External) && len(gv.Kinds()) > 0 {
			add(path.Join(gv.OutSubdir, "ensure", "ensure.go"), ensureFile(u, gv, aliases))
		}
	}
	yml, err := schema.YAML(u)
	if err != nil {
		pr.wait()
		return nil, err
	}
	add("internal/internal.go", internalFile(u, yml, aliases))
	if f := externalConvertFile(conv); f != nil {
		add("internal/convert.go", f)
	}
	add("utils.go", utilsFile(u, aliases))
	files, errs := pr.wait()
	if len(errs) > 0 {
		return nil, fmt.Errorf("rendering generated code failed (a bug in ssagen):\n%s", strings.Join(errs, "\n"))
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// finish renders f below the headers and formats the result in-process.
func finish(header []byte, f *jen.File) ([]byte, error) {
	var body bytes.Buffer
	if err := f.Render(&body); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	hdr := templates.Header(header)
	b.Write(hdr)
	b.Write(body.Bytes())
	if canonical(hdr) {
		return b.Bytes(), nil // jennifer formatted the body; the header is gofmt's already
	}
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%v\n%s", err, numbered(b.Bytes()))
	}
	return out, nil
}

// printer prints and formats each file on its own, in parallel with the
// building of the next: a file's tree is dropped once it is printed, so
// the trees of a large run are never all held at once.
type printer struct {
	header []byte
	mu     sync.Mutex
	files  []output.File
	failed []string
	wg     sync.WaitGroup
	work   chan printJob
}

type printJob struct {
	i   int
	rel string
	f   *jen.File
}

func newPrinter(header []byte) *printer {
	pr := &printer{header: header, work: make(chan printJob, runtime.GOMAXPROCS(0))}
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		pr.wg.Add(1)
		go func() {
			defer pr.wg.Done()
			for j := range pr.work {
				content, err := finish(pr.header, j.f)
				pr.mu.Lock()
				if err != nil {
					pr.failed[j.i] = fmt.Sprintf("%s: %v", j.rel, err)
				}
				pr.files[j.i] = output.File{Path: j.rel, Content: content}
				pr.mu.Unlock()
			}
		}()
	}
	return pr
}

// add queues the file rel, built as f.
func (pr *printer) add(rel string, f *jen.File) {
	pr.mu.Lock()
	i := len(pr.files)
	pr.files, pr.failed = append(pr.files, output.File{}), append(pr.failed, "")
	pr.mu.Unlock()
	pr.work <- printJob{i, rel, f}
}

// wait returns the files printed, in the order added, and what failed.
func (pr *printer) wait() ([]output.File, []string) {
	close(pr.work)
	pr.wg.Wait()
	var errs []string
	for _, e := range pr.failed {
		if e != "" {
			errs = append(errs, e)
		}
	}
	return pr.files, errs
}

// canonicalHeaders remembers, per header, whether gofmt leaves it as it
// is above a package clause: then a body jennifer formatted needs no
// second pass of go/format (an eighth of a run's time).
var canonicalHeaders sync.Map

func canonical(hdr []byte) bool {
	if v, ok := canonicalHeaders.Load(string(hdr)); ok {
		return v.(bool)
	}
	src := append(bytes.Clone(hdr), "package p\n"...)
	out, err := format.Source(src)
	ok := err == nil && bytes.Equal(out, src)
	canonicalHeaders.Store(string(hdr), ok)
	return ok
}

// numbered shows source with line numbers, for errors in generated code.
func numbered(src []byte) string {
	var b strings.Builder
	for i, line := range strings.Split(string(src), "\n") {
		fmt.Fprintf(&b, "%5d  %s\n", i+1, line)
	}
	return b.String()
}

func internalFile(u *model.Universe, yml string, aliases Aliases) *jen.File {
	typed := u.SMDTyped()
	f := newFile(u.OutputPkg+"/internal", aliases)
	comment(f, "Parser returns the structured-merge-diff parser of the schema of every type\nin this output tree, shared by all its group versions.")
	f.Func().Id("Parser").Params().Op("*").Qual(typed, "Parser").Block(
		jen.Id("parserOnce").Dot("Do").Call(jen.Func().Params().Block(
			jen.Var().Id("err").Error(),
			jen.List(jen.Id("parser"), jen.Id("err")).Op("=").Qual(typed, "NewParser").Call(jen.Id("schemaYAML")),
			jen.If(jen.Id("err").Op("!=").Nil()).Block(
				jen.Panic(jen.Qual("fmt", "Sprintf").Call(jen.Lit("Failed to parse schema: %v"), jen.Id("err"))),
			),
		)),
		jen.Return(jen.Id("parser")),
	)
	f.Line()
	f.Var().Id("parserOnce").Qual("sync", "Once")
	f.Var().Id("parser").Op("*").Qual(typed, "Parser")
	f.Var().Id("schemaYAML").Op("=").Qual(typed, "YAMLObject").Call(jen.Op("`" + yml + "`"))
	if len(unreflectableKinds(u)) > 0 {
		unstructuredFuncs(f)
	}
	return f
}

func utilsFile(u *model.Universe, aliases Aliases) *jen.File {
	const schemaPkg = "k8s.io/apimachinery/pkg/runtime/schema"
	f := newFile(u.OutputPkg, aliases)
	var cases []jen.Code
	for _, gv := range u.GroupVersions {
		kinds := gv.Kinds()
		if len(kinds) == 0 || gv.External {
			continue
		}
		cases = append(cases, jen.Comment(fmt.Sprintf("Group=%s, Version=%s", nonEmpty(gv.Group), gv.Version)))
		for _, k := range kinds {
			cases = append(cases, jen.Case(jen.Qual(schemaPkg, "GroupVersionKind").Values(jen.Dict{
				jen.Id("Group"):   jen.Lit(gv.Group),
				jen.Id("Version"): jen.Lit(gv.Version),
				jen.Id("Kind"):    jen.Lit(k.Name.Name),
			})).Block(jen.Return(jen.Op("&").Qual(k.ApplyConfig.Pkg, k.ApplyConfig.Name).Values())))
		}
	}
	comment(f, "ForKind returns an apply configuration type for the given GroupVersionKind, or nil if no\napply configuration type exists for the given GroupVersionKind.")
	f.Func().Id("ForKind").Params(jen.Id("kind").Qual(schemaPkg, "GroupVersionKind")).Interface().Block(
		jen.Switch(jen.Id("kind")).Block(cases...),
		jen.Return(jen.Nil()),
	)
	if u.NoTypeConverter {
		return f
	}
	f.Line()
	comment(f, "NewTypeConverter returns a type converter that knows the schema of every\ntype in this output tree.")
	scheme := jen.Id("scheme").Op("*").Qual("k8s.io/apimachinery/pkg/runtime", "Scheme")
	parser := jen.Qual(u.OutputPkg+"/internal", "Parser").Call()
	if u.SMDv4 {
		// Before k8s.io v0.34 managedfields had no scheme type converter;
		// applyconfiguration-gen used client-go's testing one.
		const testingPkg = "k8s.io/client-go/testing"
		f.Func().Id("NewTypeConverter").Params(scheme).Op("*").Qual(testingPkg, "TypeConverter").Block(
			jen.Return(jen.Op("&").Qual(testingPkg, "TypeConverter").Values(jen.Dict{
				jen.Id("Scheme"): jen.Id("scheme"), jen.Id("TypeResolver"): parser,
			})),
		)
		return f
	}
	unreflectable := unreflectableKinds(u)
	converter := jen.Qual(managedfieldsPkg, "NewSchemeTypeConverter").Call(jen.Id("scheme"), parser)
	if len(unreflectable) == 0 {
		f.Func().Id("NewTypeConverter").Params(scheme).Qual(managedfieldsPkg, "TypeConverter").Block(jen.Return(converter))
		return f
	}
	f.Func().Id("NewTypeConverter").Params(scheme).Qual(managedfieldsPkg, "TypeConverter").Block(
		jen.Return(jen.Id("typeConverter").Values(converter)),
	)
	f.Line()
	comment(f, "typeConverter reads the kinds holding uint64 values, which structured-merge-diff's\nreflection cannot read, through their JSON (internal.Unstructured).")
	f.Type().Id("typeConverter").Struct(jen.Qual(managedfieldsPkg, "TypeConverter"))
	f.Line()
	var kinds []jen.Code
	for _, k := range unreflectable {
		kinds = append(kinds, jen.Op("*").Qual(k.Name.Pkg, k.Name.Name))
	}
	f.Func().Params(jen.Id("c").Id("typeConverter")).Id("ObjectToTyped").
		Params(jen.Id("obj").Qual(runtimePkg, "Object"), jen.Id("opts").Op("...").Qual(u.SMDTyped(), "ValidationOptions")).
		Params(jen.Op("*").Qual(u.SMDTyped(), "TypedValue"), jen.Error()).Block(
		jen.Switch(jen.Id("obj").Assert(jen.Type())).Block(
			jen.Case(kinds...).Block(
				jen.List(jen.Id("u"), jen.Id("err")).Op(":=").Qual(u.OutputPkg+"/internal", "Unstructured").Call(jen.Id("obj")),
				jen.If(jen.Id("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Id("err"))),
				jen.Id("obj").Op("=").Id("u"),
			),
		),
		jen.Return(jen.Id("c").Dot("TypeConverter").Dot("ObjectToTyped").Call(jen.Id("obj"), jen.Id("opts").Op("..."))),
	)
	return f
}

// unstructuredFuncs declares internal.Unstructured, which reads an object
// through its JSON for the kinds whose uint64 values structured-merge-diff's
// reflection cannot read, and the number conversion it needs.
func unstructuredFuncs(f *jen.File) {
	const jsonPkg = "encoding/json"
	errNil := func(ret ...jen.Code) jen.Code {
		return jen.If(jen.Id("err").Op("!=").Nil()).Block(jen.Return(ret...))
	}
	f.Line()
	comment(f, `Unstructured reads obj through its JSON, as the API server reads it, for
the kinds whose uint64 values structured-merge-diff's reflection cannot
read; an integer past int64, which no API object can hold, is an error
naming its field. (runtime's DefaultUnstructuredConverter would leave a
uint64 field a uint64.)`)
	f.Func().Id("Unstructured").Params(jen.Id("obj").Qual(runtimePkg, "Object")).
		Params(jen.Op("*").Qual(unstructuredPkg, "Unstructured"), jen.Error()).Block(
		jen.List(jen.Id("data"), jen.Id("err")).Op(":=").Qual(jsonPkg, "Marshal").Call(jen.Id("obj")),
		errNil(jen.Nil(), jen.Id("err")),
		jen.Id("d").Op(":=").Qual(jsonPkg, "NewDecoder").Call(jen.Qual("bytes", "NewReader").Call(jen.Id("data"))),
		jen.Id("d").Dot("UseNumber").Call(),
		jen.Var().Id("m").Map(jen.String()).Interface(),
		jen.If(jen.Id("err").Op(":=").Id("d").Dot("Decode").Call(jen.Op("&").Id("m")), jen.Id("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Id("err"))),
		jen.If(jen.Id("err").Op(":=").Id("numbers").Call(jen.Id("m"), jen.Lit("")), jen.Id("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Id("err"))),
		jen.Return(jen.Op("&").Qual(unstructuredPkg, "Unstructured").Values(jen.Dict{jen.Id("Object"): jen.Id("m")}), jen.Nil()),
	)
	f.Line()
	comment(f, "numbers turns the JSON numbers under v into int64, or float64 where they\nare not integers, in place.")
	convert := func(target jen.Code, path jen.Code) []jen.Code {
		return []jen.Code{
			jen.List(jen.Id("n"), jen.Id("err")).Op(":=").Id("number").Call(jen.Id("e"), path),
			errNil(jen.Id("err")),
			jen.Add(target).Op("=").Id("n"),
		}
	}
	f.Func().Id("numbers").Params(jen.Id("v").Interface(), jen.Id("path").String()).Error().Block(
		jen.Switch(jen.Id("v").Op(":=").Id("v").Assert(jen.Type())).Block(
			jen.Case(jen.Map(jen.String()).Interface()).Block(
				jen.For(jen.List(jen.Id("k"), jen.Id("e")).Op(":=").Range().Id("v")).Block(
					convert(jen.Id("v").Index(jen.Id("k")), jen.Id("path").Op("+").Lit(".").Op("+").Id("k"))...),
			),
			jen.Case(jen.Index().Interface()).Block(
				jen.For(jen.List(jen.Id("i"), jen.Id("e")).Op(":=").Range().Id("v")).Block(
					convert(jen.Id("v").Index(jen.Id("i")), jen.Id("path").Op("+").Qual("fmt", "Sprintf").Call(jen.Lit("[%d]"), jen.Id("i")))...),
			),
		),
		jen.Return(jen.Nil()),
	)
	f.Line()
	f.Func().Id("number").Params(jen.Id("v").Interface(), jen.Id("path").String()).Params(jen.Interface(), jen.Error()).Block(
		jen.List(jen.Id("n"), jen.Id("ok")).Op(":=").Id("v").Assert(jen.Qual(jsonPkg, "Number")),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Id("v"), jen.Id("numbers").Call(jen.Id("v"), jen.Id("path")))),
		jen.If(jen.List(jen.Id("i"), jen.Id("err")).Op(":=").Id("n").Dot("Int64").Call(), jen.Id("err").Op("==").Nil()).Block(jen.Return(jen.Id("i"), jen.Nil())),
		jen.If(jen.Op("!").Qual("strings", "ContainsAny").Call(jen.Id("n").Dot("String").Call(), jen.Lit(".eE"))).Block(
			jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("%s is %s, past the largest integer a Kubernetes object can hold"), jen.Id("path"), jen.Id("n")))),
		jen.Return(jen.Id("n").Dot("Float64").Call()),
	)
}

// unreflectableKinds are the generated kinds whose Extract and type
// converter read objects through their JSON (Root.Unreflectable).
func unreflectableKinds(u *model.Universe) []*model.Type {
	var out []*model.Type
	for _, gv := range u.GroupVersions {
		for _, k := range gv.Kinds() {
			if len(k.Root.Unreflectable) > 0 && !gv.External {
				out = append(out, k)
			}
		}
	}
	return out
}

func nonEmpty(g string) string {
	if g == "" {
		return "core"
	}
	return g
}

// fileNames names each type's file: its lower-cased name, as
// applyconfiguration-gen does, unless that is taken (types Internal and
// internal) or would make the go tool treat the file specially
// (widget_test.go, widget_linux.go): then a suffix.
func fileNames(gv *model.GroupVersion) map[*model.Type]string {
	out := map[*model.Type]string{}
	used := map[string]bool{}
	for _, t := range gv.Types { // sorted by name: stable
		base := strings.ToLower(t.Name.Name)
		name := base
		if special(name) {
			name += "_ac"
		}
		for i := 2; used[name]; i++ {
			name = base + "_" + strconv.Itoa(i)
			if special(name) {
				name += "_ac"
			}
		}
		used[name] = true
		out[t] = name + ".go"
	}
	return out
}

// special reports whether a file named name+".go" would be a test file or
// carry an implicit build constraint.
func special(name string) bool {
	i := strings.LastIndex(name, "_")
	if i < 0 {
		return false
	}
	suffix := name[i+1:]
	return suffix == "test" || knownOS[suffix] || knownArch[suffix]
}

var knownOS = map[string]bool{"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true, "hurd": true, "illumos": true,
	"ios": true, "js": true, "linux": true, "nacl": true, "netbsd": true, "openbsd": true, "plan9": true, "solaris": true, "wasip1": true, "windows": true, "zos": true}

var knownArch = map[string]bool{"386": true, "amd64": true, "amd64p32": true, "arm": true, "armbe": true, "arm64": true, "arm64be": true, "loong64": true,
	"mips": true, "mipsle": true, "mips64": true, "mips64le": true, "mips64p32": true, "mips64p32le": true, "ppc": true, "ppc64": true, "ppc64le": true,
	"riscv": true, "riscv64": true, "s390": true, "s390x": true, "sparc": true, "sparc64": true, "wasm": true}
