package input_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	in "github.com/ssagen/ssagen/generator/testdata/unsigned/input"
	"github.com/ssagen/ssagen/generator/testdata/unsigned/want"
	ac "github.com/ssagen/ssagen/generator/testdata/unsigned/want/unsigned/input"
)

// Every unsigned shape, populated: decoded from JSON, converted by the
// generated type converter (as the fake client converts), and extracted by
// the generated Extract, without a panic and with every value kept — uint64
// included, which structured-merge-diff's reflection cannot read, so both
// read a Meter through its JSON.
func TestUnsignedShapes(t *testing.T) {
	raw := `{"apiVersion":"unsigned.example.com/input","kind":"Meter","metadata":{"name":"m","namespace":"ns"},
		"spec":{"plain":4294967296,"mid":4294967295,"small":65535,"ptr":7,"list":[1,2],"counts":{"a":3},
		"big":9223372036854775807,"bigPtr":1,"bigs":[2,3],"sizes":{"s":4}}}`
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
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:plain":{},"f:mid":{},"f:small":{},"f:ptr":{},"f:list":{},"f:counts":{"f:a":{}},"f:big":{},"f:bigPtr":{},"f:bigs":{},"f:sizes":{"f:s":{}}}}`)}}}
	extracted, err := ac.ExtractMeter(obj, "m")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(extracted.Spec)
	if string(got) != `{"plain":4294967296,"mid":4294967295,"small":65535,"ptr":7,"list":[1,2],"counts":{"a":3},"big":9223372036854775807,"bigPtr":1,"bigs":[2,3],"sizes":{"s":4}}` {
		t.Errorf("extracted spec %s", got)
	}

	// Past int64, which no API object holds: an error naming the field,
	// from Extract and from the type converter alike.
	obj.Spec.Bigs[1] = math.MaxUint64
	if _, err := ac.ExtractMeter(obj, "m"); err == nil || !strings.Contains(err.Error(), ".spec.bigs[1] is 18446744073709551615") {
		t.Errorf("extract past int64: %v", err)
	}
	if _, err := tc.ObjectToTyped(obj); err == nil || !strings.Contains(err.Error(), ".spec.bigs[1]") {
		t.Errorf("convert past int64: %v", err)
	}
}
