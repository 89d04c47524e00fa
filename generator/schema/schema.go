// Package schema derives the structured-merge-diff schema of the model's
// types: what Extract functions parse managedFields against, without the
// openapi-gen detour applyconfiguration-gen needs.
//
// Merge semantics follow the Kubernetes OpenAPI conversion
// (k8s.io/kube-openapi/pkg/schemaconv): lists are atomic unless marked,
// maps and structs are granular unless marked, patch merge keys of
// built-in types become associative lists.
//
// This package reads only the model.
package schema

import (
	"fmt"
	"sort"

	yaml "go.yaml.in/yaml/v2"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"

	"github.com/ssagen/ssagen/generator/model"
)

const (
	rawExtension   = "k8s.io/apimachinery/pkg/runtime.RawExtension"
	untypedAtomic  = "__untyped_atomic_"
	untypedDeduced = "__untyped_deduced_"
)

// YAML returns the schema of every type in the universe as YAML, sorted by
// type name so that the bytes are stable.
func YAML(u *model.Universe) (string, error) {
	s := Build(u)
	b, err := yaml.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("marshalling schema: %w", err)
	}
	return string(b), nil
}

// Build returns the schema of every type in the universe.
func Build(u *model.Universe) *smdschema.Schema {
	b := &builder{defs: map[string]smdschema.TypeDef{}, differs: map[*model.Type]bool{}}
	names := make([]string, 0, len(u.Types))
	for k := range u.Types {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		b.define(u.Types[k])
	}
	out := &smdschema.Schema{}
	defNames := make([]string, 0, len(b.defs))
	for n := range b.defs {
		defNames = append(defNames, n)
	}
	sort.Strings(defNames)
	for _, n := range defNames {
		out.Types = append(out.Types, b.defs[n])
	}
	out.Types = append(out.Types, untypedDefs()...)
	return out
}

type builder struct {
	defs map[string]smdschema.TypeDef
	// crd is set while a struct described by a CRD is defined: its fields
	// get the semantics controller-gen writes into the CRD.
	crd bool
	// differs memoizes differsInCRD.
	differs map[*model.Type]bool
}

// define adds a named definition for struct and value types; named
// scalars, slices and maps are inlined where used.
func (b *builder) define(t *model.Type) {
	name := t.Name.SchemaName()
	if _, ok := b.defs[name]; ok {
		return
	}
	switch t.Shape {
	case model.ShapeStruct:
		b.defineStruct(name, t, t.StructType)
	case model.ShapeValue:
		if t.Value == model.ValueUntyped || t.Value == model.ValueUntypedAny || t.Value == model.ValueDeduced {
			b.defs[name] = smdschema.TypeDef{Name: name, Atom: valueAtom(t.Value)}
		}
	}
}

// crdSuffix names the definition of an external type as a CRD has it.
const crdSuffix = ".crd"

// defineStruct adds a struct's definition. A placeholder goes in first:
// types may be recursive.
func (b *builder) defineStruct(name string, t *model.Type, structType model.ObjectType) {
	b.defs[name] = smdschema.TypeDef{Name: name}
	b.defs[name] = smdschema.TypeDef{Name: name, Atom: b.structAtom(t, structType, t.GV != nil && t.GV.CRD)}
}

// atomicVariant names (and defines once) the atomic form of a struct that
// a +structType=atomic field makes atomic.
func (b *builder) atomicVariant(t *model.Type, base string, crd bool) string {
	name := base + ".atomic"
	if _, ok := b.defs[name]; !ok {
		b.defs[name] = smdschema.TypeDef{Name: name}
		b.defs[name] = smdschema.TypeDef{Name: name, Atom: b.structAtom(t, model.ObjectAtomic, crd)}
	}
	return name
}

// structAtom is a struct's atom; crd says whether the struct is described
// by a CRD (controller-gen's semantics) or by OpenAPI (openapi-gen's).
func (b *builder) structAtom(t *model.Type, structType model.ObjectType, crd bool) smdschema.Atom {
	m := &smdschema.Map{}
	// In a CRD an inline embedded atomic struct makes its parent atomic:
	// controller-gen flattens the embedded schema, map type included, and
	// the API server merges by that schema. openapi-gen does not.
	prev := b.crd
	b.crd = crd
	defer func() { b.crd = prev }()
	if structType == model.ObjectAtomic || (crd && inlinesAtomic(t, map[*model.Type]bool{})) {
		m.ElementRelationship = smdschema.Atomic
	}
	fields := map[string]smdschema.StructField{}
	b.collectFields(t, fields)
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m.Fields = append(m.Fields, fields[n])
	}
	if len(names) == 0 {
		// An object without properties: the OpenAPI conversion (built-in
		// APIs and CRDs alike) deduces its content.
		m.ElementType = smdschema.TypeRef{Inlined: deducedAtom()}
	}
	return smdschema.Atom{Map: m}
}

