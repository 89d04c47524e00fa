package emit

import (
	"fmt"
	"go/token"
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/ssagen/ssagen/generator/model"
)

// Converters turn a typed object into its apply configuration: From<Type>
// for every generated struct type, in its apply configuration package
// (zz_generated.convert.go, so that the builders' own files stay as
// applyconfiguration-gen writes them), and StatusFrom<Kind> for kinds with
// a status subresource. Types whose apply configurations are published
// elsewhere (client-go's) get theirs in the tree's internal package
// (internal/convert.go, From_<alias>_<Type>), which the kinds of
// --ensure-kinds export from their helper package.
//
// A converter sets exactly the fields the object's JSON sends: a field
// tagged omitempty is left out when encoding/json would leave it out, any
// other zero value is kept (replicas: 0 is sent), and nil pointers, slices
// and maps are left out (JSON null, which an apply cannot send). An empty
// list or map is left out as well: apply configurations tag every field
// omitempty. Server-set metadata (uid, resourceVersion, generation,
// timestamps, managedFields, selfLink) is never set, and a kind's TypeMeta
// is its own kind and apiVersion, whatever the object says. Slices and
// maps are copied, and so are values holding them (through DeepCopy).
// The code is plain assignments: no reflection, no JSON.

// serverSet are the ObjectMeta fields the API server sets, by JSON name.
var serverSet = map[string]bool{"selfLink": true, "uid": true, "resourceVersion": true, "generation": true, "creationTimestamp": true,
	"deletionTimestamp": true, "deletionGracePeriodSeconds": true, "managedFields": true}

// conversions is what every converter file of a run reads, worked out once
// per run (Render).
type conversions struct {
	u       *model.Universe
	aliases Aliases
	gvOf    map[*model.Type]*model.GroupVersion // kinds of every group version, external ones included
	// embedded are the kinds a field holds (embeddedKinds).
	embedded map[*model.Type]bool
	// skip are the types without a converter (unconvertible).
	skip map[*model.Type]bool
}

func newConversions(u *model.Universe, aliases Aliases) *conversions {
	cs := &conversions{u: u, aliases: aliases, gvOf: map[*model.Type]*model.GroupVersion{}, embedded: embeddedKinds(u), skip: unconvertible(u)}
	for _, gv := range u.GroupVersions {
		for _, k := range gv.Kinds() {
			cs.gvOf[k] = gv
		}
	}
	return cs
}

// converter renders converters into one file.
type converter struct {
	*conversions
	f *jen.File
}

// convertFile renders the converters of a generated group version.
func convertFile(cs *conversions, gv *model.GroupVersion) *jen.File {
	f := newFile(gv.OutPkgPath, cs.aliases)
	c := &converter{conversions: cs, f: f}
	for _, t := range gv.Types {
		if t.ApplyConfig == nil || c.skip[t] {
			continue
		}
		c.typeFunc(t, t.From, false)
		if t.FromObject != "" {
			c.typeFuncMeta(t, t.FromObject, false, true)
		}
		if t.Root != nil && t.Root.Funcs.StatusFrom != "" {
			c.statusFunc(t, t.Root.Funcs.StatusFrom)
		}
		if t.Root != nil && c.embedded[t] {
			c.typeFunc(t, t.Root.Funcs.FromEmbedded, true)
		}
	}
	return f
}

