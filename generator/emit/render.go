package emit

import (
	"bytes"
	"fmt"
	"go/format"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/ssagen/ssagen/generator/model"
	"github.com/ssagen/ssagen/generator/schema"
	"github.com/ssagen/ssagen/templates"
)

// File is one rendered file, its path relative to the output tree root.
type File struct {
	Path    string // slash-separated
	Content []byte
}

// Render renders every file of the output tree in memory. header is the
// optional boilerplate (license) that goes above ssagen's own header.
func Render(u *model.Universe, header []byte) ([]File, error) {
	aliases := NewAliases(u, []string{managedfieldsPkg, u.OutputPkg + "/internal"})
	var files []File
	var errs []string
	add := func(rel string, f *jen.File) {
		content, err := finish(header, f)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", rel, err))
			return
		}
		files = append(files, File{Path: rel, Content: content})
	}
	for _, gv := range u.GroupVersions {
		names := fileNames(gv)
		for _, t := range gv.Types {
			if gv.External {
				break // their builders exist already
			}
			e := &typeFile{u: u, gv: gv, t: t, aliases: aliases}
			add(path.Join(gv.OutSubdir, names[t]), e.render())
		}
		if (u.Ensure || gv.External) && len(gv.Kinds()) > 0 {
			add(path.Join(gv.OutSubdir, "ensure", "ensure.go"), ensureFile(u, gv, aliases))
		}
	}
	yml, err := schema.YAML(u)
	if err != nil {
		return nil, err
	}
	add("internal/internal.go", internalFile(u, yml, aliases))
	add("utils.go", utilsFile(u, aliases))
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
	b.Write(templates.Header(header))
	b.Write(body.Bytes())
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%v\n%s", err, numbered(b.Bytes()))
	}
	return out, nil
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
	typed := u.SMDTyped
	if typed == "" {
		typed = smdTypedV6
	}
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
	f.Line()
	comment(f, "NewTypeConverter returns a type converter that knows the schema of every\ntype in this output tree.")
	scheme := jen.Id("scheme").Op("*").Qual("k8s.io/apimachinery/pkg/runtime", "Scheme")
	parser := jen.Qual(u.OutputPkg+"/internal", "Parser").Call()
	if u.SMDTyped == smdTypedV4 {
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
	f.Func().Id("NewTypeConverter").Params(scheme).Qual(managedfieldsPkg, "TypeConverter").Block(
		jen.Return(jen.Qual(managedfieldsPkg, "NewSchemeTypeConverter").Call(jen.Id("scheme"), parser)),
	)
	return f
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

// The structured-merge-diff typed packages of k8s.io before and since v0.34.
const (
	smdTypedV4 = "sigs.k8s.io/structured-merge-diff/v4/typed"
	smdTypedV6 = "sigs.k8s.io/structured-merge-diff/v6/typed"
)
