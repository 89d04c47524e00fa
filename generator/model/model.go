// Package model is ssagen's description of the API types it generates for.
//
// The loader (package load) builds a model once; every emitter only reads it.
// Every question about the input — JSON names, merge semantics from markers,
// which apply configuration a type maps to, source positions — is answered
// here, so emitters never look at go/types, go/ast or comments.
//
// This package must not import go/packages, jennifer or any emitter.
package model

import (
	"fmt"
	"go/token"

	"github.com/ssagen/ssagen/generator/diag"
	"path"
	"strings"
)

// Universe is everything one run of ssagen knows.
type Universe struct {
	// GroupVersions are the input packages, sorted by output package path.
	GroupVersions []*GroupVersion
	// Types holds every named type reachable from an input type, input or
	// external, keyed by TypeName.String(). The schema covers all of them.
	Types map[string]*Type
	// OutputPkg is the import path of the output tree's root.
	OutputPkg string
	// Ensure asks for EnsureX helpers in <group version>/ensure packages.
	Ensure bool
	// Warnings are legal but suspicious constructs of the input, sorted.
	Warnings []diag.Error
	// VendoredWarnings are those about packages of other modules whose
	// builders the run generates for --ensure-kinds: their authors'
	// markers, not the user's to fix.
	VendoredWarnings []diag.Error
	// SMDv4: the module generated code is built in uses
	// structured-merge-diff v4 (k8s.io before v0.34), whose typed package
	// apimachinery's managedfields takes its ParseableType from; v6
	// since (SMDTyped).
	SMDv4 bool
	// NoTypeConverter: the module's client-go predates the type converter
	// utils.go builds (client-go/testing's, v0.31), so utils.go has
	// ForKind alone, as applyconfiguration-gen wrote it then.
	NoTypeConverter bool
	// InlineTag: inline embeds are tagged `json:",inline"`, as
	// applyconfiguration-gen tagged them before k8s.io v0.37
	// (--compat=applyconfiguration-gen in a module below it); `json:""`
	// otherwise.
	InlineTag bool
}

// The typed packages of structured-merge-diff (Universe.SMDTyped).
const (
	SMDTypedV4 = "sigs.k8s.io/structured-merge-diff/v4/typed"
	SMDTypedV6 = "sigs.k8s.io/structured-merge-diff/v6/typed"
)

// SMDTyped is structured-merge-diff's typed package of the module the
// generated code is built in.
func (u *Universe) SMDTyped() string {
	if u.SMDv4 {
		return SMDTypedV4
	}
	return SMDTypedV6
}

// GroupVersion is one input package and its generated output package.
type GroupVersion struct {
	Group, Version string
	PkgPath        string // input package import path
	PkgName        string // input package name
	Dir            string // input package folder
	// External group versions are packages of other modules (k8s.io/api)
	// whose kinds get Ensure helpers only: their builders exist already.
	External bool
	// NoGroup is set for a package that names no group (no +groupName, no
	// +genclient: shared types, a vendored package's reached types): its
	// folder and import alias come from its path, not from "core".
	NoGroup bool
	// CRD is true for kubebuilder-style packages, whose schema the API
	// server gets from controller-gen's CRDs; false for code-generator
	// style (+genclient) packages, whose schema comes from openapi-gen.
	CRD        bool
	OutPkgPath string // output package import path
	OutSubdir  string // output folder relative to the output tree root, slash-separated
	// OutRoot is the import path of the output tree the package is
	// generated into, and OutRootDir its folder: with --output-dir, the one
	// tree of the run; without it, the tree controller-gen writes for the
	// package (<package>/applyconfiguration, or +kubebuilder:ac:output:package).
	OutRoot, OutRootDir string
	// Types are the named struct types of the input package that get an
	// apply configuration, sorted by name.
	Types []*Type
	Pos   token.Position
}

// APIVersion is group/version, or just the version for the core group.
func (gv *GroupVersion) APIVersion() string {
	if gv.Group == "" {
		return gv.Version
	}
	return gv.Group + "/" + gv.Version
}

