package ensure

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
)

// TestIntentKeepsIntegers: an int64 above 2^53 is sent as written, also
// when the metadata is re-encoded (a float64 detour would round it).
func TestIntentKeepsIntegers(t *testing.T) {
	const big = int64(1)<<53 + 1 // 9007199254740993
	desired := corev1ac.Pod("p", "ns").WithResourceVersion("5").
		WithSpec(corev1ac.PodSpec().WithActiveDeadlineSeconds(big))
	in, err := newIntent(desired)
	if err != nil {
		t.Fatal(err)
	}
	in.setController(metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "o", UID: "u", Controller: ptr(true)})
	_, body, err := in.seal("")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `"activeDeadlineSeconds":9007199254740993`) {
		t.Errorf("the integer changed on the way: %s", body)
	}
	if n, ok, _ := unstructuredInt(in, "spec", "activeDeadlineSeconds"); !ok || n != big {
		t.Errorf("decoded intent holds %d", n)
	}
}

// TestIntentMetadata: the controller reference replaces one to the same
// owner and keeps the others; a resourceVersion is dropped; the
// configuration handed in is not touched; the hash depends on the
// subresource and the content alone.
func TestIntentMetadata(t *testing.T) {
	desired := corev1ac.ConfigMap("c", "ns").WithResourceVersion("9").WithData(map[string]string{"k": "v"}).
		WithOwnerReferences(
			metav1ac.OwnerReference().WithAPIVersion("v1").WithKind("ConfigMap").WithName("other").WithUID("u-other"),
			metav1ac.OwnerReference().WithAPIVersion("v1").WithKind("ConfigMap").WithName("old").WithUID("u"))
	before, _ := json.Marshal(desired)
	in, err := newIntent(desired)
	if err != nil {
		t.Fatal(err)
	}
	in.setController(metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "o", UID: "u", Controller: ptr(true)})
	hash, body, err := in.seal("")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
		Data     map[string]string `json:"data"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	refs := got.Metadata.OwnerReferences
	if got.Metadata.ResourceVersion != "" || len(refs) != 2 || refs[0].UID != "u-other" || refs[1].Name != "o" || !*refs[1].Controller || got.Data["k"] != "v" {
		t.Errorf("sealed intent: %s", body)
	}
	if after, _ := json.Marshal(desired); string(after) != string(before) {
		t.Errorf("the configuration handed in changed:\n%s\n%s", before, after)
	}
	again, _ := newIntent(desired)
	again.setController(metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "o", UID: "u", Controller: ptr(true)})
	if h, _, _ := again.seal(""); h != hash {
		t.Error("the same intent hashed differently")
	}
	status, _ := newIntent(desired)
	status.setController(metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "o", UID: "u", Controller: ptr(true)})
	if h, _, _ := status.seal("status"); h == hash {
		t.Error("the intent for status hashed as the object's")
	}
	if _, err := newIntent(corev1ac.ConfigMap("", "ns")); err == nil {
		t.Error("an intent without a name was accepted")
	}
}

func unstructuredInt(in *intent, fields ...string) (int64, bool, error) {
	m := in.object().Object
	for _, f := range fields[:len(fields)-1] {
		m, _ = m[f].(map[string]any)
	}
	n, ok := m[fields[len(fields)-1]].(int64)
	return n, ok, nil
}

// TestIntentSplicesTrickyJSON: the metadata is spliced correctly around
// strings holding quotes, braces, commas and escapes, with whitespace,
// and when the metadata has nothing but what is dropped.
func TestIntentSplicesTrickyJSON(t *testing.T) {
	for _, body := range []string{
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a\"}{,":"b\\\"]"},"resourceVersion":"1"},"data":{"x":"{\"metadata\":1}"}}`,
		`{ "metadata" : { "resourceVersion" : "1" , "name" : "c" } , "apiVersion" : "v1" , "kind" : "ConfigMap" , "data" : { "n" : [1, 2.5e3, true, null] } }`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","ownerReferences":[{"apiVersion":"v1","kind":"X","name":"x","uid":"u"}],"resourceVersion":"1"}}`,
	} {
		in, err := newIntent(rawConfiguration(body))
		if err != nil {
			t.Fatal(err)
		}
		in.setController(metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "o", UID: "u", Controller: ptr(true)})
		_, sealed, err := in.seal("")
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		var want, got map[string]any
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(sealed, &got); err != nil {
			t.Fatalf("sealed intent is not JSON: %v\n%s", err, sealed)
		}
		md := want["metadata"].(map[string]any)
		delete(md, "resourceVersion")
		md["ownerReferences"] = []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "u", "controller": true}}
		w, _ := json.Marshal(want)
		g, _ := json.Marshal(got)
		if string(w) != string(g) {
			t.Errorf("sealed\n%s\nwant\n%s", g, w)
		}
	}
}

// rawConfiguration is an apply configuration that encodes as the given JSON.
type rawConfiguration string

func (rawConfiguration) IsApplyConfiguration()          {}
func (r rawConfiguration) MarshalJSON() ([]byte, error) { return []byte(r), nil }
