package ensure

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"reflect"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// skipCache remembers, per object and field manager, the intent last
// applied, the resourceVersion the API server answered with, and the
// object's UID. One entry per live object; an entry goes when its object
// is found deleted, when a delete event reaches a predicate of the
// Client, or when it has not been written for the TTL (so memory stays
// bounded when delete events are missed). An entry only ever vouches for
// the object of its UID: the object recreated under the same name is
// never skipped by it. Each Client has its own, so an object seen through
// one client — another cluster, the next test's fake client — never
// vouches for its namesake seen through another.
//
// A nil *skipCache is the memory of a plain client: it remembers nothing,
// and every question is answered from the live object alone.
type skipCache struct {
	mu      sync.Mutex
	entries map[cacheKey]cacheEntry
	ttl     time.Duration
	// name labels the ssagen_skip_cache_entries gauge; "" exports none.
	name string
	// sweepAt is the size at which record next drops expired entries.
	sweepAt int
}

// defaultTTL is how long a Client remembers an object it has not written:
// the re-assert interval of ReassertAfter, after which it could not skip
// anyway.
const defaultTTL = 10 * time.Hour

func newSkipCache(name string, ttl time.Duration) *skipCache {
	return &skipCache{entries: map[cacheKey]cacheEntry{}, ttl: ttl, name: name, sweepAt: 1024}
}

// exportSize sets the cache's gauge, if it is named.
func (c *skipCache) exportSize(n int) {
	if c.name != "" {
		cacheEntries.WithLabelValues(c.name).Set(float64(n))
	}
}

type cacheKey struct {
	gvk                      schema.GroupVersionKind
	namespace, name, manager string
	subresource              string
}

type cacheEntry struct {
	hash, resourceVersion string
	uid                   types.UID
	at                    time.Time
	// owned hashes the object's UID and this manager's managedFields
	// entry as the API server answered the apply (0: unknown).
	owned uint64
	// refused is the API server's refusal of this intent for the object
	// at resourceVersion: not sent again until either changes.
	refused *ImmutableError
	// fights counts the answers in a row that did not hold this intent,
	// fightUntil ends the backoff of the last (fight.go).
	fights     int
	fightUntil time.Time
	// content is what the object held at resourceVersion apart from its
	// version and managedFields (content), kept where the cache strips
	// managedFields: a later version with the same content is a write of
	// ownership alone.
	content string
}

// len is the number of objects remembered.
func (c *skipCache) len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func (c *skipCache) record(k cacheKey, hash string, obj client.Object, owned uint64, content string) {
	if c == nil {
		return
	}
	now := time.Now()
	c.mu.Lock()
	e := cacheEntry{hash: hash, resourceVersion: version(obj), uid: obj.GetUID(), at: now, owned: owned, content: content}
	if old, ok := c.entries[k]; ok && old.hash == hash && old.uid == e.uid {
		e.fights, e.fightUntil = old.fights, old.fightUntil // a fight goes on until an answer holds the intent
	}
	c.entries[k] = e
	if len(c.entries) >= c.sweepAt {
		for key, e := range c.entries {
			if now.Sub(e.at) > c.ttl {
				delete(c.entries, key)
			}
		}
		c.sweepAt = 2 * len(c.entries)
		if c.sweepAt < 1024 {
			c.sweepAt = 1024
		}
	}
	n := len(c.entries)
	c.mu.Unlock()
	c.exportSize(n)
}

func (c *skipCache) forget(k cacheKey) {
	if c == nil {
		return
	}
	c.mu.Lock()
	delete(c.entries, k)
	n := len(c.entries)
	c.mu.Unlock()
	c.exportSize(n)
}

// forgetObject drops every entry of the object namespace/name (of any kind
// or manager): at worst the next Ensure of a namesake sends one apply.
func (c *skipCache) forgetObject(namespace, name string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	for k := range c.entries {
		if k.namespace == namespace && k.name == name {
			delete(c.entries, k)
		}
	}
	n := len(c.entries)
	c.mu.Unlock()
	c.exportSize(n)
}

// calm ends a fight: an answer held the intent.
func (c *skipCache) calm(k cacheKey) {
	if c == nil {
		return
	}
	c.mu.Lock()
	if e, ok := c.entries[k]; ok && e.fights > 0 {
		e.fights, e.fightUntil = 0, time.Time{}
		c.entries[k] = e
	}
	c.mu.Unlock()
}

func (c *skipCache) seen(k cacheKey) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.entries[k]
	return ok
}

