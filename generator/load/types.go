package load

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"strings"

	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/ssagen/ssagen/generator/model"
)

// anyJSON are value types that hold arbitrary JSON: the schema deduces
// their content instead of treating them as one scalar.
var anyJSON = map[string]bool{
	"k8s.io/apimachinery/pkg/runtime.RawExtension":                       true,
	"k8s.io/apimachinery/pkg/runtime.Unknown":                            true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":                      true,
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured.Unstructured":     true,
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured.UnstructuredList": true,
}

// named returns the model of a named type, building it on first use.
func (l *loader) named(obj *types.TypeName) *model.Type {
	name := model.TypeName{Pkg: obj.Pkg().Path(), Name: obj.Name()}
	if t, ok := l.types[name.String()]; ok {
		return t
	}
	t := &model.Type{Name: name, Pos: l.pos(obj.Pos()), StructType: model.ObjectGranular}
	l.types[name.String()] = t // before recursing: types may be recursive
	defer l.modelling(t)()

	n, _ := obj.Type().(*types.Named)
	if n == nil {
		t.Shape = model.ShapeValue
		t.Value = model.ValueUntypedAny
		return t
	}
	if n.TypeParams().Len() > 0 {
		// Reported where it is declared (input) or used (ref).
		t.Shape = model.ShapeValue
		t.Value = model.ValueUntypedAny
		return t
	}
	file, decl, spec := l.declOf(obj)
	var vals markerValues
	if spec != nil {
		_, vals = l.typeMarkers(file, decl, spec)
		doc := spec.Doc
		if doc == nil && decl != nil && len(decl.Specs) == 1 {
			doc = decl.Doc
		}
		t.Doc = docLines(doc)
	}
	if st := l.objectType(vals, "structType", t.Pos, name.Name); st != model.ObjectUnset {
		t.StructType = st
	}
	t.ListType = l.listType(vals, t.Pos, name.Name)
	t.ListKeys = vals.strs("listMapKey")
	t.MapType = l.objectType(vals, "mapType", t.Pos, name.Name)

	in := l.inputs[name.Pkg]
	t.GoKind = goKind(n.Underlying())
	defer func() {
		if t.Shape != model.ShapeStruct && holdsCollections(n.Underlying(), map[types.Type]bool{}) {
			t.DeepCopy = deepCopyMethod(n)
		}
	}()
	switch u := n.Underlying().(type) {
	case *types.Struct:
		l.namedStruct(t, n, u, spec, in)
	case *types.Basic:
		t.Shape, t.Value, t.Basic = model.ShapeValue, basicValue(u), u.Name()
	case *types.Slice:
		if b, ok := u.Elem().(*types.Basic); ok && b.Kind() == types.Byte {
			t.Shape, t.Value = model.ShapeValue, model.ValueString
			break
		}
		t.Shape = model.ShapeSlice
		t.KeepRaw = l.cfg.CompatApplyconfigurationGen
		t.Elem = l.ref(u.Elem(), t.Pos, name.Name, in != nil)
	case *types.Map:
		t.Shape = model.ShapeMap
		t.KeepRaw = l.cfg.CompatApplyconfigurationGen
		t.Key = l.ref(u.Key(), t.Pos, name.Name, in != nil)
		t.Elem = l.ref(u.Elem(), t.Pos, name.Name, in != nil)
	case *types.Interface:
		t.Shape, t.Value = model.ShapeValue, model.ValueUntypedAny
	default:
		t.Shape, t.Value = model.ShapeValue, model.ValueUntypedAny
		if in != nil {
			l.unsupported(t.Pos, name.Name, n.Underlying())
		}
	}
	return t
}

// namedStruct models a named struct type n (its underlying u, its
// declaration spec, in its input package or nil): a value where it
// marshals itself, else its fields, with builders of its own in an
// input's group version or an apply configuration from elsewhere.
func (l *loader) namedStruct(t *model.Type, n *types.Named, u *types.Struct, spec *ast.TypeSpec, in *input) {
	name := t.Name
	if anyJSON[name.String()] {
		t.Shape, t.Value = model.ShapeValue, model.ValueUntypedAny
		return
	}
	if hasMethod(n, "MarshalJSON") {
		t.Shape, t.Value = model.ShapeValue, model.ValueUntyped
		if l.openAPIAnyType(n) {
			t.Value = model.ValueDeduced
		}
		return
	}
	t.Shape = model.ShapeStruct
	var astStruct *ast.StructType
	if spec != nil {
		astStruct, _ = spec.Type.(*ast.StructType)
	}
	t.Fields = l.fields(t, u, astStruct)
	if len(t.Fields) == 0 {
		return // nothing to set field by field: used as a value
	}
	if in != nil && (l.only[name.Pkg] == nil || l.only[name.Pkg][name.Name]) {
		t.GV = in.gv
		t.ApplyConfig = &model.TypeName{Pkg: in.gv.OutPkgPath, Name: name.Name + "ApplyConfiguration"}
		in.gv.Types = append(in.gv.Types, t)
	} else {
		l.external = append(l.external, t) // or a type of a package vendored in part that keeps its shipped one
	}
}