// Kinds returns the root types of the group version in name order.
func (gv *GroupVersion) Kinds() []*Type {
	var out []*Type
	for _, t := range gv.Types {
		if t.Root != nil {
			out = append(out, t)
		}
	}
	return out
}

// TypeName names a Go type: its package's import path and its name.
type TypeName struct {
	Pkg, Name string
}

func (n TypeName) String() string { return n.Pkg + "." + n.Name }

// SchemaName is the structured-merge-diff type name, spelled as the
// Kubernetes OpenAPI names its definitions (k8s.io/api/core/v1.Pod becomes
// io.k8s.api.core.v1.Pod), so that schemas line up with client-go's.
func (n TypeName) SchemaName() string {
	parts := strings.Split(n.Pkg, "/")
	if strings.Contains(parts[0], ".") {
		host := strings.Split(parts[0], ".")
		for i, j := 0, len(host)-1; i < j; i, j = i+1, j-1 {
			host[i], host[j] = host[j], host[i]
		}
		parts[0] = strings.Join(host, ".")
	}
	return strings.Join(parts, ".") + "." + n.Name
}

// Shape says what a named type is for apply purposes.
type Shape int

const (
	// ShapeStruct is a struct with serialised fields: it gets (or maps to)
	// an apply configuration.
	ShapeStruct Shape = iota
	// ShapeValue is set as a whole and never split into fields: scalars,
	// named scalars, and types with their own JSON encoding (metav1.Time,
	// resource.Quantity, intstr.IntOrString, runtime.RawExtension ...).
	ShapeValue
	// ShapeSlice and ShapeMap are named slice and map types.
	ShapeSlice
	ShapeMap
)

// ValueKind tells the schema how to describe a value type.
type ValueKind int

const (
	ValueUntyped    ValueKind = iota // any JSON scalar (Time, Quantity, IntOrString)
	ValueString                      // string
	ValueNumeric                     // int, float
	ValueBoolean                     // bool
	ValueUntypedAny                  // an object of arbitrary JSON fields (RawExtension, preserve-unknown-fields)
	ValueDeduced                     // any JSON value: scalar, list or object (apiextensions' JSON; OpenAPISchemaType() is nil)
)

// Type is a named Go type.
type Type struct {
	Name TypeName
	Pos  token.Position
	Doc  []string // comment lines without markers and without "//"
	// Shape and, per shape, the details below.
	Shape Shape
	Value ValueKind // ShapeValue
	// Basic is the underlying basic type of a named scalar (type Limit
	// uint64), or "".
	Basic string
	// Elem is the element (ShapeSlice, ShapeMap) or the aliased/underlying
	// type expression.
	Elem *TypeRef
	// Key is the key of a ShapeMap.
	Key *TypeRef
	// KeepRaw keeps a named slice or map of structs as the Go type in apply
	// configurations, as applyconfiguration-gen does
	// (--compat=applyconfiguration-gen); by default it becomes a slice or
	// map of apply configurations.
	KeepRaw bool
	// Fields of a ShapeStruct in declaration order; skipped fields are absent.
	Fields []*Field
	// JSON are the fields encoding/json writes for a ShapeStruct, inline
	// embeddings resolved (ResolveJSON): what setters, the schema and
	// list-map keys are derived from.
	JSON []JSONField
	// Semantics from markers on the type.
	StructType ObjectType // ObjectGranular unless +structType=atomic
	ListType   ListType   // on a named slice type
	ListKeys   []string
	MapType    ObjectType // on a named map type

	// ApplyConfig is the apply configuration type this type maps to, or nil
	// when the type is used as a value. For input types it is generated.
	ApplyConfig *TypeName
	// GV is the input group version this type is generated in, nil for
	// external types.
	GV *GroupVersion
	// From is the name of the type's converter in its apply configuration
	// package (From<Type>), settled against the package's other names; set
	// for generated struct types.
	From string
	// FromObject is, of a generated metav1.ObjectMeta (vendored where the
	// module has no client-go), the converter of an object's own
	// metadata, which leaves out what the API server sets; settled as
	// From is. Published ObjectMeta has it in internal/convert.go.
	FromObject string
	// GoKind is the kind of the Go type underneath: what a converter may
	// compare a value of a ShapeValue type with to know it is empty.
	GoKind GoKind
	// DeepCopy says how a converter copies a value of a type that is not a
	// struct with an apply configuration and holds slices or maps
	// (runtime.RawExtension's Raw, a named slice kept raw): through its
	// DeepCopy method. Values holding neither are copied by assignment.
	DeepCopy DeepCopyKind
	// Root is set for kinds (+kubebuilder:object:root or +genclient with ObjectMeta).
	Root *Root
}

