package input_test

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	in "github.com/ssagen/ssagen/generator/testdata/unsigned/input"
	"github.com/ssagen/ssagen/generator/testdata/unsigned/want"
	ac "github.com/ssagen/ssagen/generator/testdata/unsigned/want/unsigned/input"
)

// Every accepted unsigned shape, populated: decoded from JSON, converted
// by the generated type converter (structured-merge-diff's reflection,
// as the Ensure helpers' skip check converts), and extracted by the
// generated Extract, without a panic and with every value kept.
func TestUnsignedShapes(t *testing.T) {
	raw := `{"apiVersion":"unsigned.example.com/input","kind":"Meter","metadata":{"name":"m","namespace":"ns"},
		"spec":{"plain":4294967296,"mid":4294967295,"small":65535,"ptr":7,"list":[1,2],"counts":{"a":3}}}`
	obj := &in.Meter{}
	if err := json.Unmarshal([]byte(raw), obj); err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := in.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	tc := want.NewTypeConverter(scheme)
	typed, err := tc.ObjectToTyped(obj)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tc.TypedToObject(typed); err != nil {
		t.Fatal(err)
	}
	obj.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "unsigned.example.com/input", FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:plain":{},"f:mid":{},"f:small":{},"f:ptr":{},"f:list":{},"f:counts":{"f:a":{}}}}`)}}}
	extracted, err := ac.ExtractMeter(obj, "m")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(extracted.Spec)
	if string(got) != `{"plain":4294967296,"mid":4294967295,"small":65535,"ptr":7,"list":[1,2],"counts":{"a":3}}` {
		t.Errorf("extracted spec %s", got)
	}
}
