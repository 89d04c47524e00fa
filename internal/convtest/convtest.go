// Package convtest checks generated converters (From<Kind>,
// StatusFrom<Kind>) by property, on objects filled at random:
//
//   - the converter's JSON is the object's JSON less server-set metadata
//     (and less the status where the kind has a status subresource, whose
//     converter sends exactly kind, apiVersion, name, namespace and status),
//     once JSON nulls and empty lists and maps are dropped: an apply
//     configuration cannot send them;
//   - Extract of the object, with managedFields saying one manager applied
//     exactly the converter's fields, returns the converter's result (the
//     object as an apply of it would leave it);
//   - the result shares no slice or map with the object: scrambling every
//     slice and map of the result leaves the object's JSON unchanged.
package convtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/randfill"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// Kind is one kind's converters and Extract functions, built by For.
type Kind struct {
	Name  string
	check func(seed int64) (skip string, err error)
}

// Object is what For needs of a kind's Go type.
type Object[T any] interface {
	*T
	runtime.Object
	metav1.Object
}

// For checks kind T's converter from, and statusFrom with extractStatus
// when the kind has a status subresource (nil otherwise). pt is the
// kind's type in the schema the Extract functions read.
func For[T any, PT Object[T], AC any](name string, pt typed.ParseableType,
	from func(PT) *AC, extract func(PT, string) (*AC, error),
	statusFrom func(PT) *AC, extractStatus func(PT, string) (*AC, error)) Kind {
	return Kind{Name: name, check: func(seed int64) (string, error) {
		obj := PT(new(T))
		Filler(seed).Fill(obj)
		objJSON, err := json.Marshal(obj)
		if err != nil {
			return "the random object has no JSON: " + err.Error(), nil
		}
		objMap := decode(objJSON).(map[string]any)
		stripServerSet(objMap)

		ac := from(obj)
		got := decode(mustJSON(ac)).(map[string]any)
		want := copyMap(objMap)
		want["apiVersion"], want["kind"] = got["apiVersion"], got["kind"]
		if statusFrom != nil {
			delete(want, "status")
		}
		if d := diff(normalize(want), normalize(got)); d != "" {
			return "", fmt.Errorf("From: JSON differs from the object's (-object +converter):\n%s", d)
		}
		// Extract reads the object as the API server keeps it: every
		// list-map item with its keys (required or defaulted there), so
		// the object checked has no empty strings.
		valid := obj.DeepCopyObject().(PT)
		nonEmptyStrings(reflect.ValueOf(valid), seed)
		if skip, err := extracted(valid, pt, from(valid), extract, ""); skip != "" || err != nil {
			return skip, err
		}
		if err := unshared(obj, objJSON, ac); err != nil {
			return "", fmt.Errorf("From: %v", err)
		}
		if statusFrom == nil {
			return "", nil
		}
		sac := statusFrom(obj)
		got = decode(mustJSON(sac)).(map[string]any)
		meta := map[string]any{}
		for k, v := range map[string]string{"name": obj.GetName(), "namespace": obj.GetNamespace()} {
			if v != "" {
				meta[k] = v
			}
		}
		want = map[string]any{"apiVersion": got["apiVersion"], "kind": got["kind"], "status": objMap["status"], "metadata": meta}
		if d := diff(normalize(want), normalize(got)); d != "" {
			return "", fmt.Errorf("StatusFrom: JSON differs from the object's status (-object +converter):\n%s", d)
		}
		if skip, err := extracted(valid, pt, statusFrom(valid), extractStatus, "status"); skip != "" || err != nil {
			return skip, err
		}
		if err := unshared(obj, objJSON, sac); err != nil {
			return "", fmt.Errorf("StatusFrom: %v", err)
		}
		return "", nil
	}}
}

// Run checks every kind on n random objects each. A sample is skipped
// when the random object cannot be written as JSON or breaks the
// schema (duplicate keys of a list-map); a kind whose samples were all
// skipped fails.
func Run(t *testing.T, kinds []Kind, n int) {
	t.Helper()
	if len(kinds) == 0 {
		t.Fatal("no kinds to check")
	}
	for _, k := range kinds {
		t.Run(k.Name, func(t *testing.T) {
			skipped := map[string]int{}
			for seed := int64(1); seed <= int64(n); seed++ {
				skip, err := k.check(seed)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if skip != "" {
					skipped[skip]++
				}
			}
			total := 0
			for _, c := range skipped {
				total += c
			}
			if total == n {
				t.Fatalf("every sample skipped: %v", skipped)
			}
			if total > 0 {
				t.Logf("%d of %d samples skipped: %v", total, n, skipped)
			}
		})
	}
}

