package bench

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
)

// FieldManager is the benchmark controller's field manager.
const FieldManager = "bench-controller"

// Measure is what one phase of a scenario cost.
type Measure struct {
	// Requests the controller sent, by verb, code and resource.
	Requests Requests
	// Server is the API server's apiserver_request_total over the same
	// phase, for the resources the scenario writes (no watches).
	Server Requests
	// Events is the number of watch events the controller's informers
	// delivered for the owned kinds; Bumps those that were updates
	// (resourceVersion changes of existing objects).
	Events, Bumps int
	// External is how many of those events the scenario's other actors
	// caused (objects the driver created, simulated kubelet or
	// kube-controller-manager status writes); the rest are the
	// controller's own writes that changed an object.
	External int
	// Reconciles run in the phase, and how many returned an error
	// (each one a rate-limited requeue in a controller).
	Reconciles, Errors int
	// Usage is the process's CPU time and allocations.
	Usage Usage
	// Durations are per-item times to converge.
	Durations []time.Duration
}

// ControllerWrites is the number of the controller's writes that changed
// an object (each one a resourceVersion bump and a watch event).
func (m Measure) ControllerWrites() int { return m.Events - m.External }

// Conflicts is the number of 409 answers.
func (m Measure) Conflicts() int { return m.Requests.Total(Conflicts) }

// run is the plumbing every scenario shares: an API server, a counted
// config, an informer cache and a client reading from it.
type run struct {
	env      *Env
	scheme   *runtime.Scheme
	counted  *rest.Config
	counter  *Counter
	direct   client.Client // uncounted, for the scenario's own setup
	events   *Events
	writer   *Writer
	pattern  Pattern
	watching []string // resources the scenario writes, for the cross-check
}

func newRun(p Pattern, opts []Option, watching ...string) (*run, error) {
	env, err := StartEnv(opts...)
	if err != nil {
		return nil, err
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := platformv1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	counted, counter := Count(env.Config)
	counted.UserAgent = UserAgent(p)
	direct, err := client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		env.Stop()
		return nil, err
	}
	return &run{env: env, scheme: scheme, counted: counted, counter: counter, direct: direct, events: &Events{},
		pattern: p, watching: watching}, nil
}

func (r *run) stop() { _ = r.env.Stop() }

// newWriter returns the pattern's writer on a client that reads from
// informers.
func (r *run) newWriter(informers ctrlcache.Cache) (*Writer, error) {
	c, err := client.New(r.counted, client.Options{Scheme: r.scheme, Cache: &client.CacheOptions{Reader: informers}})
	if err != nil {
		return nil, err
	}
	return newWriter(c, r.scheme, r.pattern), nil
}

// phase measures what f costs, after f the controller going quiet.
type phase struct {
	r      *run
	before Requests
	server Requests
	events int
	bumps  int
	usage  Usage
}

func (r *run) begin(ctx context.Context) (*phase, error) {
	server, err := ServerRequests(ctx, r.env.Config)
	if err != nil {
		return nil, err
	}
	ev, up := r.events.Snapshot()
	return &phase{r: r, before: r.counter.Snapshot(), server: server, events: ev, bumps: up, usage: ReadUsage()}, nil
}

func (p *phase) end(ctx context.Context) (Measure, error) {
	usage := ReadUsage().Sub(p.usage)
	reqs := p.r.counter.Snapshot().Sub(p.before)
	server, err := ServerRequests(ctx, p.r.env.Config)
	if err != nil {
		return Measure{}, err
	}
	server = server.Sub(p.server)
	ev, up := p.r.events.Snapshot()
	keep := p.r.keep()
	for k := range server {
		if !keep(k) {
			delete(server, k)
		}
	}
	return Measure{Requests: reqs, Server: server, Events: ev - p.events, Bumps: up - p.bumps, Usage: usage}, nil
}

// keep selects the requests to the scenario's written resources, no
// watches: what both counts must agree on. kube-apiserver's own endpoint
// reconciler GETs the default/kubernetes Endpoints and EndpointSlice
// every 10 s over loopback; the controller never GETs them (it reads
// from its cache), so those GETs are left out.
func (r *run) keep() func(RequestKey) bool {
	set := map[string]bool{}
	for _, w := range r.watching {
		set[w] = true
	}
	return func(k RequestKey) bool {
		if k.Verb == "GET" && (k.Resource == "endpointslices" || k.Resource == "endpoints") {
			return false
		}
		return k.Verb != "WATCH" && set[k.Resource]
	}
}

// CrossCheck compares the controller's count with the API server's over
// the scenario's resources; "" when they agree.
func (r *run) crossCheck(m Measure) string {
	mine := Requests{}
	keep := r.keep()
	for k, v := range m.Requests {
		if keep(k) {
			mine[k] = v
		}
	}
	diff := []string{}
	seen := map[RequestKey]bool{}
	for k, v := range mine {
		seen[k] = true
		if m.Server[k] != v {
			diff = append(diff, fmt.Sprintf("%s: controller %d, apiserver %d", k, v, m.Server[k]))
		}
	}
	for k, v := range m.Server {
		if !seen[k] && v != 0 {
			diff = append(diff, fmt.Sprintf("%s: controller 0, apiserver %d", k, v))
		}
	}
	if len(diff) == 0 {
		return ""
	}
	return fmt.Sprint(diff)
}
