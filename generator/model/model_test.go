package model

import (
	"reflect"
	"testing"
)

func TestOutSubdir(t *testing.T) {
	for in, want := range map[string]string{
		"k8s.io/api/rbac/v1":                      "rbac/v1",
		"example.com/op/api/V1Alpha1":             "api/v1alpha1",
		"sigs.k8s.io/gateway-api/apis/v1":         "apis/v1",
		"github.com/envoyproxy/gateway/api/v1a1":  "api/v1a1",
		"example.com/shared":                      "example.com/shared",
		"github.com/x/y/pkg/common/v1alpha2/more": "v1alpha2/more",
	} {
		if got := OutSubdir(in); got != want {
			t.Errorf("OutSubdir(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseMarkers(t *testing.T) {
	for s, want := range map[string]ListType{"atomic": ListAtomic, "set": ListSet, "map": ListMap} {
		if got, ok := ParseListType(s); !ok || got != want || got.String() != s {
			t.Errorf("ParseListType(%q) = %v, %v", s, got, ok)
		}
	}
	if _, ok := ParseListType("Map"); ok {
		t.Error("ParseListType accepts Map: markers are case-sensitive, as controller-gen's")
	}
	for s, want := range map[string]ObjectType{"granular": ObjectGranular, "atomic": ObjectAtomic} {
		if got, ok := ParseObjectType(s); !ok || got != want || got.String() != s {
			t.Errorf("ParseObjectType(%q) = %v, %v", s, got, ok)
		}
	}
	if _, ok := ParseObjectType("set"); ok {
		t.Error("ParseObjectType accepts set")
	}
}

// TestApplyRef: structs become their apply configurations, collections of
// them (named or not) unnamed collections of apply configurations, and
// collections of values (ResourceList) and raw-kept ones stay as they are;
// pointers are stripped and a recursive named collection ends.
func TestApplyRef(t *testing.T) {
	str := &TypeRef{Kind: RefBasic, Basic: "string"}
	spec := &Type{Name: TypeName{Pkg: "p", Name: "Spec"}, Shape: ShapeStruct, ApplyConfig: &TypeName{Pkg: "ac", Name: "SpecApplyConfiguration"}}
	specRef := &TypeRef{Kind: RefNamed, Named: spec}
	values := &Type{Name: TypeName{Pkg: "p", Name: "ResourceList"}, Shape: ShapeMap, Key: str, Elem: str}
	specs := &Type{Name: TypeName{Pkg: "p", Name: "Specs"}, Shape: ShapeSlice, Elem: specRef}
	raw := &Type{Name: TypeName{Pkg: "p", Name: "RawSpecs"}, Shape: ShapeSlice, Elem: specRef, KeepRaw: true}
	loop := &Type{Name: TypeName{Pkg: "p", Name: "Loop"}, Shape: ShapeMap, Key: str}
	loop.Elem = &TypeRef{Kind: RefNamed, Named: loop}

	cases := []struct {
		name string
		in   *TypeRef
		want *TypeRef
	}{
		{"pointer to struct", &TypeRef{Kind: RefPointer, Elem: specRef}, &TypeRef{Kind: RefApply, Named: spec}},
		{"slice of structs", &TypeRef{Kind: RefSlice, Elem: specRef}, &TypeRef{Kind: RefSlice, Elem: &TypeRef{Kind: RefApply, Named: spec}}},
		{"map of pointers to structs", &TypeRef{Kind: RefMap, Key: str, Elem: &TypeRef{Kind: RefPointer, Elem: specRef}},
			&TypeRef{Kind: RefMap, Key: str, Elem: &TypeRef{Kind: RefApply, Named: spec}}},
		{"named slice of structs", &TypeRef{Kind: RefNamed, Named: specs}, &TypeRef{Kind: RefSlice, Elem: &TypeRef{Kind: RefApply, Named: spec}}},
		{"named map of values", &TypeRef{Kind: RefNamed, Named: values}, &TypeRef{Kind: RefNamed, Named: values}},
		{"raw-kept named slice", &TypeRef{Kind: RefNamed, Named: raw}, &TypeRef{Kind: RefNamed, Named: raw}},
		{"recursive named map", &TypeRef{Kind: RefNamed, Named: loop}, &TypeRef{Kind: RefNamed, Named: loop}},
		{"basic", str, str},
	}
	for _, c := range cases {
		if got := ApplyRef(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: ApplyRef = %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestResolveJSON: encoding/json's rules whatever the declaration order —
// the shallower field wins, then the tagged one; two left tied hide each
// other and are reported; an embed cycle ends.
func TestResolveJSON(t *testing.T) {
	field := func(goName, json string, tagged bool) *Field {
		return &Field{GoName: goName, JSONName: json, Tagged: tagged, Type: &TypeRef{Kind: RefBasic, Basic: "string"}}
	}
	inline := func(t *Type) *Field {
		return &Field{GoName: t.Name.Name, Inline: true, Embedded: true, Type: &TypeRef{Kind: RefNamed, Named: t}}
	}
	inner := &Type{Name: TypeName{Name: "Inner"}, Shape: ShapeStruct, Fields: []*Field{field("Name", "name", true), field("Deep", "deep", true)}}
	a := &Type{Name: TypeName{Name: "A"}, Shape: ShapeStruct, Fields: []*Field{field("Tie", "tie", true)}}
	b := &Type{Name: TypeName{Name: "B"}, Shape: ShapeStruct, Fields: []*Field{field("Tie", "tie", true), field("Weak", "weak", false)}}
	c := &Type{Name: TypeName{Name: "C"}, Shape: ShapeStruct, Fields: []*Field{field("Strong", "weak", true)}}
	outer := &Type{Name: TypeName{Name: "Outer"}, Shape: ShapeStruct,
		Fields: []*Field{inline(inner), field("Name", "name", true), inline(a), inline(b), inline(c)}}
	inner.Fields = append(inner.Fields, inline(outer)) // a cycle

	fields, ambiguous := ResolveJSON(outer)
	got := map[string]string{}
	for _, f := range fields {
		got[f.JSONName] = f.GoName
		if f.JSONName == "deep" && f.Depth() != 1 {
			t.Errorf("deep reached at depth %d, want 1", f.Depth())
		}
	}
	want := map[string]string{"name": "Name", "deep": "Deep", "weak": "Strong"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fields %v, want %v", got, want)
	}
	for _, f := range fields {
		if f.JSONName == "name" && (f.Field != outer.Fields[1] || f.Depth() != 0) {
			t.Errorf("name resolved to %s at depth %d, want Outer's own field (shallowest)", f.GoName, f.Depth())
		}
	}
	if fields[0].JSONName != "deep" || fields[1].JSONName != "name" {
		t.Errorf("order %s, %s: want encoding/json's, by index sequence (Inner.Deep is [0 1], Name [1])", fields[0].JSONName, fields[1].JSONName)
	}
	if len(ambiguous) != 1 || len(ambiguous[0]) != 2 || ambiguous[0][0].JSONName != "tie" {
		t.Errorf("ambiguous = %+v, want the two tie fields", ambiguous)
	}
}