// openAPIAnyType reports whether n declares that its OpenAPI schema has no
// type — OpenAPISchemaType() returning nil, as apiextensions' JSON and
// JSONSchemaPropsOr* do — so the schema deduces each value (a scalar, a
// list or an object) rather than take it as a scalar.
func (l *loader) openAPIAnyType(n *types.Named) bool {
	ms := types.NewMethodSet(types.NewPointer(n))
	var fn *types.Func
	for i := 0; i < ms.Len(); i++ {
		if f, ok := ms.At(i).Obj().(*types.Func); ok && f.Name() == "OpenAPISchemaType" {
			fn = f
		}
	}
	if fn == nil {
		return false
	}
	f := l.fileAt(fn.Pos())
	if f == nil {
		return false
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != fn.Name() || fd.Recv == nil || fd.Body == nil || l.pos(fd.Name.Pos()) != l.pos(fn.Pos()) {
			continue
		}
		if len(fd.Body.List) != 1 {
			return false
		}
		ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 1 {
			return false
		}
		id, ok := ret.Results[0].(*ast.Ident)
		return ok && id.Name == "nil"
	}
	return false
}

// fileAt returns the syntax of the file holding pos, parsed once.
func (l *loader) fileAt(pos token.Pos) *ast.File {
	filename := l.pos(pos).Filename
	if filename == "" {
		return nil
	}
	f, ok := l.files[filename]
	if !ok {
		f, _ = parser.ParseFile(l.fset, filename, nil, parser.ParseComments|parser.SkipObjectResolution)
		l.files[filename] = f
	}
	return f
}

// listType reads +listType: atomic, set or map.
func (l *loader) listType(vals markerValues, pos token.Position, what string) model.ListType {
	v := vals.str("listType")
	if v == "" {
		return model.ListUnset
	}
	lt, ok := model.ParseListType(v)
	if !ok {
		l.errs.Add(pos, "use +listType=atomic, set or map", "+listType=%s on %s is not a list type", v, what)
	}
	return lt
}

// objectType reads +mapType or +structType (marker): atomic or granular.
func (l *loader) objectType(vals markerValues, marker string, pos token.Position, what string) model.ObjectType {
	v := vals.str(marker)
	if v == "" {
		return model.ObjectUnset
	}
	ot, ok := model.ParseObjectType(v)
	if !ok {
		l.errs.Add(pos, "use +"+marker+"=atomic or granular", "+%s=%s on %s is neither atomic nor granular", marker, v, what)
	}
	return ot
}

func hasMethod(n *types.Named, name string) bool {
	ms := types.NewMethodSet(types.NewPointer(n))
	for i := 0; i < ms.Len(); i++ {
		if ms.At(i).Obj().Name() == name {
			return true
		}
	}
	return false
}

// goKind is the model's kind of an underlying type.
func goKind(t types.Type) model.GoKind {
	switch t.(type) {
	case *types.Basic:
		return model.GoBasic
	case *types.Struct:
		return model.GoStruct
	case *types.Slice:
		return model.GoSlice
	case *types.Map:
		return model.GoMap
	case *types.Pointer:
		return model.GoPointer
	case *types.Interface:
		return model.GoInterface
	}
	return model.GoOther
}

// holdsCollections reports whether a value of type t holds a slice or map
// itself or in its struct fields (not behind pointers): what a copy by
// assignment would share.
func holdsCollections(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch u := t.Underlying().(type) {
	case *types.Slice, *types.Map:
		return true
	case *types.Array:
		return holdsCollections(u.Elem(), seen)
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if holdsCollections(u.Field(i).Type(), seen) {
				return true
			}
		}
	}
	return false
}

// deepCopyMethod finds deepcopy-gen's DeepCopy method of n: returning *T
// or T.
func deepCopyMethod(n *types.Named) model.DeepCopyKind {
	obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(n), true, n.Obj().Pkg(), "DeepCopy")
	fn, ok := obj.(*types.Func)
	if !ok {
		return model.DeepCopyNone
	}
	sig := fn.Type().(*types.Signature)
	if sig.Params().Len() != 0 || sig.Results().Len() != 1 {
		return model.DeepCopyNone
	}
	switch r := sig.Results().At(0).Type(); {
	case types.Identical(r, n):
		return model.DeepCopyValue
	case types.Identical(r, types.NewPointer(n)):
		return model.DeepCopyPointer
	}
	return model.DeepCopyNone
}

