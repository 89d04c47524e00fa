package ensure

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Client is a client.Client that carries what Ensure remembers between
// calls: the field manager, the skip cache (per object and field manager,
// the intent last applied and what the API server answered), what is known
// of kinds' scopes, and the name its metrics are labelled with. It is the
// client it wraps for every other call, as controller-runtime's
// client.WithFieldOwner is.
//
// Build one per controller, next to its reconciler, and hand it to the
// generated Ensure<Kind> helpers, Prune and Finalize:
//
//	c := ensure.NewClient(mgr.GetClient(), ensure.FieldManager("project-controller"))
//
// Given any other client, the helpers keep no memory: each call decides
// from the live object and its managedFields alone (what a first resync
// after a restart does), which still sends no request for an unchanged
// object whose kind has a merge schema, and the field manager is
// DefaultFieldManager unless a call names one.
type Client struct {
	client.Client
	fieldManager string
	cache        *skipCache // also holds the metrics name
	// apiReader reads objects with their managedFields where the client's
	// cache strips them (APIReader).
	apiReader client.Reader
	// events records what Ensure tells about objects (Events).
	events EventRecorder
	// scopes remembers, per kind, whether it is namespaced: a kind's scope
	// does not change, and asking the REST mapper costs about 70
	// allocations per call.
	scopes sync.Map // schema.GroupVersionKind → bool
}

// NewClient wraps c with the memory of Ensure calls. Memory is bounded: an
// entry goes when its object is found deleted, when a delete event passes
// the helpers' Owned<Kind>Changes predicates built on this client, or when
// it has not been written for the TTL (CacheTTL).
func NewClient(c client.Client, opts ...ClientOption) *Client {
	cfg := clientConfig{fieldManager: DefaultFieldManager, ttl: defaultTTL}
	for _, opt := range opts {
		opt.setClient(&cfg)
	}
	return &Client{Client: c, fieldManager: cfg.fieldManager, cache: newSkipCache(cfg.name, cfg.ttl), apiReader: cfg.apiReader, events: cfg.events}
}

// clientConfig is what ClientOptions set.
type clientConfig struct {
	fieldManager, name string
	ttl                time.Duration
	apiReader          client.Reader
	events             EventRecorder
}

// APIReader gives the client a reader of the API server itself
// (mgr.GetAPIReader()), for a cache that strips managedFields to save
// memory (cache.Options' DefaultTransform, cache.TransformStripManagedFields):
// Ensure reads an object's managedFields there on its first sight — after
// a start, or once the memory let it go — where the migration from
// Update, the release of fields left shared by a managedFields reset,
// and a restart's decision to send nothing need ownership: one GET per
// object, never at steady state. Afterwards it decides by the values the
// cache holds and what the answers to its applies recorded; a reset is
// seen, and released, in the answer to the next apply (a field that same
// apply drops stays with "before-first-apply", as it does when a reset
// and an intent change both come before a reconcile). Without it, a
// stripped object is decided by its values alone: an apply on first
// sight, and no migration. A cache that keeps managedFields never needs
// it.
func APIReader(r client.Reader) ClientOption { return apiReader{r} }

type apiReader struct{ r client.Reader }

func (a apiReader) setClient(c *clientConfig) { c.apiReader = a.r }

// hasAPIReader reports whether c was given an APIReader: its cache strips
// managedFields.
func hasAPIReader(c client.Client) bool {
	ec := stateOf(c)
	return ec != nil && ec.apiReader != nil
}

// fromAPIServer reads obj (by its name and namespace) again from c's
// APIReader, managedFields and all, where the cache strips them. ok is
// false when c has no reader: obj is as it was.
func fromAPIServer(ctx context.Context, c client.Client, obj client.Object) (ok bool, err error) {
	ec := stateOf(c)
	if ec == nil || ec.apiReader == nil {
		return false, nil
	}
	return true, ec.apiReader.Get(ctx, client.ObjectKeyFromObject(obj), obj)
}

// FieldManager is the field manager the client's Ensure calls apply with.
func (c *Client) FieldManager() string { return c.fieldManager }

// Remembered is the number of objects the client remembers (what the
// ssagen_skip_cache_entries gauge shows of a named client).
func (c *Client) Remembered() int { return c.cache.len() }

// Unwrap returns the client NewClient wrapped.
func (c *Client) Unwrap() client.Client { return c.Client }

// ClientOption configures NewClient.
type ClientOption interface{ setClient(*clientConfig) }

// CacheTTL sets how long the client remembers an object it has not
// written (default 10 hours).
func CacheTTL(d time.Duration) ClientOption { return cacheTTL(d) }

// MetricsName names the client in the runtime's metrics: the label
// client="<name>" of ssagen_apply_total and
// ssagen_apply_request_duration_seconds, and of the
// ssagen_skip_cache_entries gauge, its skip cache's size. One name per
// controller, or per cluster when a manager talks to several. Calls
// through an unnamed client, or a plain one, count under client="", and
// an unnamed client exports no size.
func MetricsName(name string) ClientOption { return metricsName(name) }

type cacheTTL time.Duration

func (d cacheTTL) setClient(c *clientConfig) { c.ttl = time.Duration(d) }

type metricsName string

func (n metricsName) setClient(c *clientConfig) { c.name = string(n) }

// stateOf is the memory c carries: its Client, or nil for a plain client.
func stateOf(c client.Client) *Client {
	ec, _ := c.(*Client)
	return ec
}

// memory is the skip cache of c, or nil (which remembers nothing).
func memory(c client.Client) *skipCache {
	if ec := stateOf(c); ec != nil {
		return ec.cache
	}
	return nil
}

// managerOf is the field manager a call through c applies with when it
// names none.
func managerOf(c client.Client) string {
	if ec := stateOf(c); ec != nil {
		return ec.fieldManager
	}
	return DefaultFieldManager
}

// metricsNameOf is the client label of calls through c.
func metricsNameOf(c client.Client) string {
	if ec := stateOf(c); ec != nil {
		return ec.cache.name
	}
	return ""
}

// knownScope is what c remembers of gvk's scope.
func knownScope(c client.Client, gvk schema.GroupVersionKind) (namespaced, ok bool) {
	ec := stateOf(c)
	if ec == nil {
		return false, false
	}
	v, ok := ec.scopes.Load(gvk)
	if !ok {
		return false, false
	}
	return v.(bool), true
}

// rememberScope records the REST mapper's answer for gvk in c, if c
// remembers anything.
func rememberScope(c client.Client, gvk schema.GroupVersionKind, namespaced bool) {
	if ec := stateOf(c); ec != nil {
		ec.scopes.Store(gvk, namespaced)
	}
}
