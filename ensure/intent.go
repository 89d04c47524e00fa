package ensure

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// intent is what one Ensure call applies: the apply configuration's JSON
// as it encoded itself, with the controller reference set and any
// resourceVersion dropped. Only the metadata is ever decoded and
// re-encoded; the rest stays the configuration's own bytes, so no value
// takes a detour through float64 (an int64 above 2^53 arrives intact)
// and a call costs two small decodes instead of a round trip through
// map[string]any.
type intent struct {
	gvk             schema.GroupVersionKind
	name, namespace string
	// refs are the configuration's owner references, as setOwner left them.
	refs []metav1.OwnerReference
	// labels and annotations are the configuration's, with the owner's
	// label and annotation added when setOwnerLabels was called (nil
	// otherwise: the configuration's own bytes stand).
	labels, annotations map[string]string
	header, headerAnn   map[string]string // the configuration's own
	// rewrite: the metadata must be re-encoded (references set, a
	// resourceVersion to drop).
	rewrite bool
	// droppedVersion: the configuration carried a resourceVersion, which
	// is never sent.
	droppedVersion bool
	// snapshot: the configuration holds an earlier answer of the API
	// server, every writer's fields (reduceSnapshot).
	snapshot bool
	body     []byte
	u        *unstructured.Unstructured // decoded on demand: object
}

// intentHeader is the part of an apply configuration's JSON an intent reads.
type intentHeader struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name            string                  `json:"name"`
		Namespace       string                  `json:"namespace"`
		ResourceVersion string                  `json:"resourceVersion"`
		OwnerReferences []metav1.OwnerReference `json:"ownerReferences"`
		Labels          map[string]string       `json:"labels"`
		Annotations     map[string]string       `json:"annotations"`
		// UID and CreationTimestamp are set in a configuration an earlier
		// answer was decoded into (reduceSnapshot): no intent has them.
		UID               string `json:"uid"`
		CreationTimestamp string `json:"creationTimestamp"`
	} `json:"metadata"`
}

// newIntent encodes desired, which is never modified (controller-runtime
// writes answers into what it is given; Ensure never hands it desired).
func newIntent(desired runtime.ApplyConfiguration) (*intent, error) {
	b, err := json.Marshal(desired)
	if err != nil {
		return nil, fmt.Errorf("ensure: encoding the apply configuration: %w", err)
	}
	return intentOf(b)
}

// intentOf is the intent of an apply configuration's JSON.
func intentOf(b []byte) (*intent, error) {
	var h intentHeader
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("ensure: encoding the apply configuration: %w", err)
	}
	if h.Metadata.Name == "" || h.Kind == "" || h.APIVersion == "" {
		return nil, fmt.Errorf("ensure: the apply configuration needs apiVersion, kind and metadata.name")
	}
	gv, err := schema.ParseGroupVersion(h.APIVersion)
	if err != nil {
		return nil, fmt.Errorf("ensure: the apply configuration's apiVersion: %w", err)
	}
	return &intent{
		gvk: gv.WithKind(h.Kind), name: h.Metadata.Name, namespace: h.Metadata.Namespace,
		refs: h.Metadata.OwnerReferences, header: h.Metadata.Labels, headerAnn: h.Metadata.Annotations,
		// A resourceVersion would turn apply into optimistic locking: 409s again.
		rewrite:        h.Metadata.ResourceVersion != "",
		droppedVersion: h.Metadata.ResourceVersion != "",
		snapshot:       h.Metadata.UID != "" || h.Metadata.CreationTimestamp != "",
		body:           b,
	}, nil
}

// setController makes ref the intent's controller reference, replacing a
// reference to the same owner.
func (in *intent) setController(ref metav1.OwnerReference) {
	refs := make([]metav1.OwnerReference, 0, len(in.refs)+1)
	for _, r := range in.refs {
		if r.UID != ref.UID {
			refs = append(refs, r)
		}
	}
	in.refs = append(refs, ref)
	in.rewrite = true
}

// setOwnerLabels records the owner on the child: its UID as the label
// OwnerUIDLabel, its kind and name as the annotation OwnerAnnotation.
func (in *intent) setOwnerLabels(uid types.UID, owner string) {
	in.labels = with(in.header, OwnerUIDLabel, string(uid))
	in.annotations = with(in.headerAnn, OwnerAnnotation, owner)
	in.rewrite = true
}