func basicValue(b *types.Basic) model.ValueKind {
	switch {
	case b.Info()&types.IsString != 0:
		return model.ValueString
	case b.Info()&types.IsBoolean != 0:
		return model.ValueBoolean
	case b.Info()&(types.IsInteger|types.IsFloat) != 0:
		return model.ValueNumeric
	}
	return model.ValueUntyped
}

func (l *loader) unsupported(pos token.Position, what string, t types.Type) {
	l.typeErr(pos, "use a type that has a JSON form the API server accepts: a struct, slice, map, string, bool or number; for arbitrary JSON use apiextensionsv1.JSON or runtime.RawExtension",
		"%s has type %s, which cannot be serialised to a Kubernetes object", what, types.TypeString(t, nil))
}

// ref models a field's type expression. Unsupported kinds are reported for
// input types only: external types are walked for their schema, never emitted.
func (l *loader) ref(t types.Type, pos token.Position, what string, report bool) *model.TypeRef {
	switch t := t.(type) {
	case *types.Alias:
		return l.ref(types.Unalias(t), pos, what, report)
	case *types.Named:
		if t.Obj().Pkg() == nil { // error
			if report {
				l.unsupported(pos, what, t)
			}
			return &model.TypeRef{Kind: model.RefInterface, Opaque: true}
		}
		if t.TypeArgs().Len() > 0 || t.TypeParams().Len() > 0 {
			if report {
				l.typeErr(pos, "use a concrete type", "%s uses generic type %s, which is not supported", what, types.TypeString(t, nil))
			}
			return &model.TypeRef{Kind: model.RefInterface, Opaque: true}
		}
		return &model.TypeRef{Kind: model.RefNamed, Named: l.named(t.Obj())}
	case *types.Basic:
		if t.Info()&(types.IsComplex) != 0 || t.Kind() == types.UnsafePointer || t.Kind() == types.Uintptr {
			if report {
				l.unsupported(pos, what, t)
			}
		}
		return &model.TypeRef{Kind: model.RefBasic, Basic: t.Name()}
	case *types.Pointer:
		return &model.TypeRef{Kind: model.RefPointer, Elem: l.ref(t.Elem(), pos, what, report)}
	case *types.Slice:
		return &model.TypeRef{Kind: model.RefSlice, Elem: l.ref(t.Elem(), pos, what, report)}
	case *types.Map:
		return &model.TypeRef{Kind: model.RefMap, Key: l.ref(t.Key(), pos, what, report), Elem: l.ref(t.Elem(), pos, what, report)}
	case *types.Array:
		// encoding/json writes an array as a list, but structured-merge-diff's
		// reflection (Extract, the skip check) panics on Go arrays.
		if report {
			l.typeErr(pos, "use a slice with +kubebuilder:validation:MinItems and MaxItems for a fixed length",
				"%s has array type %s: Extract and the apply runtime read objects with structured-merge-diff, which cannot handle Go arrays", what, types.TypeString(t, nil))
		}
		return &model.TypeRef{Kind: model.RefInterface, Opaque: true}
	case *types.Interface:
		if report && !l.untypedField {
			l.unsupported(pos, what, t)
		}
		return &model.TypeRef{Kind: model.RefInterface}
	default: // chan, func, array, struct literal, type parameter
		if report {
			l.unsupported(pos, what, t)
		}
		return &model.TypeRef{Kind: model.RefInterface, Opaque: true}
	}
}

