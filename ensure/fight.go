package ensure

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// A fight: the answer to this client's own apply does not hold the
// intent — a mutating webhook or the API server's defaulting rewrote a
// field the intent sets. Sending the same intent again cannot win: each
// apply is rewritten the same way, and every unrelated write to the
// object (a status update, another writer's label) would otherwise cost
// one more apply. So Ensure does not send the same intent to the same
// object again within a backoff that doubles with every apply the object
// answers the same way (FightBackoff: from 10 s to 5 min), counts the
// fight once in ssagen_fights_total{client,kind,field}, logs it, and
// records a Warning event FieldFight on the object when the client has an
// EventRecorder. A changed intent is sent at once; once the backoff is
// over the intent is sent again, and an answer that holds it ends the
// fight.
//
// Another controller that takes the field back with a forced apply is not
// a fight in this sense: its write changes the field's owner, and this
// client's next apply takes it back, one apply for each of theirs.

var fightTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "ssagen_fights_total",
	Help: "Fights Ensure met, by client (MetricsName), kind and the first field the API server's answer did not hold as the intent sets it (a mutating webhook, defaulting).",
}, []string{"client", "kind", "field"})

// FightBackoff sets how long Ensure waits before it sends an intent again
// to an object whose answer did not hold it (a fight): first, then
// doubling to at most max. The defaults are 10 seconds and 5 minutes.
func FightBackoff(first, max time.Duration) ApplyOption {
	return applyFunc(func(o *options) { o.fightFirst, o.fightMax = first, max })
}

// EventRecorder is what Ensure records events with:
// k8s.io/client-go/tools/record.EventRecorder, which
// mgr.GetEventRecorderFor(name) returns.
type EventRecorder interface {
	Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any)
}

// Events gives the client an EventRecorder: a fight is recorded as a
// Warning event FieldFight on the object.
func Events(r EventRecorder) ClientOption { return events{r} }

type events struct{ r EventRecorder }

func (e events) setClient(c *clientConfig) { c.events = e.r }

// fightBackoff is the wait after the n-th answer in a row that did not
// hold the same intent.
func (o *options) fightBackoff(n int) time.Duration {
	d := o.fightFirst
	for i := 1; i < n && d < o.fightMax; i++ {
		d *= 2
	}
	return min(d, o.fightMax)
}

// holds reports whether obj, the answer to our apply, holds the intent.
func holds(obj client.Object, in *intent, o *options) bool {
	if o.schema != nil {
		return mergeIsNoop(*o.schema, obj, in.object())
	}
	return satisfies(obj, in.object().Object)
}

// fought records a fight after the apply of p, whose answer obj did not
// hold the intent: the backoff, and on the first answer of a fight the
// metric, the log line and the event.
func fought(ctx context.Context, c client.Client, obj client.Object, p *plan, o *options) {
	n := p.mem.fight(p.key, p.hash, o)
	if n != 1 {
		return
	}
	field := firstDifference(p.in.object().Object, obj)
	fightTotal.WithLabelValues(metricsNameOf(c), p.in.gvk.Kind, field).Inc()
	msg := fmt.Sprintf("the API server's answer to field manager %q's apply does not hold its intent at %s (a mutating webhook or defaulting rewrites it): the same intent is sent again after %s, then less and less often while the answer stays so",
		o.fieldManager, field, o.fightBackoff(1))
	log.FromContext(ctx).Info("ensure: "+msg, "kind", p.in.gvk.Kind, "namespace", p.in.namespace, "name", p.in.name)
	if ec := stateOf(c); ec != nil && ec.events != nil {
		ec.events.Eventf(obj, "Warning", "FieldFight", "%s", msg)
	}
}

// fight counts an answer that did not hold intent hash (the count goes on
// while the intent is the same) and sets the backoff; it returns the count.
func (c *skipCache) fight(k cacheKey, hash string, o *options) int {
	if c == nil {
		return 1 // no memory: nothing to back off with, reported each time
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok || e.hash != hash {
		return 1
	}
	e.fights++
	e.fightUntil = time.Now().Add(o.fightBackoff(e.fights))
	c.entries[k] = e
	return e.fights
}

// fighting reports whether the entry defers the same intent: a fight's
// backoff is running.
func (e cacheEntry) fighting(hash string, uid types.UID) bool {
	return e.fights > 0 && e.hash == hash && e.uid == uid && time.Now().Before(e.fightUntil)
}

// firstDifference names the first field, in the order of its path, whose
// value the intent sets and obj does not hold: ".spec.replicas", with
// "[*]" for a list's items (a label of few values).
func firstDifference(want map[string]any, obj client.Object) string {
	have, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return "unknown"
	}
	if p := differ("", want, have); p != "" {
		return p
	}
	return "unknown"
}

func differ(path string, want, have any) string {
	switch w := want.(type) {
	case map[string]any:
		h, _ := have.(map[string]any)
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if path == "" && (k == "apiVersion" || k == "kind") {
				continue
			}
			if p := differ(path+"."+k, w[k], h[k]); p != "" {
				return p
			}
		}
		return ""
	case []any:
		h, _ := have.([]any)
		if len(h) != len(w) {
			return path
		}
		for i := range w {
			if p := differ(path+"[*]", w[i], h[i]); p != "" {
				return p
			}
		}
		return ""
	}
	if fmt.Sprint(want) != fmt.Sprint(have) {
		return strings.TrimSpace(path)
	}
	return ""
}