// Generated reports whether ssagen emits an apply configuration for t.
func (t *Type) Generated() bool { return t.GV != nil && t.ApplyConfig != nil }

// metaV1 is the package of ObjectMeta and TypeMeta.
const metaV1 = "k8s.io/apimachinery/pkg/apis/meta/v1"

// ObjectMeta and TypeMeta are apimachinery's metadata types.
var (
	ObjectMeta = TypeName{Pkg: metaV1, Name: "ObjectMeta"}
	TypeMeta   = TypeName{Pkg: metaV1, Name: "TypeMeta"}
)

// EmbedsTypeMeta reports whether t embeds metav1.TypeMeta (a kind, or a
// type that carries its own kind and apiVersion).
func (t *Type) EmbedsTypeMeta() bool {
	for _, f := range t.Fields {
		if r := f.Type.Deref(); f.Embedded && r.Kind == RefNamed && r.Named.Name == TypeMeta {
			return true
		}
	}
	return false
}

// InlinesTypeMeta reports an embedded, inline metav1.TypeMeta that has
// an apply configuration: where a converter sets kind and apiVersion.
func (f *Field) InlinesTypeMeta() bool {
	r := f.Type.Deref()
	return f.Embedded && f.Inline && r.Kind == RefNamed && r.Named.Name == TypeMeta && r.Named.ApplyConfig != nil
}

// ObjectMeta reports a reference to metav1.ObjectMeta (through a
// pointer or not) that has an apply configuration.
func (r *TypeRef) ObjectMeta() bool {
	r = r.Deref()
	return r.Kind == RefNamed && r.Named.Name == ObjectMeta && r.Named.ApplyConfig != nil
}

// Identifies reports whether f, a field of t, is one that names an
// object — ObjectMeta's Name and Namespace, TypeMeta's Kind and
// APIVersion — which apply needs to read back (the getters of apply
// configurations).
func (t *Type) Identifies(f *Field) bool {
	if t.Name.Pkg != metaV1 {
		return false
	}
	return (t.Name.Name == "ObjectMeta" && (f.GoName == "Name" || f.GoName == "Namespace")) ||
		(t.Name.Name == "TypeMeta" && (f.GoName == "Kind" || f.GoName == "APIVersion"))
}

// Root describes a kind.
type Root struct {
	Kind       string
	Namespaced bool
	// Plural is the resource name (+kubebuilder:resource:path, or the kind
	// pluralised as controller-gen does), for RBAC markers.
	Plural string
	// Subresources with an apply configuration extract, sorted: "status"
	// when the kind has a Status field and +kubebuilder:subresource:status
	// (or +genclient without +genclient:noStatus), and those named by
	// +genclient:method=...,subresource=<name>.
	Subresources []string
	// Funcs are the names of the kind's Extract functions, settled against
	// every name of the output package (ExtractWidgetFrom of kind Widget
	// and ExtractWidgetFrom of kind WidgetFrom cannot both exist).
	Funcs RootFuncs
	// Unreflectable are the JSON paths (.spec.limit, .spec.items[*].max)
	// of the kind's values that structured-merge-diff's reflection cannot
	// read — uint64, which it leaves out on purpose — sorted. Code that
	// hands such an object to structured-merge-diff converts it to its
	// unstructured form first.
	Unreflectable []string
}

