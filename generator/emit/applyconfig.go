// Package emit renders the model as Go source: apply configurations per
// group version, the shared internal schema package and utils.go.
//
// Emitters only read the model (package model) and the schema derived from
// it; they never look at go/types or comments. Go code is built with
// jennifer, one helper per rule, and returned in memory: writing is the
// output package's job.
//
// This package must not import go/packages or touch the file system.
package emit

import (
	"fmt"
	"go/token"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/ssagen/ssagen/generator/model"
)

const (
	managedfieldsPkg = "k8s.io/apimachinery/pkg/util/managedfields"
	runtimePkg       = "k8s.io/apimachinery/pkg/runtime"
	unstructuredPkg  = "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// typeFile renders the apply configuration of one struct type.
type typeFile struct {
	u       *model.Universe
	gv      *model.GroupVersion
	t       *model.Type
	aliases Aliases
	f       *jen.File
	// setters and embeds of t (setters), computed once for the With
	// functions and the getters.
	setters []setter
	embeds  []*model.Type
}

func (e *typeFile) render() *jen.File {
	e.f = newFile(e.gv.OutPkgPath, e.aliases)
	t := e.t
	ac := t.ApplyConfig.Name
	comment(e.f, fmt.Sprintf("%s represents a declarative configuration of the %s type for use\nwith apply.", ac, t.Name.Name))
	if len(t.Doc) > 0 {
		comment(e.f, "")
		comment(e.f, strings.Join(t.Doc, "\n"))
	}
	e.f.Type().Id(ac).Struct(e.structFields()...)

	e.constructor()
	if t.Root != nil {
		e.extract()
	}
	if t.Root != nil || t.EmbedsTypeMeta() {
		e.f.Line()
		e.f.Func().Params(jen.Id("b").Id(ac)).Id("IsApplyConfiguration").Params().Block()
	}
	e.setters, e.embeds = setters(t)
	e.withFuncs()
	e.getters()
	return e.f
}

func (e *typeFile) structFields() []jen.Code {
	var out []jen.Code
	for _, f := range e.t.Fields {
		if f.Hidden {
			continue
		}
		for _, line := range f.Doc {
			out = append(out, jen.Comment(line))
		}
		tag := jsonTag(f, e.u.InlineTag)
		ref := model.ApplyRef(f.Type)
		switch {
		case f.Embedded && f.Inline && f.Type.Kind == model.RefPointer:
			// A pointer stays a pointer: the embed may be cyclic (A inlines
			// B, B inlines *A), and a nil one writes nothing.
			out = append(out, jen.Op("*").Add(typeCode(ref)).Tag(map[string]string{"json": tag}))
		case f.Embedded && f.Inline:
			out = append(out, typeCode(ref).Tag(map[string]string{"json": tag}))
		case f.Embedded:
			out = append(out, jen.Op("*").Add(typeCode(ref)).Tag(map[string]string{"json": tag}))
		case nillable(f):
			out = append(out, jen.Id(f.GoName).Add(typeCode(ref)).Tag(map[string]string{"json": tag}))
		default:
			out = append(out, jen.Id(f.GoName).Op("*").Add(typeCode(ref)).Tag(map[string]string{"json": tag}))
		}
	}
	return out
}

// jsonTag is the field's tag in the apply configuration: every non-inline
// field omits empty values, so unset fields are never sent (and never
// owned). An inline embed has an empty tag, as applyconfiguration-gen
// writes it since v0.37: encoding/json inlines it for its empty name
// (",inline" is not an encoding/json option).
func jsonTag(f *model.Field, inlineTag bool) string {
	if f.Inline && inlineTag {
		return ",inline"
	}
	if f.Inline {
		return ""
	}
	return f.JSONName + ",omitempty"
}

// nillable fields (slices and maps, once structs in them become apply
// configurations) are held without a pointer.
func nillable(f *model.Field) bool {
	return model.ApplyRef(f.Type).Nillable()
}

// hidden reports a named type of a basic kind that generated code in
// another package cannot name (type tenantState string, held by an
// exported field): apply configurations hold its underlying type, and the
// converters convert to it.
func hidden(t *model.Type) bool {
	return !token.IsExported(t.Name.Name) && t.Basic != ""
}

// typeCode renders a type expression produced by model.ApplyRef.
func typeCode(r *model.TypeRef) *jen.Statement {
	switch r.Kind {
	case model.RefApply:
		return jen.Qual(r.Named.ApplyConfig.Pkg, r.Named.ApplyConfig.Name)
	case model.RefNamed:
		if hidden(r.Named) {
			return jen.Id(r.Named.Basic) // an unexported named type: its underlying one
		}
		return jen.Qual(r.Named.Name.Pkg, r.Named.Name.Name)
	case model.RefBasic:
		return jen.Id(r.Basic)
	case model.RefPointer:
		return jen.Op("*").Add(typeCode(r.Elem))
	case model.RefSlice:
		return jen.Index().Add(typeCode(r.Elem))
	case model.RefMap:
		return jen.Map(typeCode(r.Key)).Add(typeCode(r.Elem))
	}
	return jen.Interface()
}

func (e *typeFile) constructor() {
	t, ac := e.t, e.t.ApplyConfig.Name
	gvk := func() []jen.Code {
		return []jen.Code{
			jen.Id("b").Dot("WithKind").Call(jen.Lit(t.Name.Name)),
			jen.Id("b").Dot("WithAPIVersion").Call(jen.Lit(e.gv.APIVersion())),
		}
	}
	e.f.Line()
	switch {
	case t.Root != nil && t.Root.Namespaced:
		comment(e.f, fmt.Sprintf("%s constructs a declarative configuration of the %s type for use with\napply.", t.Name.Name, t.Name.Name))
		body := []jen.Code{
			jen.Id("b").Op(":=").Op("&").Id(ac).Values(),
			jen.Id("b").Dot("WithName").Call(jen.Id("name")),
			jen.Id("b").Dot("WithNamespace").Call(jen.Id("namespace")),
		}
		body = append(append(body, gvk()...), jen.Return(jen.Id("b")))
		e.f.Func().Id(t.Name.Name).Params(jen.List(jen.Id("name"), jen.Id("namespace")).String()).Op("*").Id(ac).Block(body...)
	case t.Root != nil:
		comment(e.f, fmt.Sprintf("%s constructs a declarative configuration of the %s type for use with\napply.", t.Name.Name, t.Name.Name))
		body := []jen.Code{
			jen.Id("b").Op(":=").Op("&").Id(ac).Values(),
			jen.Id("b").Dot("WithName").Call(jen.Id("name")),
		}
		body = append(append(body, gvk()...), jen.Return(jen.Id("b")))
		e.f.Func().Id(t.Name.Name).Params(jen.Id("name").String()).Op("*").Id(ac).Block(body...)
	case t.EmbedsTypeMeta():
		comment(e.f, fmt.Sprintf("%s constructs a declarative configuration of the %s type for use with\napply.", ac, t.Name.Name))
		body := append([]jen.Code{jen.Id("b").Op(":=").Op("&").Id(ac).Values()}, gvk()...)
		body = append(body, jen.Return(jen.Id("b")))
		e.f.Func().Id(t.Name.Name).Params().Op("*").Id(ac).Block(body...)
	default:
		comment(e.f, fmt.Sprintf("%s constructs a declarative configuration of the %s type for use with\napply.", ac, t.Name.Name))
		e.f.Func().Id(t.Name.Name).Params().Op("*").Id(ac).Block(jen.Return(jen.Op("&").Id(ac).Values()))
	}
}

func (e *typeFile) extract() {
	t, ac, kind := e.t, e.t.ApplyConfig.Name, e.t.Name.Name
	obj := lowerFirst(kind, e.aliases)
	parser := jen.Qual(e.u.OutputPkg+"/internal", "Parser").Call().Dot("Type").Call(jen.Lit(t.Name.SchemaName()))
	body := []jen.Code{
		jen.Id("b").Op(":=").Op("&").Id(ac).Values(),
		jen.Id("err").Op(":=").Qual(managedfieldsPkg, "ExtractInto").Call(jen.Id(obj), parser, jen.Id("fieldManager"), jen.Id("b"), jen.Id("subresource")),
	}
	if len(t.Root.Unreflectable) > 0 {
		// structured-merge-diff's reflection panics on uint64: the object
		// is read through its JSON (internal.Unstructured).
		body = []jen.Code{
			jen.Comment(fmt.Sprintf("structured-merge-diff's reflection cannot read uint64 (%s):", model.Abbrev(t.Root.Unreflectable, 1))),
			jen.Comment("the object is read through its JSON."),
			jen.List(jen.Id("u"), jen.Id("err")).Op(":=").Qual(e.u.OutputPkg+"/internal", "Unstructured").Call(jen.Id(obj)),
			jen.If(jen.Id("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Id("err"))),
			jen.Id("b").Op(":=").Op("&").Id(ac).Values(),
			jen.Id("err").Op("=").Qual(managedfieldsPkg, "ExtractInto").Call(jen.Id("u"), parser, jen.Id("fieldManager"), jen.Id("b"), jen.Id("subresource")),
		}
	}
	body = append(body,
		jen.If(jen.Id("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Id("err"))),
		jen.Id("b").Dot("WithName").Call(jen.Id(obj).Dot("Name")),
	)
	if t.Root.Namespaced {
		body = append(body, jen.Id("b").Dot("WithNamespace").Call(jen.Id(obj).Dot("Namespace")))
	}
	body = append(body,
		jen.Line().Id("b").Dot("WithKind").Call(jen.Lit(kind)),
		jen.Id("b").Dot("WithAPIVersion").Call(jen.Lit(e.gv.APIVersion())),
		jen.Return(jen.Id("b"), jen.Nil()),
	)
	objType := jen.Op("*").Qual(t.Name.Pkg, kind)
	e.f.Line()
	comment(e.f, fmt.Sprintf(`%[3]s extracts the applied configuration owned by fieldManager from
%[2]s for the specified subresource. Pass an empty string for subresource to extract
the main resource. Common subresources include "status", "scale", etc.
%[2]s must be a unmodified %[1]s API object that was retrieved from the Kubernetes API.
%[3]s provides a way to perform a extract/modify-in-place/apply workflow.
Note that an extracted apply configuration will contain fewer fields than what the fieldManager previously
applied if another fieldManager has updated or force applied any of the previously applied fields.`, kind, obj, t.Root.Funcs.ExtractFrom))
	e.f.Func().Id(t.Root.Funcs.ExtractFrom).Params(jen.Id(obj).Add(objType), jen.Id("fieldManager").String(), jen.Id("subresource").String()).
		Params(jen.Op("*").Id(ac), jen.Error()).Block(body...)

	e.f.Line()
	comment(e.f, fmt.Sprintf(`%[4]s extracts the applied configuration owned by fieldManager from
%[2]s. If no managedFields are found in %[2]s for fieldManager, a
%[3]s is returned with only the Name, Namespace (if applicable),
APIVersion and Kind populated. It is possible that no managed fields were found for because other
field managers have taken ownership of all the fields previously owned by fieldManager, or because
the fieldManager never owned fields any fields.
%[2]s must be a unmodified %[1]s API object that was retrieved from the Kubernetes API.
%[4]s provides a way to perform a extract/modify-in-place/apply workflow.
Note that an extracted apply configuration will contain fewer fields than what the fieldManager previously
applied if another fieldManager has updated or force applied any of the previously applied fields.`, kind, obj, ac, t.Root.Funcs.Extract))
	e.f.Func().Id(t.Root.Funcs.Extract).Params(jen.Id(obj).Add(objType.Clone()), jen.Id("fieldManager").String()).
		Params(jen.Op("*").Id(ac), jen.Error()).
		Block(jen.Return(jen.Id(t.Root.Funcs.ExtractFrom).Call(jen.Id(obj), jen.Id("fieldManager"), jen.Lit(""))))

	for _, sub := range t.Root.Subresources {
		e.f.Line()
		comment(e.f, fmt.Sprintf("%[1]s extracts the applied configuration owned by fieldManager from\n%[2]s for the %[3]s subresource.", t.Root.Funcs.ExtractSub[sub], obj, sub))
		e.f.Func().Id(t.Root.Funcs.ExtractSub[sub]).Params(jen.Id(obj).Add(objType.Clone()), jen.Id("fieldManager").String()).
			Params(jen.Op("*").Id(ac), jen.Error()).
			Block(jen.Return(jen.Id(t.Root.Funcs.ExtractFrom).Call(jen.Id(obj), jen.Id("fieldManager"), jen.Lit(sub))))
	}
}

// embedding is the non-inline embedded struct (ObjectMeta under
// "metadata") whose setters are promoted to the outer configuration.
type embedding struct {
	ac     *model.TypeName // the embedded apply configuration
	acName string          // its type name
}

// setter is a field that gets a With function: a JSON field of the type,
// or of a non-inline embedded struct, and the Go path to it.
type setter struct {
	model.JSONField
	embed     *embedding
	depth     int
	declaring *model.Type // the struct that declares the field
}

// target is b.<embedded>.<inline embeddings>.<field>: spelled out, so the
// field set is the one encoding/json writes, whatever Go's promotion picks.
func (s setter) target() *jen.Statement {
	st := jen.Id("b")
	if s.embed != nil {
		st = st.Dot(s.embed.acName)
	}
	for _, v := range s.Via {
		st = st.Dot(v.Type.Deref().Named.ApplyConfig.Name)
	}
	return st.Dot(s.GoName)
}

// ensureEmbed allocates the embedded configurations on the way to the
// field that are held by pointer: a non-inline embed (ObjectMeta), and
// inline embeds of a pointer.
func (s setter) ensureEmbed() []jen.Code {
	var out []jen.Code
	st := jen.Id("b")
	if s.embed != nil {
		out = append(out, jen.Id("b").Dot("ensure"+s.embed.acName+"Exists").Call())
		st = st.Dot(s.embed.acName)
	}
	for _, v := range s.Via {
		ac := v.Type.Deref().Named.ApplyConfig
		st = st.Clone().Dot(ac.Name)
		if v.Type.Kind == model.RefPointer {
			out = append(out, jen.If(st.Clone().Op("==").Nil()).Block(st.Clone().Op("=").Op("&").Qual(ac.Pkg, ac.Name).Values()))
		}
	}
	return out
}

// setters lists the fields of t that get a With function, in encoding/json's
// order: its JSON fields, and those of non-inline embedded structs with an
// apply configuration (promoted, as applyconfiguration-gen does). When two
// have one Go name, the shallower keeps it, as Go's promotion does.
func setters(t *model.Type) (out []setter, embeds []*model.Type) {
	var walk func(t *model.Type, embed *embedding, depth int)
	walk = func(t *model.Type, embed *embedding, depth int) {
		for _, jf := range t.JSON {
			if jf.Hidden {
				continue
			}
			if jf.Embedded {
				inner := jf.Type.Deref()
				if inner.Kind == model.RefNamed && inner.Named.ApplyConfig != nil && embed == nil && len(jf.Via) == 0 {
					embeds = append(embeds, inner.Named)
					walk(inner.Named, &embedding{ac: inner.Named.ApplyConfig, acName: inner.Named.ApplyConfig.Name}, depth+1)
				}
				continue
			}
			declaring := t
			if n := len(jf.Via); n > 0 {
				declaring = jf.Via[n-1].Type.Deref().Named
			}
			out = append(out, setter{JSONField: jf, embed: embed, depth: depth + jf.Depth(), declaring: declaring})
		}
	}
	walk(t, nil, 0)
	best := map[string]setter{}
	for _, s := range out {
		if b, ok := best[s.SetterName()]; !ok || s.depth < b.depth {
			best[s.SetterName()] = s
		}
	}
	kept := out[:0]
	for _, s := range out {
		if b := best[s.SetterName()]; b.Field == s.Field && b.embed == s.embed {
			kept = append(kept, s)
		}
	}
	return kept, embeds
}

func (e *typeFile) withFuncs() {
	all, embeds := e.setters, e.embeds
	pending := map[string]bool{}
	for _, t := range embeds {
		pending[t.ApplyConfig.Name] = true
	}
	for i, s := range all {
		e.f.Line()
		note := ""
		if s.Setter != "" {
			note = fmt.Sprintf("With%[1]s sets the %[2]s field of the %[3]s, sent as %[4]q at its root: With%[2]s\nis metadata's, as on every kind.", s.Setter, s.GoName, e.t.Name.Name, s.JSONName)
		}
		e.withFunc(s.SetterName(), s, note)
		if last := i == len(all)-1 || all[i+1].embed != s.embed; last && s.embed != nil {
			e.ensureExists(s.embed)
			delete(pending, s.embed.acName)
		}
	}
	for _, t := range embeds {
		if pending[t.ApplyConfig.Name] {
			e.ensureExists(&embedding{ac: t.ApplyConfig, acName: t.ApplyConfig.Name})
		}
	}
	e.hidingSetters(all)
}

// hidingSetters shadows setters that Go would promote from an inline
// embedded configuration for a field encoding/json hides (Named.Name under
// an outer json:"name"): called on the outer configuration they would set a
// value that is never sent. The shadowing setter sets the field that is
// sent under that JSON name, as decoding {"name": ...} would.
func (e *typeFile) hidingSetters(own []setter) {
	defined := map[string]bool{}
	for _, s := range own {
		defined[s.SetterName()] = true
	}
	byJSON := map[string]setter{}
	for _, s := range own {
		if s.embed == nil {
			byJSON[s.JSONName] = s
		}
	}
	promoted := map[string]*model.Field{}
	var walk func(t *model.Type, seen map[*model.Type]bool)
	walk = func(t *model.Type, seen map[*model.Type]bool) {
		if seen[t] {
			return
		}
		seen[t] = true
		for _, f := range t.Fields {
			r := f.Type.Deref()
			if !f.Inline || r.Kind != model.RefNamed || r.Named.ApplyConfig == nil {
				continue
			}
			inner, _ := setters(r.Named)
			for _, s := range inner {
				if _, ok := promoted[s.GoName]; !ok && s.embed == nil {
					promoted[s.GoName] = s.Field
				}
			}
			walk(r.Named, seen)
		}
	}
	walk(e.t, map[*model.Type]bool{})
	names := make([]string, 0, len(promoted))
	for n := range promoted {
		if !defined[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		hidden := promoted[n]
		visible, ok := byJSON[hidden.JSONName]
		if !ok || typeString(model.ApplyRef(hidden.Type)) != typeString(model.ApplyRef(visible.Type)) || hidden.Type.Nillable() != visible.Type.Nillable() {
			continue // the JSON name is sent by no field of this type (a cycle): nothing to shadow with
		}
		e.f.Line()
		e.withFunc(n, visible, fmt.Sprintf("With%s sets %s, the field sent as %q: the embedded field of that name is\nhidden by it in JSON, so the setter Go would promote from the embedded\nconfiguration would send nothing.", n, visible.GoName, visible.JSONName))
	}
}

func typeString(r *model.TypeRef) string { return fmt.Sprintf("%#v", typeCode(r)) }

// withFunc renders the setter With<name> of s's field.
// note, when set, replaces the usual doc comment.
func (e *typeFile) withFunc(name string, s setter, note string) {
	ac := e.t.ApplyConfig.Name
	doc := func(text string) {
		if note != "" {
			text = note
		}
		comment(e.f, text)
	}
	f := s.Field
	ref := model.ApplyRef(f.Type)
	recv := jen.Id("b").Op("*").Id(ac)
	switch {
	case nillable(f) && ref.Kind == model.RefSlice:
		arg := typeCode(ref.Elem)
		isAC := ref.Elem.Kind == model.RefApply
		if isAC {
			arg = jen.Op("*").Add(arg)
		}
		doc(fmt.Sprintf("With%[1]s adds the given value to the %[1]s field in the declarative configuration\nand returns the receiver, so that objects can be build by chaining \"With\" function invocations.\nIf called multiple times, values provided by each call will be appended to the %[1]s field.", name))
		var loop []jen.Code
		item := jen.Id("values").Index(jen.Id("i"))
		if isAC {
			loop = append(loop, jen.If(jen.Id("values").Index(jen.Id("i")).Op("==").Nil()).Block(
				jen.Panic(jen.Lit("nil value passed to With"+name)),
			))
			item = jen.Op("*").Id("values").Index(jen.Id("i"))
		}
		loop = append(loop, s.target().Op("=").Append(s.target(), item))
		body := append(s.ensureEmbed(),
			jen.For(jen.Id("i").Op(":=").Range().Id("values")).Block(loop...),
			jen.Return(jen.Id("b")))
		e.f.Func().Params(recv).Id("With" + name).Params(jen.Id("values").Op("...").Add(arg)).Op("*").Id(ac).Block(body...)
	case nillable(f) && ref.Kind == model.RefMap:
		doc(fmt.Sprintf("With%[1]s puts the entries into the %[1]s field in the declarative configuration\nand returns the receiver, so that objects can be build by chaining \"With\" function invocations.\nIf called multiple times, the entries provided by each call will be put on the %[1]s field,\noverwriting an existing map entries in %[1]s field with the same key.", name))
		body := append(s.ensureEmbed(),
			jen.If(s.target().Op("==").Nil().Op("&&").Len(jen.Id("entries")).Op(">").Lit(0)).Block(
				s.target().Op("=").Make(typeCode(ref), jen.Len(jen.Id("entries"))),
			),
			jen.For(jen.List(jen.Id("k"), jen.Id("v")).Op(":=").Range().Id("entries")).Block(
				s.target().Index(jen.Id("k")).Op("=").Id("v"),
			),
			jen.Return(jen.Id("b")))
		e.f.Func().Params(recv).Id("With" + name).Params(jen.Id("entries").Add(typeCode(ref))).Op("*").Id(ac).Block(body...)
	default:
		doc(fmt.Sprintf("With%[1]s sets the %[1]s field in the declarative configuration to the given value\nand returns the receiver, so that objects can be built by chaining \"With\" function invocations.\nIf called multiple times, the %[1]s field is set to the value of the last call.", name))
		arg := typeCode(ref)
		assign := jen.Op("&").Id("value")
		if ref.Kind == model.RefApply {
			arg = jen.Op("*").Add(arg)
			assign = jen.Id("value")
		}
		body := append(s.ensureEmbed(), s.target().Op("=").Add(assign), jen.Return(jen.Id("b")))
		e.f.Func().Params(recv).Id("With" + name).Params(jen.Id("value").Add(arg)).Op("*").Id(ac).Block(body...)
	}
}

// ensureExists renders the method that allocates a non-inline embedded
// configuration before a promoted setter writes into it.
func (e *typeFile) ensureExists(embed *embedding) {
	inner := embed.acName
	e.f.Line()
	e.f.Func().Params(jen.Id("b").Op("*").Id(e.t.ApplyConfig.Name)).Id("ensure" + inner + "Exists").Params().Block(
		jen.If(jen.Id("b").Dot(inner).Op("==").Nil()).Block(
			jen.Id("b").Dot(inner).Op("=").Op("&").Qual(embed.ac.Pkg, inner).Values(),
		),
	)
}

// getters are the accessors apply needs (Get{Name,Namespace,Kind,APIVersion}),
// generated where ObjectMeta and TypeMeta are embedded.
func (e *typeFile) getters() {
	ac := e.t.ApplyConfig.Name
	for _, s := range e.setters {
		if !s.declaring.Identifies(s.Field) {
			continue
		}
		f := s.Field
		ret := typeCode(model.ApplyRef(f.Type))
		if !nillable(f) {
			ret = jen.Op("*").Add(ret)
		}
		body := append(s.ensureEmbed(), jen.Return(s.target()))
		e.f.Line()
		comment(e.f, fmt.Sprintf("Get%[1]s retrieves the value of the %[1]s field in the declarative configuration.", f.GoName))
		e.f.Func().Params(jen.Id("b").Op("*").Id(ac)).Id("Get" + f.GoName).Params().Add(ret).Block(body...)
	}
}

func newFile(pkgPath string, aliases Aliases) *jen.File {
	f := jen.NewFilePathName(pkgPath, packageName(pkgPath))
	for p, a := range aliases {
		f.ImportAlias(p, a)
	}
	return f
}

// packageName is the package clause for a folder: its name's letters,
// digits and underscores ("pkg/ssa-out" declares ssaout), as go/build
// would accept; "p" before a leading digit.
func packageName(pkgPath string) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return -1
	}, pathBase(pkgPath))
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		name = "p" + name
	}
	return name
}

func pathBase(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

// comment writes text as // lines (jennifer would use /* */ for several lines).
func comment(f *jen.File, text string) {
	for _, line := range strings.Split(text, "\n") {
		f.Comment(line)
	}
}