// collectFields lists the fields encoding/json writes, inline embedded
// structs flattened into their parent (model.ResolveJSON).
func (b *builder) collectFields(t *model.Type, out map[string]smdschema.StructField) {
	for _, f := range t.JSON {
		out[f.JSONName] = smdschema.StructField{Name: f.JSONName, Type: b.fieldRef(f.Field)}
	}
}

func (b *builder) fieldRef(f *model.Field) smdschema.TypeRef {
	if f.IsUntyped {
		if f.Untyped == model.ValueUntypedAny {
			return named(untypedDeduced)
		}
		return smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(smdschema.Untyped)}}
	}
	return b.ref(f.Type, f.Merge(b.crd))
}

// ref is the schema of a type expression merged as sem says (a field's
// model.Field.Merge; nothing for list items and map values).
func (b *builder) ref(r *model.TypeRef, sem model.Merge) smdschema.TypeRef {
	r = r.Deref()
	switch r.Kind {
	case model.RefBasic:
		return smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(basicScalar(r.Basic))}}
	case model.RefInterface:
		return named(untypedDeduced)
	case model.RefSlice:
		if r.Elem.Kind == model.RefBasic && (r.Elem.Basic == "byte" || r.Elem.Basic == "uint8") {
			return smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(smdschema.String)}}
		}
		return smdschema.TypeRef{Inlined: smdschema.Atom{List: b.list(r.Elem, sem)}}
	case model.RefMap:
		return smdschema.TypeRef{Inlined: smdschema.Atom{Map: b.mapOf(r.Elem, sem)}}
	case model.RefNamed:
		t := r.Named
		switch t.Shape {
		case model.ShapeStruct:
			if b.crd && t.GV == nil && b.differsInCRD(t) {
				// An external type (corev1.PodTemplateSpec) inside a CRD: the
				// CRD carries controller-gen's semantics for it, which are not
				// its OpenAPI ones, so it gets a definition of its own.
				name := t.Name.SchemaName() + crdSuffix
				if _, ok := b.defs[name]; !ok {
					b.defs[name] = smdschema.TypeDef{Name: name}
					b.defs[name] = smdschema.TypeDef{Name: name, Atom: b.structAtom(t, t.StructType, true)}
				}
				if sem.Object == model.ObjectAtomic && t.StructType != model.ObjectAtomic {
					return named(b.atomicVariant(t, name, true))
				}
				return named(name)
			}
			b.define(t)
			if sem.Object == model.ObjectAtomic && t.StructType != model.ObjectAtomic {
				return named(b.atomicVariant(t, t.Name.SchemaName(), t.GV != nil && t.GV.CRD))
			}
			return named(t.Name.SchemaName())
		case model.ShapeValue:
			switch t.Value {
			case model.ValueString:
				return smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(smdschema.String)}}
			case model.ValueNumeric:
				return smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(smdschema.Numeric)}}
			case model.ValueBoolean:
				return smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(smdschema.Boolean)}}
			}
			if t.Name.String() == rawExtension {
				if b.crd {
					// controller-gen writes an object that preserves unknown
					// fields: the API server merges it field by field.
					return named(untypedDeduced)
				}
				// An embedded object replaced as a whole, as the Kubernetes
				// OpenAPI conversion treats RawExtension fields.
				return named(untypedAtomic)
			}
			b.define(t)
			return named(t.Name.SchemaName())
		case model.ShapeSlice, model.ShapeMap:
			sem = sem.Or(t.Merge())
			if recursive, _ := t.RecursiveCollection(); !recursive {
				return smdschema.TypeRef{Inlined: b.collection(t, sem)}
			}
			// A collection of itself (type Tree map[string]Tree) cannot be
			// inlined: it gets a definition of its own.
			name := t.Name.SchemaName()
			if _, ok := b.defs[name]; !ok {
				b.defs[name] = smdschema.TypeDef{Name: name}
				b.defs[name] = smdschema.TypeDef{Name: name, Atom: b.collection(t, t.Merge())}
			}
			return named(name)
		}
	}
	return named(untypedDeduced)
}

// collection is the atom of a named slice or map type.
func (b *builder) collection(t *model.Type, sem model.Merge) smdschema.Atom {
	if t.Shape == model.ShapeSlice {
		return smdschema.Atom{List: b.list(t.Elem, sem)}
	}
	return smdschema.Atom{Map: b.mapOf(t.Elem, sem)}
}