// fresh reports whether applying desired now would change nothing: the same
// intent was applied and the live object is the one the API server answered
// with, or it has moved on but still holds every value of the intent
// (someone else changed status or fields this manager does not set).
// Anything else — a new intent, a value that differs, a doubt — is false:
// a doubt costs one no-op apply, never a wrong skip. A Preview decides
// the same way and remembers nothing of what it learns: no entry, no new
// version of one.
func (c *skipCache) fresh(k cacheKey, hash string, live client.Object, in *intent, o *options, strip bool) bool {
	seal := func(obj client.Object) string { // the content a stripped cache's later copies are told apart by
		if strip {
			return content(obj)
		}
		return ""
	}
	var e cacheEntry
	ok := false
	if c != nil {
		c.mu.Lock()
		e, ok = c.entries[k]
		c.mu.Unlock()
	}
	if !ok && settled(o.schema, live, in.object(), o, k.subresource) {
		// Nothing remembered (a restart), but the live object and this
		// manager's managedFields show the apply would change nothing.
		if o.preview == nil {
			c.record(k, hash, live, ownedHash(live, k.manager, k.subresource), seal(live))
		}
		return true
	}
	if ok && e.fighting(hash, live.GetUID()) {
		return true // the same intent, rewritten on its last apply: not sent within the backoff
	}
	if !ok || e.refused != nil || e.hash != hash || e.uid != live.GetUID() || time.Since(e.at) > o.reassertAfter || time.Since(e.at) > c.ttl {
		return false
	}
	if version(live) == e.resourceVersion {
		return true
	}
	// The object moved on, but this manager's managedFields entry is the
	// one the API server answered the apply with: the API server takes a
	// field out of a manager's set whenever another write changes or
	// removes it. That alone does not prove our values hold: another
	// writer under the same field manager — the next leader, a second
	// controller left at the default manager — may have applied other
	// values to the same fields within the same second, which leaves the
	// entry byte for byte as it was (TestLeaderHandover). So the intent's
	// values are checked in the live object too: the common case (status
	// churn, other managers' fields) costs a hash and a value walk, not a
	// typed merge.
	if stripped(live) {
		// A cache that strips managedFields (APIReader): no ownership to
		// read, only values. What the answer to our apply recorded stands
		// for ownership; a changed intent is never decided here (its hash
		// differs). A new version that changed nothing else is a write of
		// ownership alone — a managedFields reset (repairReset), another
		// manager's apply of the same values —, unseen here: the apply is
		// sent, and its answer shows it (one request per such write).
		now := content(live)
		if now == "" || now == e.content {
			return false
		}
		if o.schema != nil && !mergeIsNoop(*o.schema, live, in.object()) || o.schema == nil && !satisfies(live, in.object().Object) {
			return false
		}
		if o.preview == nil {
			c.touch(k, hash, version(live), now)
		}
		return true
	}
	cur := ownedHash(live, k.manager, k.subresource)
	if e.owned != 0 && cur == 0 {
		// Our entry is gone: the managedFields were reset (repairReset), or
		// other writers took every field of ours. Whatever the values
		// say, an apply would change ownership: it is sent.
		return false
	}
	if e.owned != 0 && cur == e.owned && satisfies(live, in.object().Object) {
		if o.preview == nil {
			c.touch(k, hash, version(live), seal(live))
		}
		return true
	}
	if cur != 0 && cur != e.owned {
		// This manager's entry changed since our apply: another writer
		// took a field, or one under the same field manager (the other
		// replica, after a leader handover) applied since — perhaps more
		// fields than this intent, which its apply would prune and a merge
		// does not show (TestOldLeaderPrunes). The memory vouches for
		// nothing: decide as without it.
		if !settled(o.schema, live, in.object(), o, k.subresource) {
			return false
		}
		if o.preview == nil {
			c.record(k, hash, live, cur, seal(live))
		}
		return true
	}
	if o.schema != nil {
		if !mergeIsNoop(*o.schema, live, in.object()) {
			return false
		}
	} else if !satisfies(live, in.object().Object) {
		return false
	}
	if o.preview == nil {
		c.touch(k, hash, version(live), seal(live))
	}
	return true
}

// stripped reports an object read without managedFields: every object the
// API server serves has at least one entry, so none means a cache
// transform took them out.
func stripped(obj client.Object) bool {
	return obj.GetManagedFields() == nil && obj.GetResourceVersion() != ""
}

