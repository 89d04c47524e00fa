package schema

import (
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/ssagen/ssagen/generator/model"
)

// universe is a CRD kind's spec: a list of items merged by name, a map of
// labels merged key by key, a list without a marker (atomic), and a struct
// marked atomic.
func universe() (*model.Universe, string) {
	str := &model.TypeRef{Kind: model.RefBasic, Basic: "string"}
	gv := &model.GroupVersion{Group: "example.com", Version: "v1", CRD: true}
	item := &model.Type{Name: model.TypeName{Pkg: "example.com/api/v1", Name: "Item"}, Shape: model.ShapeStruct, GV: gv,
		Fields: []*model.Field{
			{GoName: "Name", JSONName: "name", Tagged: true, HasJSONTag: true, Type: str},
			{GoName: "Value", JSONName: "value", Tagged: true, HasJSONTag: true, Type: str},
		}}
	box := &model.Type{Name: model.TypeName{Pkg: "example.com/api/v1", Name: "Box"}, Shape: model.ShapeStruct, GV: gv, StructType: model.ObjectAtomic,
		Fields: []*model.Field{
			{GoName: "A", JSONName: "a", Tagged: true, HasJSONTag: true, Type: str},
			{GoName: "B", JSONName: "b", Tagged: true, HasJSONTag: true, Type: str},
		}}
	itemRef := &model.TypeRef{Kind: model.RefNamed, Named: item}
	spec := &model.Type{Name: model.TypeName{Pkg: "example.com/api/v1", Name: "Spec"}, Shape: model.ShapeStruct, GV: gv,
		Fields: []*model.Field{
			{GoName: "Items", JSONName: "items", Tagged: true, HasJSONTag: true, ListType: model.ListMap, ListKeys: []string{"name"},
				Type: &model.TypeRef{Kind: model.RefSlice, Elem: itemRef}},
			{GoName: "Labels", JSONName: "labels", Tagged: true, HasJSONTag: true, Type: &model.TypeRef{Kind: model.RefMap, Key: str, Elem: str}},
			{GoName: "Args", JSONName: "args", Tagged: true, HasJSONTag: true, Type: &model.TypeRef{Kind: model.RefSlice, Elem: str}},
			{GoName: "Box", JSONName: "box", Tagged: true, HasJSONTag: true, Type: &model.TypeRef{Kind: model.RefPointer, Elem: &model.TypeRef{Kind: model.RefNamed, Named: box}}},
		}}
	u := &model.Universe{Types: map[string]*model.Type{}}
	for _, t := range []*model.Type{item, box, spec} {
		t.JSON, _ = model.ResolveJSON(t) // as the loader settles them
		u.Types[t.Name.String()] = t
	}
	return u, spec.Name.SchemaName()
}

// TestMergeSemantics: what the schema says is how apply merges — checked
// by structured-merge-diff itself, merging one manager's object into
// another's.
func TestMergeSemantics(t *testing.T) {
	u, specName := universe()
	yml, err := YAML(u)
	if err != nil {
		t.Fatal(err)
	}
	parser, err := typed.NewParser(typed.YAMLObject(yml))
	if err != nil {
		t.Fatalf("the schema does not parse: %v\n%s", err, yml)
	}
	pt := parser.Type(specName)
	live, err := pt.FromUnstructured(map[string]any{
		"items":  []any{map[string]any{"name": "a", "value": "1"}},
		"labels": map[string]any{"x": "1"},
		"args":   []any{"one", "two"},
		"box":    map[string]any{"a": "1", "b": "2"},
	})
	if err != nil {
		t.Fatal(err)
	}
	applied, err := pt.FromUnstructured(map[string]any{
		"items":  []any{map[string]any{"name": "b", "value": "2"}},
		"labels": map[string]any{"y": "2"},
		"args":   []any{"three"},
		"box":    map[string]any{"a": "9"},
	})
	if err != nil {
		t.Fatal(err)
	}
	merged, err := live.Merge(applied)
	if err != nil {
		t.Fatal(err)
	}
	got := merged.AsValue().Unstructured().(map[string]any)
	if items := got["items"].([]any); len(items) != 2 {
		t.Errorf("items %v: a list-map keeps both keys", items)
	}
	if labels := got["labels"].(map[string]any); len(labels) != 2 {
		t.Errorf("labels %v: a granular map keeps both keys", labels)
	}
	if args := got["args"].([]any); len(args) != 1 || args[0] != "three" {
		t.Errorf("args %v: a list without a marker is atomic in a CRD", args)
	}
	if box := got["box"].(map[string]any); len(box) != 1 || box["a"] != "9" {
		t.Errorf("box %v: an atomic struct is replaced whole", box)
	}
}

// TestDeterministic: the same universe gives the same bytes.
func TestDeterministic(t *testing.T) {
	u, _ := universe()
	a, err := YAML(u)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		u, _ := universe()
		b, err := YAML(u)
		if err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Fatalf("run %d differs:\n%s\n---\n%s", i, a, b)
		}
	}
}