// RootFuncs names a kind's Extract functions and its status converter.
type RootFuncs struct {
	Extract     string            // Extract<Kind>
	ExtractFrom string            // Extract<Kind>From
	ExtractSub  map[string]string // subresource → Extract<Kind><Subresource>
	// FromEmbedded converts a kind held in another object's field (a
	// template): TypeMeta and status as the object has them
	// (From<Kind>Embedded); emitted where a field holds the kind.
	FromEmbedded string
	// StatusFrom converts an object's status into an apply configuration
	// of the kind for the status subresource (StatusFrom<Kind>); set when
	// the kind has one.
	StatusFrom string
}

// GoKind is the kind of a named type's underlying Go type.
type GoKind uint8

const (
	GoOther     GoKind = iota // array, chan, func: never empty to encoding/json's omitempty but by length (arrays)
	GoBasic                   // bool, numbers, string
	GoStruct                  // never empty to omitempty
	GoSlice                   // empty at length 0
	GoMap                     // empty at length 0
	GoPointer                 // empty when nil
	GoInterface               // empty when nil
)

// DeepCopyKind is how a value type's DeepCopy method returns its copy.
type DeepCopyKind uint8

const (
	DeepCopyNone    DeepCopyKind = iota // copied by assignment
	DeepCopyPointer                     // DeepCopy() *T
	DeepCopyValue                       // DeepCopy() T
)

// Abbrev joins the first n of paths and says how many more there are:
// ".spec.a, .spec.b and 4 more".
func Abbrev(paths []string, n int) string {
	if len(paths) <= n {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:n], ", "), len(paths)-n)
}

// Field is one serialised field of a struct.
type Field struct {
	GoName   string
	JSONName string // empty for inline fields
	// Tagged: the JSON name comes from a json tag (encoding/json prefers a
	// tagged field over an untagged one of the same name and depth).
	Tagged bool
	// HasJSONTag: the field has a json tag, named or not.
	HasJSONTag bool
	Inline     bool // json ",inline", or an untagged embedded struct
	OmitEmpty  bool
	Embedded   bool
	Type       *TypeRef
	Doc        []string
	Pos        token.Position

	Optional   bool
	HasDefault bool
	// Hidden fields are in the schema but get no setter (ObjectMeta's
	// ManagedFields and SelfLink, as in applyconfiguration-gen).
	Hidden bool
	// Setter names the field's With function when it is not With<GoName>:
	// a field at the root of a kind whose Go name a metadata setter has
	// (Labels), whose setter would hide metadata's WithLabels.
	Setter string
	// PatchMerge and PatchMergeKey are the field's patchStrategy:"merge"
	// and patchMergeKey tags. They become list semantics only where the
	// serving API server reads them (built-in APIs, not CRDs).
	PatchMerge    bool
	PatchMergeKey string
	// Merge semantics from markers on the field; Merge resolves them
	// against the field's type and patch tags.
	ListType   ListType
	ListKeys   []string
	MapType    ObjectType
	StructType ObjectType
	// Untyped marks int-or-string, preserve-unknown-fields, embedded-resource
	// and schemaless fields: the schema treats them as arbitrary JSON.
	Untyped   ValueKind
	IsUntyped bool
}

// RefKind says what a type expression is.
type RefKind int

const (
	RefBasic RefKind = iota
	RefNamed
	RefPointer
	RefSlice
	RefMap
	RefInterface // interface{} / any: arbitrary JSON
)

// TypeRef is a type expression as written in a field.
type TypeRef struct {
	Kind  RefKind
	Basic string // Go name of a basic type: string, int32, byte, ...
	Named *Type  // RefNamed
	Elem  *TypeRef
	Key   *TypeRef // RefMap
	// Opaque marks a RefInterface that is not a Go interface (an array, a
	// struct literal, a type in error): never nil, so never compared to it.
	Opaque bool
}