// fields models the serialised fields of a struct as encoding/json sees them.
func (l *loader) fields(owner *model.Type, st *types.Struct, astStruct *ast.StructType) []*model.Field {
	byName := astFields(astStruct)
	var out []*model.Field
	for i := 0; i < st.NumFields(); i++ {
		v := st.Field(i)
		tag := reflect.StructTag(st.Tag(i))
		jsonTag, hasTag := tag.Lookup("json")
		if jsonTag == "-" {
			continue
		}
		if !v.Exported() && !v.Embedded() {
			l.unexported[owner] = append(l.unexported[owner], l.pos(v.Pos()))
			continue
		}
		name, opts, _ := strings.Cut(jsonTag, ",")
		f := &model.Field{
			GoName:    v.Name(),
			Embedded:  v.Embedded(),
			OmitEmpty: hasOpt(opts, "omitempty") || hasOpt(opts, "omitzero"),
			Pos:       l.pos(v.Pos()),
		}
		if v.Embedded() && (name == "" || hasOpt(opts, "inline")) {
			if _, isStruct := deref(v.Type()).Underlying().(*types.Struct); isStruct {
				f.Inline = true
			}
		}
		if !f.Inline {
			if !v.Exported() {
				continue
			}
			f.JSONName, f.Tagged, f.HasJSONTag = name, name != "", hasTag
			if name == "" {
				f.JSONName = v.Name()
			}
		}
		what := owner.Name.Name + "." + v.Name()
		if af := byName[v.Name()]; af != nil {
			l.fieldMarkers(f, af, what)
		}
		// A schemaless or preserve-unknown-fields field may hold any JSON.
		prev := l.untypedField
		l.untypedField = f.IsUntyped && f.Untyped == model.ValueUntypedAny
		f.Type = l.ref(v.Type(), f.Pos, what, l.inputs[owner.Name.Pkg] != nil)
		l.untypedField = prev
		// Built-in types may state merge keys as patch tags only; whether
		// they count depends on the package (applyPatchTags).
		if strings.Contains(tag.Get("patchStrategy"), "merge") {
			f.PatchMerge, f.PatchMergeKey = true, tag.Get("patchMergeKey")
		}
		// Hidden fields stay in the schema but get no setter, as in
		// applyconfiguration-gen.
		if owner.Name.Pkg == metaV1Pkg && owner.Name.Name == "ObjectMeta" && (v.Name() == "ManagedFields" || v.Name() == "SelfLink") {
			f.Hidden = true
		}
		if strings.HasPrefix(v.Name(), "ZZZ_") {
			f.Hidden = true
		}
		out = append(out, f)
	}
	return out
}

// astFields indexes a struct's field declarations by name (an embedded
// field's is its type's).
func astFields(astStruct *ast.StructType) map[string]*ast.Field {
	byName := map[string]*ast.Field{}
	if astStruct == nil {
		return byName
	}
	for _, f := range astStruct.Fields.List {
		if len(f.Names) == 0 {
			byName[embeddedName(f.Type)] = f
		}
		for _, n := range f.Names {
			byName[n.Name] = f
		}
	}
	return byName
}

// fieldMarkers reads a field's doc and markers (af, its declaration)
// into f; what names the field in messages.
func (l *loader) fieldMarkers(f *model.Field, af *ast.Field, what string) {
	f.Doc = docLines(af.Doc)
	vals := l.parseMarkers(markerLines(af.Doc, af.Comment), ctmarkers.DescribesField)
	f.ListType = l.listType(vals, f.Pos, what)
	f.ListKeys = vals.strs("listMapKey")
	f.MapType = l.objectType(vals, "mapType", f.Pos, what)
	f.StructType = l.objectType(vals, "structType", f.Pos, what)
	f.Optional = vals.has("optional") || vals.has("kubebuilder:validation:Optional")
	f.HasDefault = vals.has("default") || vals.has("kubebuilder:default")
	switch {
	case vals.has("kubebuilder:validation:XIntOrString"):
		f.IsUntyped, f.Untyped = true, model.ValueUntyped
	case vals.has("kubebuilder:pruning:PreserveUnknownFields"), vals.has("kubebuilder:validation:EmbeddedResource"),
		vals.has("kubebuilder:validation:Schemaless"):
		f.IsUntyped, f.Untyped = true, model.ValueUntypedAny
	}
}

func hasOpt(opts, want string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

func deref(t types.Type) types.Type {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		return types.Unalias(p.Elem())
	}
	return t
}

func embeddedName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.StarExpr:
		return embeddedName(e.X)
	case *ast.IndexExpr:
		return embeddedName(e.X)
	}
	return ""
}

// declOf finds the declaration of a named type: from the syntax of an input
// package, or by parsing the one file of a dependency that declares it.
func (l *loader) declOf(obj *types.TypeName) (*ast.File, *ast.GenDecl, *ast.TypeSpec) {
	if in := l.inputs[obj.Pkg().Path()]; in != nil {
		if td, ok := in.specs[obj.Name()]; ok {
			return td.file, td.decl, td.spec
		}
		return nil, nil, nil
	}
	// Only declarations and comments matter: a private file set keeps
	// positions of the input packages stable.
	f := l.fileAt(obj.Pos())
	if f == nil {
		return nil, nil, nil
	}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			if ts := s.(*ast.TypeSpec); ts.Name.Name == obj.Name() {
				return f, gd, ts
			}
		}
	}
	return f, nil, nil
}
