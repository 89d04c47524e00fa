package ensure

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// ValueError is returned for an object holding a value that no
// Kubernetes object can: a uint64 past math.MaxInt64, the largest integer
// JSON carries into an API server. Field is its JSON path
// (.spec.limits[2].max).
type ValueError struct {
	Field string
	Value uint64
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("ensure: %s is %d, past %d, the largest integer a Kubernetes object can hold", e.Field, e.Value, int64(math.MaxInt64))
}

// typedOf reads obj (nil: an empty object) as a value of pt.
//
// structured-merge-diff reads Go values by reflection, which panics on
// uint64 (deliberately: value/valuereflect.go) and on arrays, interfaces,
// channels and functions. An object whose Go type can hold one of them is
// read through its JSON instead, as an API server reads it (integers as
// int64); whether a type needs that is decided once per type. (Not
// through runtime.DefaultUnstructuredConverter: it leaves a uint64 struct
// field a uint64, which structured-merge-diff refuses.)
func typedOf(pt typed.ParseableType, obj runtime.Object) (*typed.TypedValue, error) {
	switch o := obj.(type) {
	case nil:
		return pt.FromUnstructured(map[string]any{}, typed.AllowDuplicates)
	case *unstructured.Unstructured:
		return pt.FromUnstructured(o.Object, typed.AllowDuplicates)
	}
	if reflectable(reflect.TypeOf(obj)) {
		return pt.FromStructured(obj, typed.AllowDuplicates)
	}
	v := reflect.ValueOf(obj)
	if field, n := overflowAt(v, ""); field != "" {
		return nil, &ValueError{Field: field, Value: n}
	}
	data, err := utiljson.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("ensure: encoding %T: %w", obj, err)
	}
	var u map[string]any
	if err := utiljson.Unmarshal(data, &u); err != nil {
		return nil, fmt.Errorf("ensure: decoding %T: %w", obj, err)
	}
	return pt.FromUnstructured(u, typed.AllowDuplicates)
}

var reflectableTypes sync.Map // reflect.Type → bool

// reflectable reports whether structured-merge-diff's reflection can read
// every value of t: no uint64, array, interface, channel or function is
// reachable through its JSON fields. A type that marshals itself
// (json.Marshaler, as metav1.Time and resource.Quantity do) is read
// through its JSON, whatever it holds.
func reflectable(t reflect.Type) bool {
	if v, ok := reflectableTypes.Load(t); ok {
		return v.(bool)
	}
	ok := reflectableIn(t, map[reflect.Type]bool{})
	reflectableTypes.Store(t, ok)
	return ok
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

func reflectableIn(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return true // a cycle: decided where it started
	}
	seen[t] = true
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		return true
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return true
	case reflect.Pointer, reflect.Slice:
		return reflectableIn(t.Elem(), seen)
	case reflect.Map:
		return reflectableIn(t.Key(), seen) && reflectableIn(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() && !f.Anonymous || f.Tag.Get("json") == "-" {
				continue
			}
			if !reflectableIn(f.Type, seen) {
				return false
			}
		}
		return true
	}
	return false // uint64, uintptr, arrays, interfaces, channels, functions, complex numbers
}

// overflowAt finds a uint64 past math.MaxInt64 in v and returns its JSON
// path and value, or "".
func overflowAt(v reflect.Value, path string) (string, uint64) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", 0
		}
		return overflowAt(v.Elem(), path)
	case reflect.Uint64, reflect.Uint, reflect.Uintptr:
		if v.Uint() > math.MaxInt64 {
			return path, v.Uint()
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if p, n := overflowAt(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p, n
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if p, n := overflowAt(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k.Interface())); p != "" {
				return p, n
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() && !f.Anonymous {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			sub := path
			if name == "" && f.Anonymous {
				// embedded and unnamed: inlined, as encoding/json does
			} else {
				if name == "" {
					name = f.Name
				}
				sub = path + "." + name
			}
			if p, n := overflowAt(v.Field(i), sub); p != "" {
				return p, n
			}
		}
	}
	return "", 0
}
