package testenv

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"k8s.io/client-go/rest"
)

// Counter counts the requests a rest.Config sends, by verb and status code.
type Counter struct {
	mu     sync.Mutex
	counts map[string]int
}

// Count wraps cfg's transport so that every request is counted.
func Count(cfg *rest.Config) (*rest.Config, *Counter) {
	c := &Counter{counts: map[string]int{}}
	out := Observe(cfg, func(r *http.Request, code int) {
		verb := r.Method
		if r.URL.Query().Get("watch") == "true" {
			verb = "WATCH"
		}
		c.mu.Lock()
		c.counts[fmt.Sprintf("%s %d", verb, code)]++
		c.mu.Unlock()
	})
	return out, c
}

// Observe returns a copy of cfg whose transport calls seen with every
// request and its status code (0 when no response came): the one
// counting transport of the tests and of bench/, which keys by resource.
func Observe(cfg *rest.Config, seen func(r *http.Request, code int)) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(r)
			code := 0
			if resp != nil {
				code = resp.StatusCode
			}
			seen(r, code)
			return resp, err
		})
	})
	return out
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Snapshot returns the counts so far ("PATCH 200" → n).
func (c *Counter) Snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.counts {
		out[k] = v
	}
	return out
}

// Since returns the counts added after before, without zero entries.
func (c *Counter) Since(before map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range c.Snapshot() {
		if d := v - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

// Total sums counts whose key starts with one of the prefixes ("" = all).
func Total(counts map[string]int, prefixes ...string) int {
	n := 0
	for k, v := range counts {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				n += v
				break
			}
		}
	}
	return n
}

// String prints counts sorted, for messages; "no requests" when empty.
func String(counts map[string]int) string {
	if len(counts) == 0 {
		return "no requests"
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s×%d", k, counts[k])
	}
	return strings.Join(parts, " ")
}