// Deref strips pointers.
func (r *TypeRef) Deref() *TypeRef {
	for r.Kind == RefPointer {
		r = r.Elem
	}
	return r
}

// IsApplyConfig reports whether r (through pointers) is a struct with an
// apply configuration.
func (r *TypeRef) IsApplyConfig() bool {
	d := r.Deref()
	return d.Kind == RefNamed && d.Named.ApplyConfig != nil
}

// Nillable reports whether the Go type is a slice or map (named or not):
// apply configurations hold those without an extra pointer.
func (r *TypeRef) Nillable() bool {
	switch r.Kind {
	case RefSlice, RefMap:
		return true
	}
	return false
}

// OutSubdir is the folder applyconfiguration-gen uses for an input package:
// the last two path elements, lower-cased ("k8s.io/api/rbac/v1" → "rbac/v1").
func OutSubdir(pkgPath string) string {
	dir, ver := path.Split(pkgPath)
	return strings.ToLower(path.Join(path.Base(dir), ver))
}

// RefApply is a TypeRef kind produced by ApplyRef: an apply configuration type.
const RefApply RefKind = 100

// ApplyRef is the type an apply configuration uses for a field of type r:
// structs become their apply configurations, and slices and maps of them,
// named or not, become unnamed slices and maps of apply configurations —
// never the raw struct, whose zero values would be sent and claimed.
// Named collections of values stay as they are (corev1.ResourceList), as
// applyconfiguration-gen leaves them. Pointers are stripped: the caller
// decides about the outer pointer.
func ApplyRef(r *TypeRef) *TypeRef {
	r = r.Deref()
	switch r.Kind {
	case RefNamed:
		t := r.Named
		if t.ApplyConfig != nil {
			return &TypeRef{Kind: RefApply, Named: t}
		}
		switch {
		case t.KeepRaw:
		case t.Shape == ShapeSlice && containsApply(t.Elem, map[*Type]bool{t: true}):
			return &TypeRef{Kind: RefSlice, Elem: ApplyRef(t.Elem)}
		case t.Shape == ShapeMap && containsApply(t.Elem, map[*Type]bool{t: true}):
			return &TypeRef{Kind: RefMap, Key: t.Key, Elem: ApplyRef(t.Elem)}
		}
		return r
	case RefSlice:
		if containsApply(r.Elem, map[*Type]bool{}) {
			return &TypeRef{Kind: RefSlice, Elem: ApplyRef(r.Elem)}
		}
		return r
	case RefMap:
		if containsApply(r.Elem, map[*Type]bool{}) {
			return &TypeRef{Kind: RefMap, Key: r.Key, Elem: ApplyRef(r.Elem)}
		}
		return r
	}
	return r
}

// ContainsApply reports whether r holds a struct with an apply
// configuration: where it does not, the apply configuration holds r's
// own type (pointers kept).
func ContainsApply(r *TypeRef) bool { return containsApply(r, map[*Type]bool{}) }

// containsApply reports whether r holds a struct with an apply
// configuration; seen ends the walk through recursive named collections.
func containsApply(r *TypeRef, seen map[*Type]bool) bool {
	r = r.Deref()
	switch r.Kind {
	case RefNamed:
		t := r.Named
		if t.ApplyConfig != nil {
			return true
		}
		if (t.Shape == ShapeSlice || t.Shape == ShapeMap) && !t.KeepRaw && !seen[t] {
			seen[t] = true
			return containsApply(t.Elem, seen)
		}
	case RefSlice, RefMap:
		return containsApply(r.Elem, seen)
	}
	return false
}

// ListType is a list's merge topology (+listType).
type ListType uint8

const (
	ListUnset  ListType = iota // no marker: atomic, or the patch tags' in OpenAPI
	ListAtomic                 // replaced as a whole
	ListSet                    // items are merged as a set of scalars
	ListMap                    // items are merged by their keys
)

func (l ListType) String() string { return [...]string{"", "atomic", "set", "map"}[l] }

