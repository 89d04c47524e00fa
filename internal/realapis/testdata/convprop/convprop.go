// Package convprop checks generated converters by property in a scratch
// module at the API's own pins: the JSON of From<Kind>(obj) is the
// object's JSON less what the API server sets (and less the status where
// the kind writes it through its subresource, and, in metadata nested in
// templates, less selfLink and managedFields, which apply configurations
// have no field for), once JSON nulls and empty lists and maps are
// dropped, which an apply configuration cannot send.
//
// internal/realapis copies this file into the scratch modules it
// generates; it depends on nothing newer than the k8s.io release the
// module pins (internal/convtest, which checks ssagen's own trees, uses
// randfill and structured-merge-diff v6, which older pins lack).
package convprop

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Check fills objects of type T at random, seeds 1 to n, and compares
// the JSON of from(obj) with the object's. withoutStatus: the kind's
// converter leaves the status to its status converter.
func Check[T any, AC any](t *testing.T, name string, n int, from func(*T) *AC, withoutStatus bool) {
	t.Helper()
	for seed := int64(1); seed <= int64(n); seed++ {
		obj := new(T)
		f := &filler{r: rand.New(rand.NewSource(seed))}
		f.fill(reflect.ValueOf(obj).Elem(), 0)
		want := decode(t, obj)
		if meta, ok := want["metadata"].(map[string]any); ok {
			for _, k := range []string{"selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
				"deletionTimestamp", "deletionGracePeriodSeconds", "managedFields"} {
				delete(meta, k)
			}
		}
		stripNested(want)
		if withoutStatus {
			delete(want, "status")
		}
		got := decode(t, from(obj))
		want["apiVersion"], want["kind"] = got["apiVersion"], got["kind"]
		if d := diff("", normalize(want), normalize(got)); len(d) > 0 {
			if len(d) > 12 {
				d = append(d[:12], fmt.Sprintf("... and %d more", len(d)-12))
			}
			t.Errorf("%s, seed %d: the converter's JSON differs from the object's (-object +converter):\n%s", name, seed, strings.Join(d, "\n"))
		}
	}
}

// stripNested drops, from metadata nested in templates, the two fields
// an apply configuration has none for.
func stripNested(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if m, ok := e.(map[string]any); ok && k == "metadata" {
				delete(m, "selfLink")
				delete(m, "managedFields")
			}
			stripNested(e)
		}
	case []any:
		for _, e := range v {
			stripNested(e)
		}
	}
}

func decode(t *testing.T, v any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// normalize drops nulls and empty lists and maps, innermost first.
func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			if n := normalize(e); n != nil {
				out[k] = n
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(v) == 0 {
			return nil
		}
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

func diff(path string, a, b any) []string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		var out []string
		for _, k := range sorted {
			out = append(out, diff(path+"."+k, am[k], bm[k])...)
		}
		return out
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok && len(as) == len(bs) {
		var out []string
		for i := range as {
			out = append(out, diff(fmt.Sprintf("%s[%d]", path, i), as[i], bs[i])...)
		}
		return out
	}
	if reflect.DeepEqual(a, b) {
		return nil
	}
	return []string{fmt.Sprintf("%s: -%s +%s", path, short(a), short(b))}
}

func short(v any) string {
	data, _ := json.Marshal(v)
	if len(data) > 80 {
		return string(data[:77]) + "..."
	}
	return string(data)
}

// filler sets every exported field at random: pointers, slices and maps
// nil a quarter of the time, up to two elements, values k8s.io's JSON
// types accept.
type filler struct{ r *rand.Rand }

var (
	timeType      = reflect.TypeOf(metav1.Time{})
	microTimeType = reflect.TypeOf(metav1.MicroTime{})
	durationType  = reflect.TypeOf(metav1.Duration{})
	quantityType  = reflect.TypeOf(resource.Quantity{})
	intOrStrType  = reflect.TypeOf(intstr.IntOrString{})
	rawType       = reflect.TypeOf(runtime.RawExtension{})
	bytesType     = reflect.TypeOf([]byte(nil))
	marshaler     = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
)

const maxDepth = 14

func (f *filler) fill(v reflect.Value, depth int) {
	r := f.r
	switch v.Type() {
	case timeType:
		v.Set(reflect.ValueOf(metav1.Unix(r.Int63n(2e9), 0)))
		return
	case microTimeType:
		v.Set(reflect.ValueOf(metav1.NewMicroTime(time.Unix(r.Int63n(2e9), r.Int63n(1e6)*1000))))
		return
	case durationType:
		v.Set(reflect.ValueOf(metav1.Duration{Duration: time.Duration(r.Int63n(1e12))}))
		return
	case quantityType:
		v.Set(reflect.ValueOf(*resource.NewQuantity(r.Int63n(1e6), resource.DecimalSI)))
		return
	case intOrStrType:
		if r.Intn(2) == 0 {
			v.Set(reflect.ValueOf(intstr.FromInt32(r.Int31())))
		} else {
			v.Set(reflect.ValueOf(intstr.FromString(f.str())))
		}
		return
	case rawType:
		if r.Intn(2) == 0 {
			v.Set(reflect.ValueOf(runtime.RawExtension{Raw: []byte(fmt.Sprintf(`{"n":%d}`, r.Int31()))}))
		}
		return
	}
	if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
		// An empty []byte is JSON "", which an apply configuration cannot
		// send: nil or not empty.
		if r.Intn(2) == 0 {
			v.SetBytes([]byte(f.str() + "x"))
		}
		return
	}
	if v.Kind() == reflect.Struct && reflect.PointerTo(v.Type()).Implements(marshaler) {
		return // a JSON type of its own this filler does not know: left zero
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(r.Intn(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(r.Int63n(100) - 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(r.Int63n(math.MaxInt16)))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(r.Intn(1000)) / 8)
	case reflect.String:
		v.SetString(f.str())
	case reflect.Pointer:
		if depth < maxDepth && r.Intn(4) != 0 {
			p := reflect.New(v.Type().Elem())
			f.fill(p.Elem(), depth+1)
			v.Set(p)
		}
	case reflect.Slice:
		if depth < maxDepth && r.Intn(4) != 0 {
			n := r.Intn(3)
			s := reflect.MakeSlice(v.Type(), n, n)
			for i := 0; i < n; i++ {
				f.fill(s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Map:
		if depth < maxDepth && r.Intn(4) != 0 && v.Type().Key().Kind() == reflect.String {
			m := reflect.MakeMap(v.Type())
			for i, n := 0, r.Intn(3); i < n; i++ {
				k := reflect.New(v.Type().Key()).Elem()
				k.SetString(f.str() + "k")
				e := reflect.New(v.Type().Elem()).Elem()
				f.fill(e, depth+1)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i), depth+1)
			}
		}
	}
}

// str is a short string, empty a quarter of the time.
func (f *filler) str() string {
	if f.r.Intn(4) == 0 {
		return ""
	}
	const letters = "abcdefghij"
	b := make([]byte, 1+f.r.Intn(6))
	for i := range b {
		b[i] = letters[f.r.Intn(len(letters))]
	}
	return string(b)
}