// with returns a copy of m with k set to v.
func with(m map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for mk, mv := range m {
		out[mk] = mv
	}
	out[k] = v
	return out
}

// seal encodes the intent's final metadata into its body and returns the
// hash of what is sent for sub, and the body.
func (in *intent) seal(sub string) (string, []byte, error) {
	if in.rewrite {
		body, err := in.rewriteMetadata()
		if err != nil {
			return "", nil, err
		}
		in.body, in.rewrite, in.u = body, false, nil
	}
	h := sha256.New()
	h.Write([]byte(sub + "\x00"))
	h.Write(in.body)
	return hex.EncodeToString(h.Sum(nil)[:16]), in.body, nil
}

// rewriteMetadata returns the body with the intent's owner references in
// its metadata and no resourceVersion, every other byte as it was: the
// metadata object is spliced, not decoded.
func (in *intent) rewriteMetadata() ([]byte, error) {
	b := in.body
	var md member
	found := false
	if err := eachMember(b, 0, func(m member) {
		if string(b[m.keyStart:m.keyEnd]) == `"metadata"` {
			md, found = m, true
		}
	}); err != nil {
		return nil, err
	}
	if !found || b[md.valStart] != '{' {
		return nil, fmt.Errorf("no metadata object")
	}
	out := make([]byte, 0, len(b)+256)
	out = append(out, b[:md.valStart]...)
	out = append(out, '{')
	first := true
	if err := eachMember(b, md.valStart, func(m member) {
		switch string(b[m.keyStart:m.keyEnd]) {
		case `"resourceVersion"`, `"ownerReferences"`:
			return
		case `"labels"`, `"annotations"`:
			if in.labels != nil {
				return
			}
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, b[m.keyStart:m.valEnd]...)
	}); err != nil {
		return nil, err
	}
	// add appends one member; encoding/json sorts map keys, so the bytes,
	// and the hash, are stable.
	add := func(key string, v any) error {
		val, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, `"`+key+`":`...)
		out = append(out, val...)
		return nil
	}
	if len(in.refs) > 0 {
		if err := add("ownerReferences", in.refs); err != nil {
			return nil, err
		}
	}
	if in.labels != nil {
		if err := add("labels", in.labels); err != nil {
			return nil, err
		}
		if err := add("annotations", in.annotations); err != nil {
			return nil, err
		}
	}
	out = append(out, '}')
	return append(out, b[md.valEnd:]...), nil
}

// member locates one member of a JSON object: its key (quotes included)
// and its value.
type member struct{ keyStart, keyEnd, valStart, valEnd int }

// eachMember calls f for each member of the JSON object at b[i], in
// order. b is encoding/json's output, whose validity it checked.
func eachMember(b []byte, i int, f func(member)) error {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return fmt.Errorf("not a JSON object at offset %d", i)
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for i < len(b) {
		var m member
		m.keyStart = i
		m.keyEnd = skipValue(b, i)
		i = skipSpace(b, m.keyEnd)
		if i >= len(b) || b[i] != ':' {
			return fmt.Errorf("malformed JSON object at offset %d", i)
		}
		m.valStart = skipSpace(b, i+1)
		m.valEnd = skipValue(b, m.valStart)
		f(m)
		i = skipSpace(b, m.valEnd)
		if i < len(b) && b[i] == '}' {
			return nil
		}
		if i >= len(b) || b[i] != ',' {
			return fmt.Errorf("malformed JSON object at offset %d", i)
		}
		i = skipSpace(b, i+1)
	}
	return fmt.Errorf("unterminated JSON object")
}

// skipValue returns the offset just past the JSON value at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		for i++; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return i
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipValue(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// object is the sealed intent as an unstructured object, decoded once,
// for the comparisons that need values (a restart's first resync, a
// moved object). Numbers keep their integer type.
func (in *intent) object() *unstructured.Unstructured {
	if in.u == nil {
		in.u = &unstructured.Unstructured{}
		if err := in.u.UnmarshalJSON(in.body); err != nil {
			in.u.Object = map[string]any{} // compares unequal to everything: a doubt
		}
	}
	return in.u
}
