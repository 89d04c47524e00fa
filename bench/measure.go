package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/ssagen/ssagen/audit/auditenvtest"
	"github.com/ssagen/ssagen/internal/testenv"
)

// Env is a kube-apiserver and etcd started for one run.
type Env struct {
	env *envtest.Environment
	// Config reaches the API server as cluster admin.
	Config *rest.Config
}

// StartEnv starts a fresh kube-apiserver and etcd (KUBEBUILDER_ASSETS)
// with the example CRDs installed (internal/testenv).
func StartEnv(opts ...Option) (*Env, error) {
	var o runOptions
	for _, opt := range opts {
		opt(&o)
	}
	var configure []func(*envtest.Environment)
	var auditErr error
	if o.audit != nil {
		configure = append(configure, func(e *envtest.Environment) {
			_, auditErr = auditenvtest.Configure(e, *o.audit)
		})
	}
	env, cfg, err := testenv.New(configure...)
	if err == nil && auditErr != nil {
		env.Stop()
		err = auditErr
	}
	if err != nil {
		return nil, err
	}
	// Client-side throttling would measure the rate limiter, not the
	// pattern: it is lifted for every pattern alike.
	cfg.QPS, cfg.Burst = 5000, 10000
	return &Env{env: env, Config: cfg}, nil
}

// Option sets up a run.
type Option func(*runOptions)

type runOptions struct {
	audit *auditenvtest.Options
}

// Audit has the run's API server send its audit events where o says:
// a log (o.Dir/audit.log), ssagen audit serve's webhook, or both.
func Audit(o auditenvtest.Options) Option { return func(r *runOptions) { r.audit = &o } }

// UserAgent is what the controller of a run sends as its user agent: an
// audit log tells its requests from the run's own setup by it.
func UserAgent(p Pattern) string { return "ssagen-bench/" + p.Name }

// Stop stops the API server and etcd.
func (e *Env) Stop() error { return e.env.Stop() }

// RequestKey is one row of the request table.
type RequestKey struct {
	Verb     string // GET, LIST, WATCH, POST, PUT, PATCH, APPLY, DELETE
	Code     int
	Resource string // "roles", "pods/status", …
}

func (k RequestKey) String() string { return fmt.Sprintf("%s %s %d", k.Verb, k.Resource, k.Code) }

// Requests counts requests by verb, status code and resource.
type Requests map[RequestKey]int

type requestCount struct {
	RequestKey
	N int
}

// MarshalJSON writes the counts as a sorted list (JSON maps need string keys).
func (r Requests) MarshalJSON() ([]byte, error) {
	list := make([]requestCount, 0, len(r))
	for k, v := range r {
		list = append(list, requestCount{k, v})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].RequestKey.String() < list[j].RequestKey.String() })
	return json.Marshal(list)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (r *Requests) UnmarshalJSON(b []byte) error {
	var list []requestCount
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	*r = Requests{}
	for _, c := range list {
		(*r)[c.RequestKey] += c.N
	}
	return nil
}

// Total sums the requests matching keep (nil = all).
func (r Requests) Total(keep func(RequestKey) bool) int {
	n := 0
	for k, v := range r {
		if keep == nil || keep(k) {
			n += v
		}
	}
	return n
}

// Writes are requests that ask to change something.
func Writes(k RequestKey) bool {
	switch k.Verb {
	case "POST", "PUT", "PATCH", "APPLY", "DELETE":
		return true
	}
	return false
}

// NotWatch is every request but the long-running watches.
func NotWatch(k RequestKey) bool { return k.Verb != "WATCH" }

// Conflicts are the 409 answers.
func Conflicts(k RequestKey) bool { return k.Code == http.StatusConflict }

