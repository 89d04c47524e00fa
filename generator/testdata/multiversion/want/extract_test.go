package want

// Extract on a tree with two versions: each version's Extract must return
// exactly the fields one field manager applied, with managedFields written
// by structured-merge-diff's own apply (the code the API server runs).
// Run by `go test ./generator/...` through generator_test's TestGoldenBehaviour.

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	multiv1 "github.com/ssagen/ssagen/generator/testdata/multiversion/input/v1"
	multiv2 "github.com/ssagen/ssagen/generator/testdata/multiversion/input/v2"
	v1ac "github.com/ssagen/ssagen/generator/testdata/multiversion/want/input/v1"
	v2ac "github.com/ssagen/ssagen/generator/testdata/multiversion/want/input/v2"
	"github.com/ssagen/ssagen/generator/testdata/multiversion/want/internal"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
)

// applyAll applies each manager's configuration in order with
// structured-merge-diff and returns the merged object's JSON and its
// managedFields.
func applyAll(t *testing.T, typeName, apiVersion string, configs []struct {
	manager string
	config  any
}) ([]byte, []metav1.ManagedFieldsEntry) {
	t.Helper()
	pt := internal.Parser().Type(typeName)
	live, err := pt.FromUnstructured(map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	managers := fieldpath.ManagedFields{}
	u := merge.Updater{Converter: sameVersion{}}
	for _, c := range configs {
		b, _ := json.Marshal(c.config)
		cfg, err := pt.FromYAML(typed.YAMLObject(b))
		if err != nil {
			t.Fatalf("%s's configuration does not fit the schema: %v", c.manager, err)
		}
		live, managers, err = u.Apply(live, cfg, fieldpath.APIVersion(apiVersion), managers, c.manager, true)
		if err != nil {
			t.Fatal(err)
		}
	}
	var entries []metav1.ManagedFieldsEntry
	for _, c := range configs {
		vs := managers[c.manager]
		raw, err := vs.Set().ToJSON()
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, metav1.ManagedFieldsEntry{Manager: c.manager, Operation: metav1.ManagedFieldsOperationApply,
			APIVersion: apiVersion, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: raw}})
	}
	obj, err := json.Marshal(live.AsValue().Unstructured())
	if err != nil {
		t.Fatal(err)
	}
	return obj, entries
}

func TestExtractTwoVersionsOneTree(t *testing.T) {
	a1 := v1ac.Widget("w", "ns").WithSpec(v1ac.WidgetSpec().WithSize(3).
		WithParts(v1ac.Part().WithName("p1").WithColor("red")))
	b1 := v1ac.Widget("w", "ns").WithSpec(v1ac.WidgetSpec().
		WithParts(v1ac.Part().WithName("p2").WithColor("blue")))
	raw, mf := applyAll(t, "com.github.ssagen.ssagen.generator.testdata.multiversion.input.v1.Widget", "multi.example.com/v1",
		[]struct {
			manager string
			config  any
		}{{"a", a1}, {"b", b1}})
	var w1 multiv1.Widget
	if err := json.Unmarshal(raw, &w1); err != nil {
		t.Fatal(err)
	}
	if len(w1.Spec.Parts) != 2 {
		t.Fatalf("merged object has parts %v, want both managers' items", w1.Spec.Parts)
	}
	w1.ManagedFields = mf
	got, err := v1ac.ExtractWidget(&w1, "a")
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, got, a1)

	a2 := v2ac.Widget("w").WithSpec(v2ac.WidgetSpec().WithLabels(map[string]string{"x": "1"}).WithTags("t1"))
	b2 := v2ac.Widget("w").WithSpec(v2ac.WidgetSpec().WithTags("t2").WithLabels(map[string]string{"y": "2"}))
	raw, mf = applyAll(t, "com.github.ssagen.ssagen.generator.testdata.multiversion.input.v2.Widget", "multi.example.com/v2",
		[]struct {
			manager string
			config  any
		}{{"a", a2}, {"b", b2}})
	var w2 multiv2.Widget
	if err := json.Unmarshal(raw, &w2); err != nil {
		t.Fatal(err)
	}
	w2.ManagedFields = mf
	got2, err := v2ac.ExtractWidget(&w2, "b")
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, got2, b2)
}

func TestExtractStatusKeepsConditions(t *testing.T) {
	now := metav1.Now().Rfc3339Copy()
	a := v1ac.Widget("w", "ns").WithStatus(v1ac.WidgetStatus().WithConditions(
		metav1ac.Condition().WithType("Ready").WithStatus(metav1.ConditionTrue).WithReason("Up").WithMessage("ok").WithLastTransitionTime(now)))
	b := v1ac.Widget("w", "ns").WithStatus(v1ac.WidgetStatus().WithConditions(
		metav1ac.Condition().WithType("Degraded").WithStatus(metav1.ConditionFalse).WithReason("Fine").WithMessage("").WithLastTransitionTime(now)))
	raw, mf := applyAll(t, "com.github.ssagen.ssagen.generator.testdata.multiversion.input.v1.Widget", "multi.example.com/v1",
		[]struct {
			manager string
			config  any
		}{{"a", a}, {"b", b}})
	var w multiv1.Widget
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatal(err)
	}
	if len(w.Status.Conditions) != 2 {
		t.Fatalf("conditions %v: a list-map keyed by type keeps both managers' items", w.Status.Conditions)
	}
	for i := range mf {
		mf[i].Subresource = "status"
	}
	w.ManagedFields = mf
	got, err := v1ac.ExtractWidgetStatus(&w, "a")
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, got, a)
}

func sameJSON(t *testing.T, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("extracted:\n%s\nwant exactly what the manager applied:\n%s", g, w)
	}
}

// sameVersion is the converter of a single-version apply sequence.
type sameVersion struct{}

func (sameVersion) Convert(v *typed.TypedValue, _ fieldpath.APIVersion) (*typed.TypedValue, error) {
	return v, nil
}

func (sameVersion) IsMissingVersionError(error) bool { return false }