// externalConverted are the types with published apply configurations that
// the run's converters need: reached from a generated type, or a kind of
// --ensure-kinds and what it reaches. Sorted by name.
func externalConverted(u *model.Universe) []*model.Type {
	seen := map[*model.Type]bool{}
	var out []*model.Type
	var walkRef func(r *model.TypeRef)
	var walk func(t *model.Type)
	walk = func(t *model.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		if t.ApplyConfig != nil && !t.Generated() {
			out = append(out, t)
		}
		for _, f := range t.Fields {
			walkRef(f.Type)
		}
		if t.Elem != nil {
			walkRef(t.Elem)
		}
	}
	walkRef = func(r *model.TypeRef) {
		for r != nil {
			if r.Kind == model.RefNamed {
				walk(r.Named)
				return
			}
			r = r.Elem
		}
	}
	for _, gv := range u.GroupVersions {
		for _, t := range gv.Types {
			if t.ApplyConfig != nil && (!gv.External || t.Root != nil) {
				walk(t)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name.String() < out[j].Name.String() })
	return out
}

// unconvertible are the struct types no converter can be written for:
// unexported ones (another package cannot name them), and those holding
// one.
func unconvertible(u *model.Universe) map[*model.Type]bool {
	out := map[*model.Type]bool{}
	for _, t := range u.Types {
		if t.ApplyConfig != nil && !token.IsExported(t.Name.Name) {
			out[t] = true
		}
	}
	holds := func(r *model.TypeRef) bool {
		seen := map[*model.Type]bool{}
		for r != nil {
			if r.Kind != model.RefNamed {
				r = r.Elem
				continue
			}
			if out[r.Named] {
				return true
			}
			if (r.Named.Shape == model.ShapeSlice || r.Named.Shape == model.ShapeMap) && !seen[r.Named] {
				seen[r.Named] = true
				r = r.Named.Elem
				continue
			}
			return false
		}
		return false
	}
	for changed := true; changed; {
		changed = false
		for _, t := range u.Types {
			if out[t] || t.ApplyConfig == nil {
				continue
			}
			for _, f := range t.Fields {
				if holds(f.Type) {
					out[t], changed = true, true
					break
				}
			}
		}
	}
	return out
}

// embeddedKinds are the kinds some field holds (a StatefulSet's
// PersistentVolumeClaim templates), whose converters then have an
// embedded variant.
func embeddedKinds(u *model.Universe) map[*model.Type]bool {
	out := map[*model.Type]bool{}
	seen := map[*model.Type]bool{}
	var walk func(r *model.TypeRef)
	walk = func(r *model.TypeRef) {
		for ; r != nil; r = r.Elem {
			if r.Kind == model.RefNamed {
				if r.Named.Root != nil && r.Named.ApplyConfig != nil {
					out[r.Named] = true
				}
				if (r.Named.Shape == model.ShapeSlice || r.Named.Shape == model.ShapeMap) && !seen[r.Named] {
					seen[r.Named] = true // type Tree map[string]Tree
					walk(r.Named.Elem)
				}
				return
			}
		}
	}
	for _, t := range u.Types {
		for _, f := range t.Fields {
			walk(f.Type)
		}
	}
	return out
}

// externalConvertFile renders internal/convert.go: the converters of the
// types whose apply configurations are published elsewhere, or nil when
// the run needs none.
func externalConvertFile(cs *conversions) *jen.File {
	u := cs.u
	types := externalConverted(u)
	converters := len(types) > 0
	for _, gv := range u.GroupVersions {
		converters = converters || !gv.External && len(gv.Types) > 0
	}
	if !converters {
		return nil
	}
	f := newFile(u.OutputPkg+"/internal", cs.aliases)
	c := &converter{conversions: cs, f: f}
	comment(f, "Ptr returns a pointer to a copy of v: the converters' way to set an\napply configuration's optional field.")
	f.Func().Id("Ptr").Types(jen.Id("T").Any()).Params(jen.Id("v").Id("T")).Op("*").Id("T").Block(jen.Return(jen.Op("&").Id("v")))
	for _, t := range types {
		if t.Name == model.ObjectMeta {
			c.typeFuncMeta(t, objectMetaOfObjectFunc, false, true)
		}
		c.typeFunc(t, c.externalName(t), false)
		if t.Root != nil && hasSub(t.Root, "status") {
			c.statusFunc(t, c.externalStatusName(t))
		}
		if t.Root != nil && c.embedded[t] {
			c.typeFunc(t, "FromEmbedded_"+c.aliases[t.Name.Pkg]+"_"+t.Name.Name, true)
		}
	}
	return f
}

// externalName is the internal converter of a type with a published apply
// configuration: From_<package alias>_<Type>. Aliases hold no underscore,
// so no two types share a name.
func (c *converter) externalName(t *model.Type) string {
	return "From_" + c.aliases[t.Name.Pkg] + "_" + t.Name.Name
}

func (c *converter) externalStatusName(t *model.Type) string {
	return "StatusFrom_" + c.aliases[t.Name.Pkg] + "_" + t.Name.Name
}

func (c *converter) internalPkg() string { return c.u.OutputPkg + "/internal" }

// fromFunc names the converter of struct type t.
func (c *converter) fromFunc(t *model.Type) *jen.Statement {
	if t.Generated() {
		return jen.Qual(t.ApplyConfig.Pkg, t.From)
	}
	return jen.Qual(c.internalPkg(), c.externalName(t))
}

// valueFunc names the converter of a struct type t held in a field: a
// kind's embedded converter (its own TypeMeta and status, as its JSON
// has them), or the type's.
func (c *converter) valueFunc(t *model.Type) *jen.Statement {
	if t.Root == nil {
		return c.fromFunc(t)
	}
	if t.Generated() {
		return jen.Qual(t.ApplyConfig.Pkg, t.Root.Funcs.FromEmbedded)
	}
	return jen.Qual(c.internalPkg(), "FromEmbedded_"+c.aliases[t.Name.Pkg]+"_"+t.Name.Name)
}

func (c *converter) ptr(v jen.Code) *jen.Statement {
	return jen.Qual(c.internalPkg(), "Ptr").Call(v)
}

// typeFunc renders the converter of struct type t; for a kind held in
// another object's field (embedded) it copies TypeMeta and status as they
// are instead.
func (c *converter) typeFunc(t *model.Type, name string, embedded bool) {
	c.typeFuncMeta(t, name, embedded, false)
}

// typeFuncMeta renders a converter; objectMetaOfObject renders ObjectMeta's
// for an object's own metadata, which leaves out what the API server sets
// (metadata nested in a template is copied whole: the server sets none
// of it there).
func (c *converter) typeFuncMeta(t *model.Type, name string, embedded, objectMetaOfObject bool) {
	ac := jen.Qual(t.ApplyConfig.Pkg, t.ApplyConfig.Name)
	c.f.Line()
	switch {
	case embedded:
		comment(c.f, fmt.Sprintf("%s returns the apply configuration of in as another object holds it\n(a template): every field in's JSON sends, its kind, apiVersion and\nstatus included, except server-set metadata. nil gives nil.", name))
	case t.Root != nil && t.Root.Funcs.StatusFrom != "" || t.Root != nil && !t.Generated() && hasSub(t.Root, "status"):
		comment(c.f, fmt.Sprintf(`%s returns the apply configuration of in: every field in's JSON
sends, except server-set metadata and the status, which is written
through the status subresource (%s). nil gives nil.`, name, c.statusName(t)))
	case t.Root != nil:
		comment(c.f, fmt.Sprintf("%s returns the apply configuration of in: every field in's JSON\nsends, except server-set metadata. nil gives nil.", name))
	case objectMetaOfObject:
		comment(c.f, fmt.Sprintf("%s returns the apply configuration of an object's own metadata:\nevery field in's JSON sends, except those the API server sets. nil gives nil.", name))
	default:
		comment(c.f, fmt.Sprintf("%s returns the apply configuration of in: every field in's JSON\nsends. nil gives nil.", name))
	}
	body := funcStart(ac)
	root := t.Root != nil && !embedded
	skipStatus := root && (t.Root.Funcs.StatusFrom != "" || !t.Generated() && hasSub(t.Root, "status"))
	for _, f := range t.Fields {
		switch {
		case f.Hidden:
			continue
		case objectMetaOfObject && serverSet[f.JSONName]:
			continue
		case skipStatus && f.JSONName == "status" && !f.Inline:
			continue
		case root && f.InlinesTypeMeta():
			body = append(body, c.typeMeta(t)...)
			continue
		}
		if root && f.Embedded && !f.Inline && f.Type.ObjectMeta() && f.Type.Kind != model.RefPointer {
			named := f.Type.Deref().Named
			fn := jen.Qual(c.internalPkg(), objectMetaOfObjectFunc)
			if named.Generated() {
				fn = jen.Qual(named.ApplyConfig.Pkg, named.FromObject)
			}
			body = append(body, jen.Id("out").Dot(named.ApplyConfig.Name).Op("=").Add(fn).Call(jen.Op("&").Id("in").Dot(f.GoName)))
			continue
		}
		body = append(body, c.field(f)...)
	}
	body = append(body, jen.Return(jen.Id("out")))
	c.f.Func().Id(name).Params(jen.Id("in").Op("*").Qual(t.Name.Pkg, t.Name.Name)).Op("*").Add(ac).Block(body...)
}

// objectMetaOfObjectFunc converts an object's own metadata (internal).
const objectMetaOfObjectFunc = "FromObject_metav1_ObjectMeta"

func (c *converter) statusName(t *model.Type) string {
	if t.Generated() {
		return t.Root.Funcs.StatusFrom
	}
	return c.externalStatusName(t)
}

// statusFunc renders the converter of kind t's status: the kind's
// apply configuration with its kind, apiVersion, name, namespace and status.
func (c *converter) statusFunc(t *model.Type, name string) {
	ac := jen.Qual(t.ApplyConfig.Pkg, t.ApplyConfig.Name)
	c.f.Line()
	comment(c.f, fmt.Sprintf(`%s returns the apply configuration of in's status, for the status
subresource: in's kind, apiVersion, name and namespace, and every field
its status's JSON sends. nil gives nil.`, name))
	body := funcStart(ac)
	for _, f := range t.Fields {
		switch {
		case f.InlinesTypeMeta():
			body = append(body, c.typeMeta(t)...)
		case f.Embedded && !f.Inline && f.Type.ObjectMeta():
			meta := f.Type.Deref().Named.ApplyConfig
			field := jen.Id("out").Dot(meta.Name)
			body = append(body, jen.Add(field.Clone()).Op("=").Op("&").Qual(meta.Pkg, meta.Name).Values())
			for _, n := range []string{"Name", "Namespace"} {
				body = append(body, jen.If(jen.Id("in").Dot(n).Op("!=").Lit("")).Block(
					jen.Add(field.Clone()).Dot(n).Op("=").Add(c.ptr(jen.Id("in").Dot(n)))))
			}
		case f.JSONName == "status" && !f.Inline:
			body = append(body, c.field(f)...)
		}
	}
	body = append(body, jen.Return(jen.Id("out")))
	c.f.Func().Id(name).Params(jen.Id("in").Op("*").Qual(t.Name.Pkg, t.Name.Name)).Op("*").Add(ac).Block(body...)
}

// funcStart opens a converter: nil gives nil, out is a new ac.
func funcStart(ac *jen.Statement) []jen.Code {
	return []jen.Code{
		jen.If(jen.Id("in").Op("==").Nil()).Block(jen.Return(jen.Nil())),
		jen.Id("out").Op(":=").Op("&").Add(ac.Clone()).Values(),
	}
}

// typeMeta sets a kind's TypeMeta to its own kind and apiVersion.
func (c *converter) typeMeta(t *model.Type) []jen.Code {
	gv := c.gvOf[t]
	if gv == nil {
		return nil
	}
	tm := jen.Id("out").Dot("TypeMetaApplyConfiguration")
	return []jen.Code{
		jen.Add(tm.Clone()).Dot("Kind").Op("=").Add(c.ptr(jen.Lit(t.Name.Name))),
		jen.Add(tm.Clone()).Dot("APIVersion").Op("=").Add(c.ptr(jen.Lit(gv.APIVersion()))),
	}
}

// field renders the statements that set field f of out from in.
func (c *converter) field(f *model.Field) []jen.Code {
	src := jen.Id("in").Dot(f.GoName)
	ref := f.Type
	ac := model.ApplyRef(ref)
	name := f.GoName
	if f.Embedded {
		name = ac.Named.Name.Name
		if ac.Kind == model.RefApply {
			name = ac.Named.ApplyConfig.Name
		}
	}
	dst := jen.Id("out").Dot(name)
	switch {
	case f.Embedded && f.Inline:
		if ac.Kind != model.RefApply {
			return nil // a struct of no serialised fields adds nothing
		}
		if ref.Kind == model.RefPointer {
			// a pointer embed stays a pointer (it may be cyclic)
			return []jen.Code{jen.If(src.Clone().Op("!=").Nil()).Block(jen.Add(dst).Op("=").Add(c.fromFunc(ac.Named)).Call(src))}
		}
		return []jen.Code{jen.Add(dst).Op("=").Op("*").Add(c.fromFunc(ac.Named)).Call(jen.Op("&").Add(src))}
	case ref.Kind == model.RefPointer:
		return []jen.Code{jen.If(src.Clone().Op("!=").Nil()).Block(c.pointee(dst, src, ref.Elem)...)}
	case ac.Nillable():
		return []jen.Code{jen.If(jen.Len(src.Clone()).Op(">").Lit(0)).Block(c.into(dst, src, ref, 0)...)}
	case ac.Kind == model.RefApply:
		// A struct is never empty to encoding/json.
		return []jen.Code{jen.Add(dst).Op("=").Add(c.valueFunc(ac.Named)).Call(jen.Op("&").Add(src))}
	}
	set := jen.Add(dst).Op("=").Add(c.ptr(c.copyValue(src, ref)))
	if cond := c.nonEmpty(src, ref); cond != nil && (f.OmitEmpty || isNilable(ref)) {
		return []jen.Code{jen.If(cond).Block(set)}
	}
	return []jen.Code{set}
}

// pointee sets dst (a pointer field, or a slice or map) from *src, which
// is of type r.
func (c *converter) pointee(dst, src *jen.Statement, r *model.TypeRef) []jen.Code {
	deref := jen.Parens(jen.Op("*").Add(src.Clone()))
	ac := model.ApplyRef(r)
	switch {
	case r.Kind == model.RefPointer:
		return []jen.Code{jen.If(deref.Clone().Op("!=").Nil()).Block(c.pointee(dst, deref, r.Elem)...)}
	case ac.Nillable():
		return []jen.Code{jen.If(jen.Len(deref.Clone()).Op(">").Lit(0)).Block(c.into(dst, deref, r, 0)...)}
	case ac.Kind == model.RefApply:
		return []jen.Code{jen.Add(dst).Op("=").Add(c.valueFunc(ac.Named)).Call(src)}
	}
	if r.Kind != model.RefNamed || r.Named.DeepCopy == model.DeepCopyNone {
		deref = jen.Op("*").Add(src.Clone()) // no method called on it: no parentheses
	}
	return []jen.Code{jen.Add(dst).Op("=").Add(c.ptr(c.copyValue(deref, r)))}
}

// into sets dst, of type model.ApplyRef(r), from src, of type r: structs
// converted, slices and maps copied element by element.
func (c *converter) into(dst, src *jen.Statement, r *model.TypeRef, depth int) []jen.Code {
	ac := model.ApplyRef(r)
	switch r.Kind {
	case model.RefPointer:
		if !model.ContainsApply(r.Elem) {
			// The apply configuration keeps the pointer (a []*T of a
			// value type): a pointer to a copy.
			return []jen.Code{jen.If(src.Clone().Op("!=").Nil()).Block(
				jen.Add(dst).Op("=").Add(c.ptr(c.copyValue(jen.Parens(jen.Op("*").Add(src.Clone())), r.Elem))))}
		}
		return []jen.Code{jen.If(src.Clone().Op("!=").Nil()).Block(c.into(dst, jen.Parens(jen.Op("*").Add(src.Clone())), r.Elem, depth)...)}
	case model.RefNamed:
		t := r.Named
		switch {
		case ac.Kind == model.RefApply:
			return []jen.Code{jen.Add(dst).Op("=").Op("*").Add(c.valueFunc(t)).Call(jen.Op("&").Add(src))}
		case depth > maxDepth:
			// a named collection holding itself: copied as it is
		case ac.Kind == model.RefSlice:
			return c.into(dst, src, &model.TypeRef{Kind: model.RefSlice, Elem: t.Elem}, depth)
		case ac.Kind == model.RefMap:
			return c.into(dst, src, &model.TypeRef{Kind: model.RefMap, Key: t.Key, Elem: t.Elem}, depth)
		}
		return []jen.Code{jen.Add(dst).Op("=").Add(c.copyValue(src, r))}
	case model.RefSlice:
		if !needsWork(r.Elem) && depth == 0 {
			return []jen.Code{jen.Add(dst).Op("=").Append(jen.Add(typeCode(ac)).Call(jen.Nil()), jen.Add(src).Op("..."))}
		}
		if !needsWork(r.Elem) {
			// An element keeps nil apart from empty: a []byte is null or "".
			return []jen.Code{jen.If(src.Clone().Op("!=").Nil()).Block(
				jen.Add(dst).Op("=").Append(jen.Add(typeCode(ac)).Values(), jen.Add(src).Op("...")))}
		}
		i := jen.Id(fmt.Sprintf("i%d", depth))
		return []jen.Code{
			jen.Add(dst.Clone()).Op("=").Make(typeCode(ac), jen.Len(src.Clone())),
			jen.For(jen.Add(i.Clone()).Op(":=").Range().Add(src.Clone())).Block(
				c.into(jen.Add(dst.Clone()).Index(i.Clone()), jen.Add(src.Clone()).Index(i.Clone()), r.Elem, depth+1)...),
		}
	case model.RefMap:
		k, e := jen.Id(fmt.Sprintf("k%d", depth)), jen.Id(fmt.Sprintf("e%d", depth))
		return []jen.Code{
			jen.Add(dst.Clone()).Op("=").Make(typeCode(ac), jen.Len(src.Clone())),
			jen.For(jen.List(k.Clone(), e.Clone()).Op(":=").Range().Add(src.Clone())).Block(
				c.into(jen.Add(dst.Clone()).Index(k.Clone()), e.Clone(), r.Elem, depth+1)...),
		}
	}
	return []jen.Code{jen.Add(dst).Op("=").Add(c.copyValue(src, r))}
}

// maxDepth bounds the nesting of collections a converter copies element by
// element.
const maxDepth = 8

// needsWork reports whether an element of type r takes more than an
// assignment to copy: a struct to convert, a pointer, a collection, a
// value holding one.
func needsWork(r *model.TypeRef) bool {
	switch r.Kind {
	case model.RefBasic, model.RefInterface:
		return false
	case model.RefNamed:
		t := r.Named
		return t.ApplyConfig != nil || t.Shape == model.ShapeSlice || t.Shape == model.ShapeMap ||
			t.DeepCopy != model.DeepCopyNone || t.GoKind == model.GoSlice || t.GoKind == model.GoMap
	}
	return true
}

// copyValue is an expression copying src, a value (not a struct with an
// apply configuration) of type r.
func (c *converter) copyValue(src *jen.Statement, r *model.TypeRef) *jen.Statement {
	if r.Kind != model.RefNamed {
		if r.Kind == model.RefSlice && !needsWork(r.Elem) {
			return jen.Append(jen.Add(typeCode(r)).Call(jen.Nil()), jen.Add(src).Op("..."))
		}
		return src
	}
	t := r.Named
	switch {
	case hidden(t):
		return jen.Id(t.Basic).Call(src)
	case t.DeepCopy == model.DeepCopyPointer:
		return jen.Op("*").Add(src).Dot("DeepCopy").Call()
	case t.DeepCopy == model.DeepCopyValue:
		return jen.Add(src).Dot("DeepCopy").Call()
	case t.GoKind == model.GoSlice:
		// elements copied by assignment: a named slice of values, or of
		// structs kept raw (--compat=applyconfiguration-gen) without DeepCopy
		return jen.Append(jen.Qual(t.Name.Pkg, t.Name.Name).Call(jen.Nil()), jen.Add(src).Op("..."))
	}
	return src
}

// isNilable reports whether a value of type r can be nil: a nil one is
// JSON null, which an apply cannot send, whether or not omitempty.
func isNilable(r *model.TypeRef) bool {
	switch r.Kind {
	case model.RefInterface:
		return !r.Opaque
	case model.RefNamed:
		k := r.Named.GoKind
		return k == model.GoInterface || k == model.GoPointer || k == model.GoSlice || k == model.GoMap
	}
	return false
}

// nonEmpty is encoding/json's test of a value that omitempty keeps, or nil
// for a value it always keeps (structs).
func (c *converter) nonEmpty(src *jen.Statement, r *model.TypeRef) *jen.Statement {
	basic := ""
	switch r.Kind {
	case model.RefBasic:
		basic = r.Basic
	case model.RefInterface:
		if r.Opaque {
			return nil
		}
		return jen.Add(src.Clone()).Op("!=").Nil()
	case model.RefNamed:
		switch r.Named.GoKind {
		case model.GoBasic:
			basic = r.Named.Basic
		case model.GoSlice, model.GoMap:
			return jen.Len(src.Clone()).Op(">").Lit(0)
		case model.GoPointer, model.GoInterface:
			return jen.Add(src.Clone()).Op("!=").Nil()
		default:
			return nil
		}
	default:
		return nil
	}
	switch basic {
	case "bool":
		return src.Clone()
	case "string":
		return jen.Add(src.Clone()).Op("!=").Lit("")
	case "":
		return nil
	}
	return jen.Add(src.Clone()).Op("!=").Lit(0)
}