// version names the state of obj: its resourceVersion, or, for an object
// that has none — controller-runtime v0.22's fake client gives none to
// objects an apply creates — a hash of its content, so that two copies of
// the same state match and a changed one does not.
func version(obj client.Object) string {
	if rv := obj.GetResourceVersion(); rv != "" {
		return rv
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return "" // never equal to a recorded version: a doubt
	}
	h := fnv.New128a()
	h.Write(b)
	return "content:" + string(h.Sum(nil))
}

// content names what obj holds apart from its resourceVersion, its
// managedFields and its kind: "" when it cannot be encoded.
func content(obj client.Object) string {
	b, err := json.Marshal(obj)
	if err != nil {
		return ""
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "resourceVersion")
		delete(md, "managedFields")
	}
	b, _ = json.Marshal(m)
	h := fnv.New128a()
	h.Write(b)
	return string(h.Sum(nil))
}

// reject remembers that the API server refused intent hash for the object
// at version rv (uid).
func (c *skipCache) reject(k cacheKey, hash, rv string, uid types.UID, ie *ImmutableError) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.entries[k] = cacheEntry{hash: hash, resourceVersion: rv, uid: uid, at: time.Now(), refused: ie}
	n := len(c.entries)
	c.mu.Unlock()
	c.exportSize(n)
}

// rejected returns the refusal of intent hash for live, if the object is
// still as it was refused.
func (c *skipCache) rejected(k cacheKey, hash string, live client.Object) *ImmutableError {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	e, ok := c.entries[k]
	c.mu.Unlock()
	if !ok || e.refused == nil || e.hash != hash || e.uid != live.GetUID() || e.resourceVersion != version(live) || time.Since(e.at) > c.ttl {
		return nil
	}
	return e.refused
}

// touch moves an entry to the live resourceVersion, its intent unchanged.
func (c *skipCache) touch(k cacheKey, hash, rv, content string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	if cur, ok := c.entries[k]; ok && cur.hash == hash {
		cur.resourceVersion, cur.content = rv, content
		c.entries[k] = cur
	}
	c.mu.Unlock()
}

// ownedHash hashes obj's UID and manager's Apply entry in its
// managedFields for subresource; 0 when there is none.
func ownedHash(obj client.Object, manager, subresource string) uint64 {
	for _, e := range obj.GetManagedFields() {
		if e.Manager != manager || e.Operation != metav1.ManagedFieldsOperationApply || e.Subresource != subresource {
			continue
		}
		h := fnv.New64a()
		h.Write([]byte(obj.GetUID()))
		h.Write([]byte{0})
		h.Write([]byte(e.APIVersion))
		h.Write([]byte{0})
		if e.Time != nil {
			h.Write([]byte(e.Time.UTC().Format(time.RFC3339)))
		}
		h.Write([]byte{0})
		if e.FieldsV1 != nil {
			h.Write(e.FieldsV1.Raw)
		}
		if sum := h.Sum64(); sum != 0 {
			return sum
		}
		return 1
	}
	return 0
}

// mergeIsNoop reports whether merging desired into live, by the kind's
// merge schema, gives live back: list-map items, set values and map keys
// of other managers are allowed; any error is a doubt.
func mergeIsNoop(t typed.ParseableType, live client.Object, desired *unstructured.Unstructured) bool {
	tl, err := typedOf(t, live)
	if err != nil {
		return false
	}
	td, err := t.FromUnstructured(desired.Object, typed.AllowDuplicates)
	if err != nil {
		return false
	}
	merged, err := tl.Merge(td)
	if err != nil {
		return false
	}
	cmp, err := tl.Compare(merged)
	return err == nil && cmp.IsSame()
}

// satisfies reports whether every value of want is in the live object:
// maps are compared key by key, lists item by item with equal lengths (an
// item another manager added makes it false), scalars by equality.
func satisfies(live client.Object, want map[string]any) bool {
	have, ok := jsonOf(live)
	return ok && subset(want, have)
}

// jsonOf is the live object as its JSON decodes, numbers as JSON writes
// them: an intent's 80 is the live 80.
func jsonOf(live client.Object) (map[string]any, bool) {
	b, err := json.Marshal(live)
	if err != nil {
		return nil, false
	}
	var have map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return have, dec.Decode(&have) == nil
}

func subset(want, have any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			hv, ok := h[k]
			if !ok || !subset(wv, hv) {
				return false
			}
		}
		return true
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return false
		}
		for i := range w {
			if !subset(w[i], h[i]) {
				return false
			}
		}
		return true
	default:
		if n, ok := have.(json.Number); ok {
			w, err := json.Marshal(want)
			return err == nil && string(w) == n.String()
		}
		return reflect.DeepEqual(want, have)
	}
}