// ParseListType reads a +listType value.
func ParseListType(s string) (ListType, bool) {
	switch s {
	case "atomic":
		return ListAtomic, true
	case "set":
		return ListSet, true
	case "map":
		return ListMap, true
	}
	return ListUnset, false
}

// ObjectType is how a map or struct merges (+mapType, +structType; both
// become x-kubernetes-map-type).
type ObjectType uint8

const (
	ObjectUnset    ObjectType = iota // no marker: granular
	ObjectGranular                   // merged field by field, key by key
	ObjectAtomic                     // replaced as a whole
)

func (o ObjectType) String() string { return [...]string{"", "granular", "atomic"}[o] }

// ParseObjectType reads a +mapType or +structType value.
func ParseObjectType(s string) (ObjectType, bool) {
	switch s {
	case "granular":
		return ObjectGranular, true
	case "atomic":
		return ObjectAtomic, true
	}
	return ObjectUnset, false
}

// Merge is how the API server merges a value: a list's topology and keys,
// a map's or struct's granularity.
type Merge struct {
	List   ListType
	Keys   []string
	Object ObjectType
}

// Or fills what m leaves unset from def: the one precedence rule, a
// field's markers over its type's.
func (m Merge) Or(def Merge) Merge {
	if m.List == ListUnset {
		m.List = def.List
		if len(m.Keys) == 0 {
			m.Keys = def.Keys
		}
	}
	if m.Object == ObjectUnset {
		m.Object = def.Object
	}
	return m
}

// Merge is the type's own semantics (markers on a named slice or map).
func (t *Type) Merge() Merge {
	switch t.Shape {
	case ShapeSlice:
		return Merge{List: t.ListType, Keys: t.ListKeys}
	case ShapeMap:
		return Merge{Object: t.MapType}
	}
	return Merge{}
}

// Merge is how the API server merges field f, in a CRD (crd) or served
// from OpenAPI: the field's markers; else, outside CRDs, its patch tags
// (patchStrategy "merge" with a patchMergeKey is a list-map, without one a
// set); else its named collection type's markers. Schema and validation
// both read this; nothing else decides it.
func (f *Field) Merge(crd bool) Merge {
	m := Merge{List: f.ListType, Keys: f.ListKeys, Object: f.ObjectType()}
	if m.List == ListUnset && !crd && f.PatchMerge {
		m.List, m.Keys = ListSet, nil
		if f.PatchMergeKey != "" {
			m.List, m.Keys = ListMap, []string{f.PatchMergeKey}
		}
	}
	if r := f.Type.Deref(); r.Kind == RefNamed {
		m = m.Or(r.Named.Merge())
	}
	return m
}

// RecursiveCollection reports whether a named slice or map type holds
// itself through the elements of slices and maps (type Tree
// map[string]Tree), and whether a list is on the way.
func (t *Type) RecursiveCollection() (recursive, throughList bool) {
	if t.Shape != ShapeSlice && t.Shape != ShapeMap {
		return false, false
	}
	throughList = t.Shape == ShapeSlice
	seen := map[*Type]bool{}
	for r := t.Elem; r != nil; {
		r = r.Deref()
		switch r.Kind {
		case RefSlice, RefMap:
			throughList = throughList || r.Kind == RefSlice
			r = r.Elem
			continue
		case RefNamed:
			n := r.Named
			if n == t {
				return true, throughList
			}
			if (n.Shape == ShapeSlice || n.Shape == ShapeMap) && !seen[n] {
				seen[n] = true
				throughList = throughList || n.Shape == ShapeSlice
				r = n.Elem
				continue
			}
		}
		return false, false
	}
	return false, false
}

// ObjectType is the field's x-kubernetes-map-type: +mapType and
// +structType are two spellings of it, for maps and structs alike.
func (f *Field) ObjectType() ObjectType {
	if f.MapType != ObjectUnset {
		return f.MapType
	}
	return f.StructType
}

// SetterName is the name of f's With function, without "With".
func (f *Field) SetterName() string {
	if f.Setter != "" {
		return f.Setter
	}
	return f.GoName
}