// extracted applies ac in managedFields (one manager, exactly ac's
// fields) and checks that Extract returns ac.
func extracted[T any, PT Object[T], AC any](obj PT, pt typed.ParseableType, ac *AC, extract func(PT, string) (*AC, error), sub string) (string, error) {
	u := map[string]any{}
	if err := utiljson.Unmarshal(mustJSON(ac), &u); err != nil {
		return "", err
	}
	tv, err := pt.FromUnstructured(u)
	if err != nil {
		return "the random object breaks the schema: " + firstLine(err), nil
	}
	set, err := tv.ToFieldSet()
	if err != nil {
		return "", err
	}
	raw, err := set.ToJSON()
	if err != nil {
		return "", err
	}
	applied := obj.DeepCopyObject().(PT)
	apiVersion, _ := u["apiVersion"].(string)
	applied.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "convtest", Operation: metav1.ManagedFieldsOperationApply,
		APIVersion: apiVersion, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: raw}, Subresource: sub}})
	back, err := extract(applied, "convtest")
	if err != nil {
		if strings.Contains(err.Error(), "duplicate") {
			return "the random object breaks the schema: " + firstLine(err), nil
		}
		return "", fmt.Errorf("Extract (subresource %q): %v", sub, err)
	}
	a, b := decode(mustJSON(ac)).(map[string]any), decode(mustJSON(back)).(map[string]any)
	dropEmptyName(a)
	dropEmptyName(b) // Extract sets name and namespace even when empty
	if d := diff(normalize(a), normalize(b)); d != "" {
		return "", fmt.Errorf("Extract (subresource %q) of the applied object differs from the converter's (-converter +extract):\n%s", sub, d)
	}
	return "", nil
}

// unshared scrambles every slice and map reachable from ac and checks
// that obj's JSON did not change.
func unshared(obj runtime.Object, objJSON []byte, ac any) error {
	scramble(reflect.ValueOf(ac))
	after, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if !bytes.Equal(after, objJSON) {
		return fmt.Errorf("the apply configuration shares a slice or map with the object: changing it changed the object")
	}
	return nil
}

func scramble(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			scramble(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				scramble(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			e := v.Index(i)
			scramble(e)
			if e.CanSet() {
				e.Set(reflect.Zero(e.Type()))
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			v.SetMapIndex(k, reflect.Zero(v.Type().Elem()))
		}
	}
}

func dropEmptyName(obj map[string]any) {
	if m, ok := obj["metadata"].(map[string]any); ok {
		for _, k := range []string{"name", "namespace"} {
			if m[k] == "" {
				delete(m, k)
			}
		}
	}
}

// nonEmptyStrings sets every empty string under v to a non-empty one.
func nonEmptyStrings(v reflect.Value, seed int64) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			nonEmptyStrings(v.Elem(), seed)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				nonEmptyStrings(v.Field(i), seed)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := 0; i < v.Len(); i++ {
			nonEmptyStrings(v.Index(i), seed+int64(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			nonEmptyStrings(e, seed)
			v.SetMapIndex(k, e)
		}
	case reflect.String:
		if v.Len() == 0 && v.CanSet() {
			v.SetString(fmt.Sprintf("s%d", seed))
		}
	}
}

// serverSet are ObjectMeta's fields the API server sets.
var serverSet = []string{"selfLink", "uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "managedFields"}

// stripServerSet drops the server-set fields of an object's metadata, and
// everywhere the two that apply configurations have no field for.
func stripServerSet(obj map[string]any) {
	if m, ok := obj["metadata"].(map[string]any); ok {
		for _, f := range serverSet {
			delete(m, f)
		}
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if m, ok := e.(map[string]any); ok && k == "metadata" {
					delete(m, "selfLink")
					delete(m, "managedFields")
				}
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(obj)
}

// normalize drops nulls and empty lists and objects, which an apply
// configuration cannot send.
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

// diff lists the paths where a and b differ, or is "".
func diff(a, b any) string {
	var out []string
	walkDiff("", a, b, &out)
	if len(out) > 12 {
		out = append(out[:12], fmt.Sprintf("... and %d more", len(out)-12))
	}
	return strings.Join(out, "\n")
}

func walkDiff(path string, a, b any, out *[]string) {
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
		for _, k := range sorted {
			walkDiff(path+"."+k, am[k], bm[k], out)
		}
		return
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		for i := range al {
			walkDiff(fmt.Sprintf("%s[%d]", path, i), al[i], bl[i], out)
		}
		return
	}
	if ja, jb := mustIndent(a), mustIndent(b); ja != jb {
		*out = append(*out, fmt.Sprintf("%s: - %s + %s", path, short(ja), short(jb)))
	}
}

func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

func mustIndent(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

func decode(data []byte) any {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		panic(err)
	}
	return v
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// Filler fills objects at random, with the values API types hold in
// their own forms (times to the second, quantities, int-or-strings, raw
// JSON) and integers an API object can hold (no uint64 past int64).
func Filler(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.25).NumElements(0, 2).MaxDepth(12).Funcs(
		func(t *metav1.Time, c randfill.Continue) { *t = metav1.Unix(c.Int63n(2e9), 0) },
		func(t *metav1.MicroTime, c randfill.Continue) {
			*t = metav1.NewMicroTime(metav1.Unix(c.Int63n(2e9), c.Int63n(1e6)*1000).Time)
		},
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(1e6), resource.DecimalSI)
		},
		func(x *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*x = intstr.FromInt32(c.Int31())
			} else {
				*x = intstr.FromString(c.String(0))
			}
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			*r = runtime.RawExtension{}
			if c.Bool() {
				r.Raw = []byte(fmt.Sprintf(`{"n":%d}`, c.Int31()))
			}
		},
		func(f *metav1.FieldsV1, c randfill.Continue) { f.Raw = []byte(`{"f:a":{}}`) },
		func(u *uint64, c randfill.Continue) { *u = c.Uint64() % math.MaxInt64 },
		// An empty []byte is JSON "", which an apply configuration (its
		// fields tagged omitempty) cannot send: nil or not empty.
		func(b *[]byte, c randfill.Continue) {
			*b = nil
			if c.Bool() {
				*b = []byte(c.String(0) + "x")
			}
		},
	)
}