// ByVerbCode folds resources away: "PUT 409" → n, sorted for printing.
func (r Requests) ByVerbCode(keep func(RequestKey) bool) string {
	m := map[string]int{}
	for k, v := range r {
		if keep == nil || keep(k) {
			m[fmt.Sprintf("%s %d", k.Verb, k.Code)] += v
		}
	}
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s×%d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// Sub is r minus before.
func (r Requests) Sub(before Requests) Requests {
	out := Requests{}
	for k, v := range r {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// Counter counts what a rest.Config sends, by verb, code and resource.
type Counter struct {
	mu sync.Mutex
	n  Requests
}

// Count wraps cfg so that every request through it is counted
// (internal/testenv's transport, keyed by verb, code and resource).
func Count(cfg *rest.Config) (*rest.Config, *Counter) {
	c := &Counter{n: Requests{}}
	out := testenv.Observe(cfg, func(r *http.Request, code int) {
		k := classify(r)
		k.Code = code
		c.mu.Lock()
		c.n[k]++
		c.mu.Unlock()
	})
	return out, c
}

// Snapshot copies the counts so far.
func (c *Counter) Snapshot() Requests {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := Requests{}
	for k, v := range c.n {
		out[k] = v
	}
	return out
}

// classify names a request the way the API server's
// apiserver_request_total does (verb, resource, subresource).
func classify(r *http.Request) RequestKey {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	// /api/v1/… or /apis/group/version/…
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return RequestKey{Verb: r.Method, Resource: "/" + strings.Join(parts, "/")}
	}
	if len(parts) >= 3 && parts[0] == "namespaces" {
		parts = parts[2:]
	}
	res, named := "", false
	if len(parts) > 0 {
		res = parts[0]
		named = len(parts) > 1
	}
	if len(parts) > 2 {
		res += "/" + parts[2]
	}
	verb := r.Method
	switch {
	case r.URL.Query().Get("watch") == "true" || r.URL.Query().Get("watch") == "1":
		verb = "WATCH"
	case verb == http.MethodGet && !named:
		verb = "LIST"
	case verb == http.MethodPatch && strings.HasPrefix(r.Header.Get("Content-Type"), "application/apply-patch"):
		verb = "APPLY"
	}
	return RequestKey{Verb: verb, Resource: res}
}

// ServerRequests reads the API server's own apiserver_request_total,
// keyed like Counter's.
func ServerRequests(ctx context.Context, cfg *rest.Config) (Requests, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the API server's metrics: %w", err)
	}
	return parseRequestTotal(raw)
}

// parseRequestTotal reads apiserver_request_total series from the
// Prometheus text format.
func parseRequestTotal(raw []byte) (Requests, error) {
	out := Requests{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	const name = "apiserver_request_total{"
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name) {
			continue
		}
		end := strings.LastIndex(line, "}")
		if end < 0 {
			return nil, fmt.Errorf("malformed metric line %q", line)
		}
		labels := parseLabels(line[len(name):end])
		v, err := strconv.ParseFloat(strings.Fields(line[end+1:])[0], 64)
		if err != nil {
			return nil, fmt.Errorf("malformed metric value in %q: %w", line, err)
		}
		code, _ := strconv.Atoi(labels["code"])
		res := labels["resource"]
		if s := labels["subresource"]; s != "" {
			res += "/" + s
		}
		out[RequestKey{Verb: labels["verb"], Code: code, Resource: res}] += int(v)
	}
	return out, sc.Err()
}

func parseLabels(s string) map[string]string {
	out := map[string]string{}
	for len(s) > 0 {
		eq := strings.Index(s, `="`)
		if eq < 0 {
			break
		}
		key := strings.TrimLeft(s[:eq], ",")
		rest := s[eq+2:]
		var val strings.Builder
		i := 0
		for ; i < len(rest); i++ {
			if rest[i] == '\\' && i+1 < len(rest) {
				i++
				val.WriteByte(rest[i])
				continue
			}
			if rest[i] == '"' {
				break
			}
			val.WriteByte(rest[i])
		}
		out[key] = val.String()
		if i+1 > len(rest) {
			break
		}
		s = rest[i+1:]
	}
	return out
}

// Events counts what informers deliver: objects created, updates that
// bumped the resourceVersion (writes that changed an object), deletes.
type Events struct {
	mu                     sync.Mutex
	Adds, Updates, Deletes int
}

// Handler is the informer event handler that counts into e.
func (e *Events) Handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { e.mu.Lock(); e.Adds++; e.mu.Unlock() },
		UpdateFunc: func(before, after any) {
			b, ok1 := before.(interface{ GetResourceVersion() string })
			a, ok2 := after.(interface{ GetResourceVersion() string })
			if ok1 && ok2 && b.GetResourceVersion() == a.GetResourceVersion() {
				return // a resync, not a write
			}
			e.mu.Lock()
			e.Updates++
			e.mu.Unlock()
		},
		DeleteFunc: func(any) { e.mu.Lock(); e.Deletes++; e.mu.Unlock() },
	}
}

// Snapshot returns adds+updates+deletes so far and the updates alone.
func (e *Events) Snapshot() (total, updates int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.Adds + e.Updates + e.Deletes, e.Updates
}

// Usage is the process's CPU time and allocations at one moment.
type Usage struct {
	CPU            time.Duration
	Mallocs, Bytes uint64
}

// ReadUsage reads the process's CPU time (user+system) and allocations.
func ReadUsage() Usage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return Usage{
		CPU:     time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		Mallocs: ms.Mallocs,
		Bytes:   ms.TotalAlloc,
	}
}

// Sub is u minus before.
func (u Usage) Sub(before Usage) Usage {
	return Usage{CPU: u.CPU - before.CPU, Mallocs: u.Mallocs - before.Mallocs, Bytes: u.Bytes - before.Bytes}
}

// Percentile is the q-quantile (0 < q ≤ 1) of ds, nearest rank.
func Percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(float64(len(s))*q+0.999999) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(s) {
		i = len(s) - 1
	}
	return s[i]
}

// waitFor polls cond until it holds or timeout passes.
func waitFor(ctx context.Context, timeout time.Duration, what string, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s waiting for %s", timeout, what)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

// quiet waits until counter has seen no request (but watches) for d, so
// the events a phase caused are delivered before the next one starts.
func quiet(ctx context.Context, c *Counter, events *Events, d time.Duration) error {
	last, lastEv := c.Snapshot().Total(NotWatch), -1
	since := time.Now()
	return waitFor(ctx, 5*time.Minute, "the controller to go quiet", func() bool {
		n := c.Snapshot().Total(NotWatch)
		ev := 0
		if events != nil {
			ev, _ = events.Snapshot()
		}
		if n != last || ev != lastEv {
			last, lastEv, since = n, ev, time.Now()
			return false
		}
		return time.Since(since) >= d
	})
}
