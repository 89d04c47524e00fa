package want

// The builders of ../input's legal-but-tricky constructs send exactly the
// JSON encoding/json writes for the same Go value, and the schema has the
// semantics controller-gen writes into the CRD. Run by `go test
// ./generator/...` through generator_test's TestGoldenBehaviour.

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/schema"

	legal "github.com/ssagen/ssagen/generator/testdata/legal/input"
	"github.com/ssagen/ssagen/generator/testdata/legal/want/internal"
	ac "github.com/ssagen/ssagen/generator/testdata/legal/want/legal/input"
)

// sameJSON checks that the builder's JSON decodes into the Go type as
// exactly goValue: every field the builder sets arrives in the field
// encoding/json reads it into, and nothing else is sent.
func sameJSON[T any](t *testing.T, name string, builder any, goValue T) {
	t.Helper()
	got, err := json.Marshal(builder)
	if err != nil {
		t.Fatalf("%s: builder: %v", name, err)
	}
	// No test value is a zero value: a zero in the JSON is an unset field
	// sent anyway, which would claim ownership of it.
	for _, zero := range []string{`:0`, `:""`, `:false`, `:null`} {
		if strings.Contains(string(got), zero) {
			t.Errorf("%s: builder sends a zero value (%s) in %s", name, zero, got)
		}
	}
	var back T
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("%s: the builder's JSON %s does not decode: %v", name, got, err)
	}
	if !reflect.DeepEqual(back, goValue) {
		want, _ := json.Marshal(goValue)
		t.Errorf("%s: builder sends %s, which decodes as %+v; want %+v (encoding/json: %s)", name, got, back, goValue, want)
	}
}

func TestBuildersWriteWhatEncodingJSONWrites(t *testing.T) {
	sameJSON(t, "shadowed inline field", ac.Shadow().WithTitle("outer").WithInner("in"),
		legal.Shadow{Title: "outer", Named: legal.Named{Inner: "in"}})
	sameJSON(t, "named list of structs", ac.WidgetSpec().WithItems(ac.Item().WithName("a"), ac.Item().WithName("b").WithPort(80)),
		legal.WidgetSpec{Items: legal.Items{{Name: "a"}, {Name: "b", Port: 80}}})
	sameJSON(t, "named map of structs", ac.WidgetSpec().WithSubs(map[string]ac.SubApplyConfiguration{"x": *ac.Sub().WithValue("v")}),
		legal.WidgetSpec{Subs: legal.SubMap{"x": {Value: "v"}}})
	sameJSON(t, "recursive map", ac.WidgetSpec().WithTree(legal.Tree{"a": {"b": {}}}), legal.WidgetSpec{Tree: legal.Tree{"a": {"b": {}}}})
	sameJSON(t, "schemaless", ac.WidgetSpec().WithAny(map[string]any{"k": []any{1.0}}).WithFree("x"),
		legal.WidgetSpec{Any: map[string]any{"k": []any{1.0}}, Free: "x"})
	sameJSON(t, "k8s:listType", ac.WidgetSpec().WithPorts(ac.Item().WithName("p")), legal.WidgetSpec{Ports: []legal.Item{{Name: "p"}}})
	sameJSON(t, "raw extension", ac.WidgetSpec().WithRaw(runtime.RawExtension{Raw: []byte(`{"a":1}`)}), legal.WidgetSpec{Raw: runtime.RawExtension{Raw: []byte(`{"a":1}`)}})
}

// TestHiddenFieldSetter: Named.Name is hidden by Shadow.Title (both
// "name"). Go would promote NamedApplyConfiguration.WithName, which sets a
// field never sent; Shadow's own WithName sets what is sent as "name".
func TestHiddenFieldSetter(t *testing.T) {
	sameJSON(t, "promoted setter of a hidden field", ac.Shadow().WithName("n"), legal.Shadow{Title: "n"})
}

func field(t *testing.T, typeName, name string) schema.TypeRef {
	t.Helper()
	s := internal.Parser().Type(typeName).Schema
	atom, ok := s.Resolve(internal.Parser().Type(typeName).TypeRef)
	if !ok || atom.Map == nil {
		t.Fatalf("%s is not a struct in the schema", typeName)
	}
	f, ok := atom.Map.FindField(name)
	if !ok {
		t.Fatalf("%s has no field %s", typeName, name)
	}
	return f.Type
}

func list(t *testing.T, typeName, name string) *schema.List {
	t.Helper()
	tr := field(t, typeName, name)
	atom, ok := internal.Parser().Type(typeName).Schema.Resolve(tr)
	if !ok || atom.List == nil {
		t.Fatalf("%s.%s is not a list", typeName, name)
	}
	return atom.List
}

// TestSchemaAsTheCRDHasIt: the semantics the API server merges by for
// these fields of a CRD written by controller-gen.
func TestSchemaAsTheCRDHasIt(t *testing.T) {
	const spec = "com.github.ssagen.ssagen.generator.testdata.legal.input.WidgetSpec"
	if l := list(t, spec, "env"); l.ElementRelationship != schema.Atomic {
		t.Errorf("env (patch tags, no +listType) is %s; controller-gen's CRD makes it atomic", l.ElementRelationship)
	}
	for _, name := range []string{"items", "ports"} {
		if l := list(t, spec, name); l.ElementRelationship != schema.Associative || len(l.Keys) != 1 || l.Keys[0] != "name" {
			t.Errorf("%s is %s keyed by %v; want a map keyed by name", name, l.ElementRelationship, l.Keys)
		}
	}
	if raw := field(t, spec, "raw"); raw.NamedType == nil || *raw.NamedType != "__untyped_deduced_" {
		t.Errorf("raw is %v; a CRD's RawExtension preserves unknown fields, merged field by field", raw)
	}
}

// TestExtractKeepsAnAtomicList: managedFields that own spec.env as a whole
// (as the API server records an atomic list) extract the whole list.
func TestExtractKeepsAnAtomicList(t *testing.T) {
	w := &legal.Widget{
		TypeMeta: metav1.TypeMeta{APIVersion: "legal.example.com/input", Kind: "Widget"},
		ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "ns", ManagedFields: []metav1.ManagedFieldsEntry{{
			Manager: "m", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "legal.example.com/input", FieldsType: "FieldsV1",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:env":{}}}`)},
		}}},
		Spec: legal.WidgetSpec{Env: []legal.Env{{Name: "A", Value: "1"}}},
	}
	got, err := ac.ExtractWidget(w, "m")
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec == nil || len(got.Spec.Env) != 1 || *got.Spec.Env[0].Name != "A" || *got.Spec.Env[0].Value != "1" {
		b, _ := json.Marshal(got)
		t.Fatalf("extracted %s; want spec.env with its one item", b)
	}
}

// TestCollidingNamesCompile: kinds Widget and WidgetFrom both want
// ExtractWidgetFrom; the kind's own Extract keeps the name.
func TestCollidingNamesCompile(t *testing.T) {
	var _ func(*legal.WidgetFrom, string) (*ac.WidgetFromApplyConfiguration, error) = ac.ExtractWidgetFrom
	var _ func(*legal.Widget, string, string) (*ac.WidgetApplyConfiguration, error) = ac.ExtractWidgetFromSubresource
	var _ func(*legal.FieldManager, string) (*ac.FieldManagerApplyConfiguration, error) = ac.ExtractFieldManager
}