func (b *builder) list(elem *model.TypeRef, sem model.Merge) *smdschema.List {
	l := &smdschema.List{ElementType: b.ref(elem, model.Merge{}), ElementRelationship: smdschema.Atomic}
	switch sem.List {
	case model.ListSet:
		l.ElementRelationship = smdschema.Associative
	case model.ListMap:
		l.ElementRelationship = smdschema.Associative
		l.Keys = append([]string(nil), sem.Keys...)
	}
	return l
}

func (b *builder) mapOf(elem *model.TypeRef, sem model.Merge) *smdschema.Map {
	m := &smdschema.Map{ElementType: b.ref(elem, model.Merge{})}
	if sem.Object == model.ObjectAtomic {
		m.ElementRelationship = smdschema.Atomic
	}
	return m
}

func basicScalar(name string) smdschema.Scalar {
	switch name {
	case "string":
		return smdschema.String
	case "bool":
		return smdschema.Boolean
	}
	return smdschema.Numeric
}

func valueAtom(v model.ValueKind) smdschema.Atom {
	if v == model.ValueDeduced {
		return deducedAtom()
	}
	if v == model.ValueUntypedAny {
		// An object of arbitrary fields, each deduced from its value.
		return smdschema.Atom{Map: &smdschema.Map{ElementType: smdschema.TypeRef{Inlined: deducedAtom()}}}
	}
	return smdschema.Atom{Scalar: ptr(smdschema.Untyped)}
}

func deducedAtom() smdschema.Atom {
	return smdschema.Atom{
		Scalar: ptr(smdschema.Untyped),
		List:   &smdschema.List{ElementType: named(untypedAtomic), ElementRelationship: smdschema.Atomic},
		Map:    &smdschema.Map{ElementType: named(untypedDeduced), ElementRelationship: smdschema.Separable},
	}
}

// untypedDefs are the two definitions every Kubernetes schema ends with.
func untypedDefs() []smdschema.TypeDef {
	return []smdschema.TypeDef{
		{Name: untypedAtomic, Atom: smdschema.Atom{
			Scalar: ptr(smdschema.Untyped),
			List:   &smdschema.List{ElementType: named(untypedAtomic), ElementRelationship: smdschema.Atomic},
			Map:    &smdschema.Map{ElementType: named(untypedAtomic), ElementRelationship: smdschema.Atomic},
		}},
		{Name: untypedDeduced, Atom: deducedAtom()},
	}
}

func named(n string) smdschema.TypeRef { return smdschema.TypeRef{NamedType: &n} }

func ptr[T any](v T) *T { return &v }

func inlinesAtomic(t *model.Type, seen map[*model.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	for _, f := range t.Fields {
		if r := f.Type.Deref(); f.Inline && r.Kind == model.RefNamed {
			if r.Named.StructType == model.ObjectAtomic || inlinesAtomic(r.Named, seen) {
				return true
			}
		}
	}
	return false
}

// differsInCRD reports whether an external struct's semantics inside a CRD
// differ from its OpenAPI ones anywhere below it: an inline embedded
// atomic struct (controller-gen makes the parent atomic), a list stated by
// patch tags only (atomic in a CRD), or a RawExtension (granular in a CRD).
func (b *builder) differsInCRD(t *model.Type) bool {
	if d, ok := b.differs[t]; ok {
		return d
	}
	b.differs[t] = false // cycles add nothing
	d := inlinesAtomic(t, map[*model.Type]bool{}) && t.StructType != model.ObjectAtomic
	for _, f := range t.Fields {
		if d {
			break
		}
		if f.Merge(false).List != f.Merge(true).List {
			d = true
			break
		}
		d = b.refDiffersInCRD(f.Type, map[*model.Type]bool{})
	}
	b.differs[t] = d
	return d
}

func (b *builder) refDiffersInCRD(r *model.TypeRef, seen map[*model.Type]bool) bool {
	r = r.Deref()
	switch r.Kind {
	case model.RefSlice, model.RefMap:
		return b.refDiffersInCRD(r.Elem, seen)
	case model.RefNamed:
		t := r.Named
		switch {
		case t.Name.String() == rawExtension:
			return true
		case t.Shape == model.ShapeStruct && t.GV == nil:
			return b.differsInCRD(t)
		case (t.Shape == model.ShapeSlice || t.Shape == model.ShapeMap) && !seen[t]:
			seen[t] = true
			return b.refDiffersInCRD(t.Elem, seen)
		}
	}
	return false
}
