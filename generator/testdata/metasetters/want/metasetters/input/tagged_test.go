package input

import (
	"encoding/json"
	"testing"
)

// WithLabels sets metadata.labels on a kind with a root field Labels, and
// the field's own setter sets the root field.
func TestMetadataSettersKept(t *testing.T) {
	b := Tagged("t", "ns").WithLabels(map[string]string{"meta": "yes"}).
		WithLabelsField2(map[string]string{"root": "yes"}).
		WithFinalizers("meta/f").WithFinalizersField("root-f").WithLabelsField("lf")
	got, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"Tagged","apiVersion":"meta.example.com/input","metadata":{"name":"t","namespace":"ns","labels":{"meta":"yes"},"finalizers":["meta/f"]},"labels":{"root":"yes"},"finalizers":["root-f"],"labelsField":"lf"}`
	if string(got) != want {
		t.Errorf("JSON\n got %s\nwant %s", got, want)
	}
}
