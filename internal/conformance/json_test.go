package conformance

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// TestBuilderJSON calls the same With* sequence — every setter, recursively
// into nested apply configurations — on ssagen's builders and on the
// published ones, and compares the JSON.
func TestBuilderJSON(t *testing.T) {
	total := 0
	for _, r := range roots {
		t.Run(r.name, func(t *testing.T) {
			args := []reflect.Value{reflect.ValueOf("obj")}
			if !r.clusterScoped {
				args = append(args, reflect.ValueOf("ns"))
			}
			ours := reflect.ValueOf(r.ours).Call(args)[0]
			theirs := reflect.ValueOf(r.theirs).Call(args)[0]
			fo, ft := &filler{}, &filler{}
			fo.fill(ours, r.name, 0)
			ft.fill(theirs, r.name, 0)
			if fo.calls != ft.calls {
				t.Fatalf("ssagen's builder took %d With calls, the published one %d", fo.calls, ft.calls)
			}
			a, err := json.Marshal(ours.Interface())
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(theirs.Interface())
			if err != nil {
				t.Fatal(err)
			}
			if string(a) != string(b) {
				t.Errorf("JSON differs after %d calls:\nssagen:    %s\npublished: %s", fo.calls, a, b)
			}
			if len(a) < 200 {
				t.Errorf("suspiciously small object (%d bytes): the filler did not reach the fields", len(a))
			}
			total += fo.calls
		})
	}
	t.Logf("%d kinds, %d With calls each side, JSON identical", len(roots), total)
}

// filler calls every With* method of an apply configuration with values
// derived from the field path, so both sides get identical arguments.
type filler struct{ calls int }

const maxDepth = 4

func (f *filler) fill(b reflect.Value, path string, depth int) {
	t := b.Type()
	var names []string
	for i := 0; i < t.NumMethod(); i++ {
		if n := t.Method(i).Name; strings.HasPrefix(n, "With") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		m := b.MethodByName(n)
		mt := m.Type()
		p := path + "." + n
		var args []reflect.Value
		if mt.IsVariadic() {
			elem := mt.In(0).Elem()
			for i := 0; i < 2; i++ {
				v, ok := f.value(elem, fmt.Sprintf("%s[%d]", p, i), depth+1)
				if !ok {
					break
				}
				args = append(args, v)
			}
			if len(args) == 0 {
				continue
			}
		} else {
			v, ok := f.value(mt.In(0), p, depth+1)
			if !ok {
				continue
			}
			args = append(args, v)
		}
		m.Call(args)
		f.calls++
	}
}

func hash(path string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(path))
	return h.Sum32()
}

var fixed = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// value returns an argument of type t for the setter at path, or false to
// skip the setter (too deep, or a type with no meaningful sample).
func (f *filler) value(t reflect.Type, path string, depth int) (reflect.Value, bool) {
	if depth > maxDepth {
		return reflect.Value{}, false
	}
	switch t {
	case reflect.TypeOf(metav1.Time{}):
		return reflect.ValueOf(metav1.NewTime(fixed)), true
	case reflect.TypeOf(metav1.MicroTime{}):
		return reflect.ValueOf(metav1.NewMicroTime(fixed)), true
	case reflect.TypeOf(metav1.Duration{}):
		return reflect.ValueOf(metav1.Duration{Duration: 5 * time.Second}), true
	case reflect.TypeOf(resource.Quantity{}):
		return reflect.ValueOf(resource.MustParse(fmt.Sprintf("%dMi", hash(path)%512+1))), true
	case reflect.TypeOf(intstr.IntOrString{}):
		return reflect.ValueOf(intstr.FromInt32(int32(hash(path) % 100))), true
	case reflect.TypeOf(runtime.RawExtension{}):
		return reflect.ValueOf(runtime.RawExtension{Raw: []byte(fmt.Sprintf(`{"k":%d}`, hash(path)%10))}), true
	case reflect.TypeOf(extv1.JSON{}):
		return reflect.ValueOf(extv1.JSON{Raw: []byte(fmt.Sprintf(`{"j":%d}`, hash(path)%10))}), true
	}
	switch t.Kind() {
	case reflect.String:
		return reflect.ValueOf(fmt.Sprintf("v%d", hash(path)%1000)).Convert(t), true
	case reflect.Bool:
		return reflect.ValueOf(true).Convert(t), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return reflect.ValueOf(int64(hash(path)%100 + 1)).Convert(t), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return reflect.ValueOf(uint64(hash(path)%100 + 1)).Convert(t), true
	case reflect.Float32, reflect.Float64:
		return reflect.ValueOf(float64(hash(path)%100) + 0.5).Convert(t), true
	case reflect.Pointer:
		if t.Elem().Kind() == reflect.Struct && strings.HasSuffix(t.Elem().Name(), "ApplyConfiguration") {
			v := reflect.New(t.Elem())
			f.fill(v, path, depth)
			return v, true
		}
		inner, ok := f.value(t.Elem(), path, depth)
		if !ok {
			return reflect.Value{}, false
		}
		v := reflect.New(t.Elem())
		v.Elem().Set(inner)
		return v, true
	case reflect.Slice:
		v := reflect.MakeSlice(t, 0, 2)
		for i := 0; i < 2; i++ {
			e, ok := f.value(t.Elem(), fmt.Sprintf("%s[%d]", path, i), depth+1)
			if !ok {
				return reflect.Value{}, false
			}
			v = reflect.Append(v, e)
		}
		return v, true
	case reflect.Map:
		k, ok := f.value(t.Key(), path+".key", depth+1)
		if !ok {
			return reflect.Value{}, false
		}
		e, ok := f.value(t.Elem(), path+".val", depth+1)
		if !ok {
			return reflect.Value{}, false
		}
		v := reflect.MakeMap(t)
		v.SetMapIndex(k, e)
		return v, true
	case reflect.Struct:
		if strings.HasSuffix(t.Name(), "ApplyConfiguration") {
			v := reflect.New(t)
			f.fill(v, path, depth)
			return v.Elem(), true
		}
		// A value type without a sample (JSONSchemaPropsOrBool and the
		// like): its zero value, identical on both sides.
		return reflect.Zero(t), true
	}
	return reflect.Value{}, false
}
