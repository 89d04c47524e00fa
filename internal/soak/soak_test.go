package soak_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	coreensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
	"github.com/ssagen/ssagen/internal/soak"
	"github.com/ssagen/ssagen/internal/testenv"
)

// ciSeeds are the fixed seeds make test-matrix runs, each for its number of
// operations: three short ones, and the seeds fresh runs found violations
// with, for as long as it took them (1795889629: issue 54, a reused
// configuration's decoded list items).
var ciSeeds = []struct {
	seed uint64
	ops  int
}{{1, 150}, {2, 150}, {3, 150}, {1795889629, 560}}

// Bounds of check (e): growth from the first quiet point to any later one.
const (
	goroutineSlack = 100
	heapSlackMiB   = 64
)

// TestSoak runs the soak: without SOAK_FOR or SOAK_SEED, the short fixed
// seeds; with them, one run of SOAK_SEED (default: the time) for SOAK_FOR
// or SOAK_OPS operations, whichever ends first. A violation stops its run
// and prints the seed, the operations since the last good check and the
// history of the child concerned; SOAK_SEED=<seed> SOAK_OPS=<n> replays it.
func TestSoak(t *testing.T) {
	ctrllog.SetLogger(logr.Discard())
	var total soak.Report
	defer func() { fmt.Println(total.Summary()) }()
	seedEnv, forEnv, opsEnv := os.Getenv("SOAK_SEED"), os.Getenv("SOAK_FOR"), os.Getenv("SOAK_OPS")
	if seedEnv == "" && forEnv == "" && opsEnv == "" {
		var kinds [soak.Check + 1]int
		for _, s := range ciSeeds {
			t.Run(fmt.Sprintf("seed=%d", s.seed), func(t *testing.T) {
				rep := runSoak(t, s.seed, s.ops, 0)
				total.Add(rep)
				for k := range kinds {
					kinds[k] += rep.Kinds[k]
				}
			})
		}
		if !t.Failed() && total.Operations > 0 {
			for k, n := range kinds {
				if n == 0 {
					t.Errorf("the fixed seeds never drew a %s: choose seeds that cover every operation", soak.Kind(k))
				}
			}
		}
		return
	}
	seed := uint64(time.Now().UnixNano())
	if seedEnv != "" {
		s, err := strconv.ParseUint(seedEnv, 10, 64)
		if err != nil {
			t.Fatalf("SOAK_SEED=%q: %v", seedEnv, err)
		}
		seed = s
	}
	ops := 0
	if opsEnv != "" {
		n, err := strconv.Atoi(opsEnv)
		if err != nil {
			t.Fatalf("SOAK_OPS=%q: %v", opsEnv, err)
		}
		ops = n
	}
	var d time.Duration
	if forEnv != "" {
		var err error
		if d, err = time.ParseDuration(forEnv); err != nil {
			t.Fatalf("SOAK_FOR=%q: %v", forEnv, err)
		}
	}
	if ops == 0 && d == 0 {
		ops = ciSeeds[0].ops
	}
	total = runSoak(t, seed, ops, d)
}

// run is one soak run: the cluster, the replicas of our controller, the
// children and the model, and what was counted.
type run struct {
	t        *testing.T
	ctx      context.Context
	seed     uint64
	api      *apiServer
	tmp      string
	direct   client.Client // the other writers, and the checks' reads: not counted
	plain    *rest.Config
	counter  *testenv.Counter
	counted  *rest.Config
	owner    *platformv1alpha1.Project
	replicas [2]*replica
	leader   int
	children []*child
	web      *webhook
	rep      soak.Report

	since    []string // operations since the last good check
	lastGood int
	failed   bool
	memLoss  int // restarts and handovers: the doubt bound's events
	// reusedApplies are the reconciles given a reused configuration: its
	// cut-down bytes are a new intent to the memory, and so is the
	// controller's own intent at the next reconcile: two no-op applies
	// each at most (the bound).
	reusedApplies int
	doubts        []string
	baseG         int
	baseHeap      float64
}

func runSoak(t *testing.T, seed uint64, ops int, d time.Duration) soak.Report {
	env, cfg := testenv.StartEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	r := &run{t: t, ctx: ctx, seed: seed, api: &apiServer{env: env}, tmp: t.TempDir(), plain: cfg}
	r.rep.Seed = seed
	scheme := newScheme()
	var err error
	if r.direct, err = client.New(rest.CopyConfig(cfg), client.Options{Scheme: scheme}); err != nil {
		t.Fatal(err)
	}
	r.counted, r.counter = testenv.Count(cfg)
	if err := r.direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	r.web = startWebhook()
	// Stop what runs inside the test before envtest stops (cleanups run
	// last-registered first).
	t.Cleanup(func() {
		for _, rp := range r.replicas {
			if rp != nil {
				rp.stop()
			}
		}
		cancel()
		r.web.srv.Close()
	})
	if err := r.web.install(ctx, r.direct, ns); err != nil {
		t.Fatal(err)
	}
	r.owner = &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: "soak"}}
	if err := r.direct.Create(ctx, r.owner); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < configMaps; i++ {
		r.children = append(r.children, &child{name: fmt.Sprintf("cm-%d", i), model: soak.NewObject()})
	}
	for i := 0; i < 2; i++ {
		r.children = append(r.children, &child{name: fmt.Sprintf("px-%d", i), proxy: true, model: soak.NewObject()})
	}
	for i, ch := range r.children {
		ch.drawIntent(soak.Op{N: -i - 1, R: seed})
	}
	for i := range r.replicas {
		if r.replicas[i], err = startReplica(ctx, fmt.Sprintf("replica-%c", 'a'+i), r.counted, scheme); err != nil {
			t.Fatal(err)
		}
	}

	start := time.Now()
	sched := soak.NewSchedule(seed, len(r.children))
	t.Logf("soak seed %d: %d children, %s", seed, len(r.children), limits(ops, d))
	for !r.failed && (ops == 0 || r.rep.Operations < ops) && (d == 0 || time.Since(start) < d) {
		op, began := sched.Next(), time.Now()
		r.execute(op)
		r.rep.Time[op.Kind] += time.Since(began)
	}
	if !r.failed {
		r.quiet("final")
	}
	r.rep.WebhookCalls = int(r.web.calls.Load())
	r.rep.Requests = r.requests()
	t.Logf("soak seed %d after %s: %s", seed, time.Since(start).Round(time.Second), r.rep.Summary())
	t.Logf("soak seed %d: %s", seed, r.rep.Details())
	for _, d := range lastN(r.doubts, 20) {
		t.Log(d)
	}
	return r.rep
}

func limits(ops int, d time.Duration) string {
	switch {
	case ops > 0 && d > 0:
		return fmt.Sprintf("%d operations or %s", ops, d)
	case ops > 0:
		return fmt.Sprintf("%d operations", ops)
	}
	return d.String()
}

// execute runs one operation and records it in the history.
func (r *run) execute(op soak.Op) {
	r.rep.Operations++
	r.rep.Kinds[op.Kind]++
	ch := r.children[op.Child]
	note := func(format string, args ...any) {
		line := op.String() + " " + fmt.Sprintf(format, args...)
		r.since = append(r.since, line)
		ch.remember(line)
	}
	global := func(format string, args ...any) {
		line := op.String() + " " + fmt.Sprintf(format, args...)
		r.since = append(r.since, line)
		for _, c := range r.children {
			c.remember(line)
		}
	}
	ctx := r.ctx
	switch op.Kind {
	case soak.Intent:
		if ch.drawIntent(op) {
			note("%s → %s (a rollback)", ch.name, ch.intent)
		} else {
			note("%s → %s", ch.name, ch.intent)
		}
	case soak.Reconcile:
		note("%s by %s", ch.name, r.replicas[r.leader].name)
		r.reconcile(op.String(), ch)
	case soak.ForeignApply:
		if !ch.model.Exists {
			note("%s: absent, nothing to do", ch.name)
			return
		}
		fs, err := foreignApply(ctx, r.direct, ch, op)
		note("%s by %s: %v", ch.name, otherApplier, keysOf(fs))
		r.must(err, "%s applying %s", otherApplier, ch.name)
		ch.model.Apply(otherApplier, fs)
	case soak.ForeignUpdate:
		if !ch.model.Exists {
			note("%s: absent, nothing to do", ch.name)
			return
		}
		v := strconv.Itoa(op.N)
		note("%s by %s (Update): label other-operator=%s", ch.name, otherOp, v)
		r.must(labelAs(ctx, r.direct, ch, otherOp, "other-operator", v), "%s updating %s", otherOp, ch.name)
		ch.model.Update(otherOp, map[string]*string{"metadata.labels.other-operator": &v})
	case soak.KubectlApply:
		if !ch.model.Exists {
			note("%s: absent, nothing to do", ch.name)
			return
		}
		v := "p" + strconv.Itoa(op.N)
		note("%s by %s: label person=%s", ch.name, kubectlCSA, v)
		fs, err := kubectlApply(ctx, r.direct, ch, v)
		r.must(err, "kubectl apply of %s", ch.name)
		changes := map[string]*string{}
		for p, v := range fs {
			changes[p] = &v
		}
		ch.model.Update(kubectlCSA, changes)
	case soak.StatusWrite:
		if !ch.proxy || !ch.model.Exists {
			note("%s: no status to write", ch.name)
			return
		}
		fs, err := statusWrite(ctx, r.direct, ch, op)
		note("%s by %s: %v", ch.name, statusWriter, keysOf(fs))
		r.must(err, "status of %s", ch.name)
		ch.model.Apply(statusWriter, fs)
	case soak.Edit:
		paths := editable(ch)
		if !ch.model.Exists || len(paths) == 0 {
			note("%s: nothing of ours to edit", ch.name)
			return
		}
		p := paths[op.R%uint64(len(paths))]
		v := "edit-" + strconv.Itoa(op.N)
		if ch.proxy {
			v = strconv.Itoa(90 + op.N%9)
		}
		note("%s by %s (Update): %s=%s", ch.name, editor, p, v)
		r.must(edit(ctx, r.direct, ch, p, v), "editing %s", ch.name)
		ch.model.Update(editor, map[string]*string{p: &v})
	case soak.Delete:
		if !ch.model.Exists {
			note("%s: absent, nothing to delete", ch.name)
			return
		}
		obj := ch.newObject()
		obj.SetName(ch.name)
		obj.SetNamespace(ns)
		callCtx, cancel := context.WithTimeout(ctx, callTimeout)
		err := r.direct.Delete(callCtx, obj)
		cancel()
		r.must(err, "deleting %s", ch.name)
		ch.model.Delete()
		if !op.Flag {
			note("%s deleted", ch.name)
			return
		}
		fs, err := createAgain(ctx, r.direct, ch, op)
		note("%s deleted and created again by %s: %v", ch.name, creator, keysOf(fs))
		r.must(err, "creating %s again", ch.name)
		ch.model.Create(creator, fs)
		ch.defaulted()
	case soak.WatchCut:
		global("every watch cut, the next ones answered 410")
		r.cutWatches()
	case soak.Restart:
		old := r.replicas[r.leader]
		global("%s restarts", old.name)
		old.stop()
		rp, err := startReplica(ctx, old.name, r.counted, newScheme())
		r.must(err, "restarting %s", old.name)
		if rp != nil {
			r.replicas[r.leader] = rp
		}
		r.memLoss++
	case soak.Handover:
		r.leader = 1 - r.leader
		global("leadership to %s", r.replicas[r.leader].name)
		r.memLoss++
	case soak.APIRestart:
		global("API server restarts")
		r.restartAPIServer()
	case soak.Reset:
		if !ch.model.Exists {
			note("%s: absent, nothing to reset", ch.name)
			return
		}
		note("%s: managedFields dropped, every field of the object given to %s", ch.name, soak.BeforeFirstApply)
		r.must(resetManagedFields(ctx, r.direct, ch), "resetting the managedFields of %s", ch.name)
		ch.model.Reset()
	case soak.StaleVersion:
		if !ch.proxy || !ch.model.Exists {
			note("%s: no CRD version to write through", ch.name)
			return
		}
		if stripMode {
			// A stripped cache shows no entry at a removed version, so
			// nothing restamps it before another writer's Update makes
			// the API server drop every entry (docs/ensure.md): not drawn.
			note("%s: not with a cache that strips managedFields", ch.name)
			return
		}
		v := strconv.Itoa(op.N)
		note("%s by %s through %s, then removed from the CRD: label legacy=%s", ch.name, legacyWriter, removedVersion, v)
		r.must(staleVersion(ctx, r.direct, ch, v), "writing %s through a removed version", ch.name)
		ch.model.Apply(legacyWriter, soak.Fields{"metadata.labels.legacy": v})
		// The write's event: the leader reconciles the child, and its
		// first request restamps the entry.
		r.rep.Changes++
		r.reconcile(op.String(), ch)
	case soak.FormerRelease:
		if !ch.model.Exists {
			note("%s: absent, nothing to write", ch.name)
			return
		}
		changes, err := formerRelease(ctx, r.direct, ch, op)
		for _, m := range []string{formerV1, formerV0} {
			if c, ok := changes[m]; ok {
				note("%s by %s (Update): %v", ch.name, m, keysOfChanges(c))
				ch.model.Update(m, c)
			}
		}
		r.must(err, "a former release writing %s", ch.name)
	case soak.Reused:
		if !ch.model.Exists {
			note("%s: absent, nothing applied to reuse", ch.name)
			return
		}
		// The controller applies, an Apply's answer lands in the
		// configuration, the object moves on, and the controller passes
		// the same configuration again.
		note("%s: applied, its configuration reused after another write", ch.name)
		r.reconcile(op.String(), ch)
		cfg, err := reusedConfiguration(ctx, r.direct, ch)
		r.must(err, "an Apply's answer for %s", ch.name)
		if err != nil {
			return
		}
		v := strconv.Itoa(op.N)
		r.must(labelAs(ctx, r.direct, ch, otherOp, "other-operator", v), "%s updating %s", otherOp, ch.name)
		ch.model.Update(otherOp, map[string]*string{"metadata.labels.other-operator": &v})
		ch.reused, ch.reusedFor = cfg, ch.intent.String()
		r.reusedApplies++
		r.reconcile(op.String()+" (reused)", ch)
		ch.reused = nil
	case soak.Fight:
		r.fight(op, note)
	case soak.Check:
		global("quiet point")
		r.quiet(op.String())
	}
}

// fight is the Fight fault (issue 50): a mutating webhook starts
// rewriting a data key of a ConfigMap child on every write that sets it,
// and our intent for that key changes. The leader's apply is answered
// rewritten: a fight, counted once in ssagen_fights_total and recorded
// as one FieldFight event. Within the backoff the leader sends nothing
// more for that intent, even after another writer's change. The webhook
// stops; the first reconcile after the backoff sends the intent, which
// the answer holds. Every request of it is asserted.
func (r *run) fight(op soak.Op, note func(string, ...any)) {
	ch := r.children[op.Child%configMaps]
	rp := r.replicas[r.leader]
	if !r.synced(rp) {
		note("%s: the leader's cache is not synced, no fight", ch.name)
		return
	}
	r.reconcile(op.String()+" (before)", ch) // the child as our intent has it, created if gone
	if r.failed {
		return
	}
	keys := slices.Sorted(maps.Keys(ch.intent.data))
	key := keys[op.Rand().IntN(len(keys))]
	data := maps.Clone(ch.intent.data)
	data[key] = "f" + strconv.Itoa(op.N)
	ch.prev, ch.intent = ch.intent, intent{data: data}
	note("%s: a webhook rewrites data.%s, which the intent sets to %s", ch.name, key, data[key])
	r.web.fighting.Store(&[2]string{ch.name, key})
	defer r.web.fighting.Store(nil)
	field := ".data." + key
	fights, events := fightsOf(rp.name, field), rp.events.count("FieldFight")
	want, before := ch.fields(r.owner), r.requests()
	res, err := r.ensureOne(rp, ch)
	if err != nil || res == ensure.Skipped || r.requests() != before+1 {
		r.violation(ch, "%s: the apply of the new intent of %s: %s (%v) with %d requests, want one apply", op, ch.name, res, err, r.requests()-before)
		return
	}
	r.rep.Changes++
	ch.decidedBy(rp.client)
	ch.model.Apply(ours, want)
	ch.model.Rewrite("data."+key, Fought)
	// Within the backoff: nothing sent, even once another writer changed
	// the object.
	v := strconv.Itoa(op.N)
	r.must(labelAs(r.ctx, r.direct, ch, otherOp, "other-operator", v), "%s updating %s", otherOp, ch.name)
	ch.model.Update(otherOp, map[string]*string{"metadata.labels.other-operator": &v})
	before = r.requests()
	for i := 0; i < 2; i++ {
		if res, err := r.ensureOne(rp, ch); err != nil || res != ensure.Skipped {
			r.violation(ch, "%s: within the fight's backoff, %s: %s (%v), want skipped", op, ch.name, res, err)
			return
		}
	}
	if n := r.requests() - before; n != 0 {
		r.violation(ch, "%s: within the fight's backoff %d requests, want none", op, n)
		return
	}
	if d, e := fightsOf(rp.name, field)-fights, rp.events.count("FieldFight")-events; d != 1 || e != 1 {
		r.violation(ch, "%s: the fight over %s counted %v times and recorded %d events, want once each", op, field, d, e)
		return
	}
	// The webhook stops; after the backoff the intent is sent, and holds.
	r.web.fighting.Store(nil)
	time.Sleep(fightFirst)
	before = r.requests()
	if res, err := r.ensureOne(rp, ch); err != nil || res == ensure.Skipped || r.requests() != before+1 {
		r.violation(ch, "%s: after the fight and its backoff, %s: %s (%v) with %d requests, want one apply", op, ch.name, res, err, r.requests()-before)
		return
	}
	r.rep.Changes++
	ch.decidedBy(rp.client)
	ch.model.Apply(ours, want)
}

// configMaps is how many of the children, the first ones, are ConfigMaps.
const configMaps = 3

// metricsRegistry holds the runtime's metrics for the soak's checks.
var metricsRegistry = sync.OnceValue(func() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	if err := ensure.RegisterMetrics(reg); err != nil {
		panic(err)
	}
	return reg
})

// fightsOf is ssagen_fights_total of client name's fights over field.
func fightsOf(name, field string) float64 {
	families, err := metricsRegistry().Gather()
	if err != nil {
		return -1
	}
	for _, f := range families {
		if f.GetName() != "ssagen_fights_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["client"] == name && labels["field"] == field {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func keysOfChanges(changes map[string]*string) []string {
	out := make([]string, 0, len(changes))
	for k, v := range changes {
		if v == nil {
			k += " removed"
		} else if *v != "" {
			k += "=" + *v
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func keysOf(fs soak.Fields) []string {
	out := make([]string, 0, len(fs))
	for k, v := range fs {
		if v != "" {
			k += "=" + v
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// must stops the run when the harness itself fails (not a violation of
// ours: another writer's request, a fault that could not be produced).
func (r *run) must(err error, format string, args ...any) {
	if err == nil || r.failed {
		return
	}
	r.failed = true
	r.t.Errorf("soak seed %d: %s: %v\nreproduce: SOAK_SEED=%d SOAK_OPS=%d make soak\noperations since the last good check:\n  %s",
		r.seed, fmt.Sprintf(format, args...), err, r.seed, r.rep.Operations, strings.Join(r.since, "\n  "))
}

// violation records a broken invariant, prints what reproduces it and
// stops the run.
func (r *run) violation(ch *child, format string, args ...any) {
	if r.failed {
		return
	}
	r.failed = true
	r.rep.Violations++
	msg := fmt.Sprintf("soak seed %d: violation after operation %d: %s\nreproduce: SOAK_SEED=%d SOAK_OPS=%d make soak\noperations since the last good check (#%d):\n  %s",
		r.seed, r.rep.Operations, fmt.Sprintf(format, args...), r.seed, r.rep.Operations, r.lastGood, strings.Join(r.since, "\n  "))
	if ch != nil {
		hist := ch.ops
		if len(hist) > 60 {
			hist = hist[len(hist)-60:]
		}
		msg += fmt.Sprintf("\nhistory of %s (last %d operations that touched it):\n  %s", ch.name, len(hist), strings.Join(hist, "\n  "))
	}
	r.t.Error(msg)
}

// requests are the writes of our replicas that reached the API server.
func (r *run) requests() int {
	n := 0
	for k, v := range r.counter.Snapshot() {
		verb, code, _ := strings.Cut(k, " ")
		if code != "0" && (verb == "PATCH" || verb == "POST" || verb == "PUT" || verb == "DELETE") {
			n += v
		}
	}
	return n
}

// conflicts are the 409s our replicas got.
func (r *run) conflicts() int {
	n := 0
	for k, v := range r.counter.Snapshot() {
		if strings.HasSuffix(k, " 409") {
			n += v
		}
	}
	return n
}

// synced waits until rp's informers show every child as the API server
// has it: reconciles follow the events that caused them.
func (r *run) synced(rp *replica) bool {
	deadline := time.Now().Add(90 * time.Second)
	for _, ch := range r.children {
		for {
			live, err := liveOf(r.ctx, r.direct, ch)
			if err == nil {
				cached := ch.newObject()
				cerr := rp.cache.Get(r.ctx, ch.key(), cached)
				switch {
				case live == nil && cerr != nil && client.IgnoreNotFound(cerr) == nil:
					err = nil
				case live != nil && cerr == nil && cached.GetResourceVersion() == live.GetResourceVersion():
					err = nil
				default:
					err = fmt.Errorf("cache of %s behind (%v)", rp.name, cerr)
				}
				if err == nil {
					break
				}
			}
			if time.Now().After(deadline) {
				r.violation(ch, "the informers of %s never caught up with %s: %v", rp.name, ch.name, err)
				return false
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return true
}

// reconcile is the leader ensuring the given children once (all of them
// when none is given), as the events of a controller's informers make it
// reconcile one object at a time; it returns the number of applies it
// sent.
func (r *run) reconcile(at string, only ...*child) int {
	rp := r.replicas[r.leader]
	if !r.synced(rp) {
		return 0
	}
	if len(only) == 0 {
		only = r.children
	}
	sent := 0
	for _, ch := range only {
		want := ch.fields(r.owner)
		// With a stripped cache, ownership is read on an object's first
		// sight only: former releases are migrated then.
		firstSight := ch.memoryOf(rp.client) == "empty memory"
		if ch.model.Exists && (!stripMode || firstSight) && ch.model.Migrate([]string{formerV0, formerV1}, ours) {
			r.rep.Changes++ // the one patch that moves the former releases' fields
		}
		changed := ch.model.WouldChange(ours, want)
		created := !ch.model.Exists
		res, err := r.ensureOne(rp, ch)
		if err != nil {
			r.violation(ch, "%s: ensuring %s: %v", at, ch.name, err)
			return sent
		}
		if res != ensure.Skipped {
			sent++
		}
		if stripMode && changed && res == ensure.Skipped && !firstSight && !ch.model.ValuesWouldChange(ours, want) {
			// A stripped cache shows no ownership: a change of owners
			// alone (a managedFields reset) waits for the next apply.
			ch.decidedBy(rp.client)
			continue
		}
		if changed {
			r.rep.Changes++
		}
		switch {
		case changed && res == ensure.Skipped:
			r.violation(ch, "%s: %s skipped %s, but the model says the apply changes it (intent %s)", at, rp.name, ch.name, ch.intent)
			return sent
		case !changed && res != ensure.Skipped:
			r.rep.Doubts++
			if r.rep.DoubtsByCause == nil {
				r.rep.DoubtsByCause = map[string]int{}
			}
			r.rep.DoubtsByCause[ch.memoryOf(rp.client)]++
			line := fmt.Sprintf("%s: a doubt: %s sent an apply to %s that changed nothing (%s)", at, rp.name, ch.name, res)
			ch.remember("   (" + line + ")")
			r.doubts = append(lastN(r.doubts, 99), line+"; before it: "+strings.Join(lastN(ch.ops, 4), " | "))
		}
		ch.decidedBy(rp.client)
		ch.model.Apply(ours, want)
		if ch.model.Release(ours) {
			r.rep.Changes++ // the patch after the first apply since a reset
		}
		if created {
			ch.defaulted()
		}
	}
	return sent
}

// ensureOne ensures one child, retrying errors of the connection (an API
// server just restarted closes them); a panic is a violation.
func (r *run) ensureOne(rp *replica, ch *child) (res ensure.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	for i := 0; i < 5; i++ {
		ctx, cancel := context.WithTimeout(r.ctx, callTimeout)
		res, err = ch.ensure(ctx, rp.client, r.owner)
		cancel()
		if err == nil {
			return res, nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return res, err
}

// cutWatches breaks every watch of both replicas and waits until each of
// their informers listed again.
func (r *run) cutWatches() {
	before := make([]map[string]int, len(r.replicas))
	for i, rp := range r.replicas {
		before[i] = rp.faults.cut()
	}
	// An informer relists after its reflector's backoff (up to 30 s a
	// retry, more on a machine busy compiling): the deadline only bounds
	// a relist that never comes.
	deadline := time.Now().Add(8 * time.Minute)
	for i, rp := range r.replicas {
		for {
			n, all := rp.faults.listedSince(before[i])
			if all {
				r.rep.Relists += n
				break
			}
			if time.Now().After(deadline) {
				r.must(fmt.Errorf("%d lists of %d resources after the cut, not one each", n, len(before[i])), "the watch cut of %s forced no relist", rp.name)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// restartAPIServer stops the API server, checks that an Ensure meanwhile
// returns an error (and does not panic), and starts it on the same etcd.
func (r *run) restartAPIServer() {
	if err := r.api.stop(r.tmp); err != nil {
		r.must(err, "stopping the API server")
		return
	}
	probe, err := client.New(r.plain, client.Options{Scheme: newScheme()})
	if err == nil {
		ctx, cancel := context.WithTimeout(r.ctx, 3*time.Second)
		func() {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic: %v", p)
				}
			}()
			_, _, err = coreensure.EnsureConfigMap(ctx, ensure.NewClient(probe, ensure.FieldManager(ours)), r.owner, corev1ac.ConfigMap("outage-probe", ns))
		}()
		cancel()
		if err == nil || strings.HasPrefix(err.Error(), "panic") {
			r.violation(nil, "an Ensure while the API server is down: %v, want an error", err)
			return
		}
	}
	if err := r.api.start(); err != nil {
		r.must(err, "starting the API server again")
		return
	}
	for i := 0; ; i++ {
		ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
		err := r.direct.List(ctx, &corev1.ConfigMapList{}, client.InNamespace(ns))
		cancel()
		if err == nil {
			return
		}
		if i == 120 {
			r.must(err, "the API server did not come back")
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// quiet reconciles until nothing moves and checks every invariant.
func (r *run) quiet(at string) {
	r.reconcile(at)
	if r.failed {
		return
	}
	before := r.requests()
	if sent := r.reconcile(at + " (second pass)"); r.failed {
		return
	} else if sent > 0 || r.requests() != before {
		r.violation(nil, "%s: not quiet: a second reconcile of unchanged children sent %d requests", at, r.requests()-before)
		return
	}
	for _, ch := range r.children {
		r.checkChild(at, ch)
		if r.failed {
			return
		}
	}
	// (c) our requests against the changes, with the doubt bound.
	r.rep.Requests = r.requests()
	r.rep.Bound = len(r.children)*r.memLoss + 2*r.reusedApplies
	if r.rep.Requests > r.rep.Changes+r.rep.Bound || r.rep.Doubts > r.rep.Bound {
		r.violation(nil, "%s: (c) %d requests for %d changes, %d doubts: more than the bound of %d (%d children × %d restarts and handovers, 2 × %d reused configurations)",
			at, r.rep.Requests, r.rep.Changes, r.rep.Doubts, r.rep.Bound, len(r.children), r.memLoss, r.reusedApplies)
		return
	}
	// (d) no 409 for our forced applies.
	if n := r.conflicts(); n > 0 {
		r.violation(nil, "%s: (d) our replicas got %d conflicts: %s", at, n, testenv.String(r.counter.Snapshot()))
		return
	}
	// (e) goroutines, memory, and the skip caches stay bounded.
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	g, heap := runtime.NumGoroutine(), float64(ms.HeapAlloc)/(1<<20)
	if r.rep.Checks == 0 {
		r.baseG, r.baseHeap = g, heap
		r.rep.GoroutinesStart, r.rep.HeapMiBStart = g, heap
	}
	r.rep.GoroutinesEnd, r.rep.HeapMiBEnd = g, heap
	if g > r.baseG+goroutineSlack || heap > r.baseHeap+heapSlackMiB {
		r.violation(nil, "%s: (e) %d goroutines and %.1f MiB of heap, from %d and %.1f MiB at the first quiet point (bounds +%d, +%d MiB)",
			at, g, heap, r.baseG, r.baseHeap, goroutineSlack, heapSlackMiB)
		return
	}
	for _, rp := range r.replicas {
		if n := rp.client.Remembered(); n > len(r.children) {
			r.violation(nil, "%s: (e) %s remembers %d objects, there are %d children", at, rp.name, n, len(r.children))
			return
		}
	}
	r.rep.Checks++
	r.lastGood = r.rep.Operations
	r.since = nil
}

// checkChild compares a child with the model: (a) it is its intent merged
// with the other writers' fields, value by value; (b) every field another
// manager owns is there, with its value, and still theirs.
func (r *run) checkChild(at string, ch *child) {
	live, err := liveOf(r.ctx, r.direct, ch)
	if err != nil {
		r.must(err, "reading %s", ch.name)
		return
	}
	if live == nil {
		if ch.model.Exists {
			r.violation(ch, "%s: (a) %s does not exist", at, ch.name)
		}
		return
	}
	if !ch.model.Exists {
		r.violation(ch, "%s: (a) %s exists, the model says it was deleted", at, ch.name)
		return
	}
	have, err := soak.Flatten(live)
	if err != nil {
		r.must(err, "reading %s", ch.name)
		return
	}
	want := ch.model.Values()
	if diff := soak.Diff(want, have); len(diff) > 0 {
		var foreign, own []string
		for _, line := range diff {
			path, _, _ := strings.Cut(line, ": ")
			owners := ch.model.Owners(path)
			if len(owners) > 0 && !slices.Contains(owners, ours) {
				foreign = append(foreign, line+" (owned by "+strings.Join(owners, ", ")+")")
			} else {
				own = append(own, line)
			}
		}
		if len(foreign) > 0 {
			r.violation(ch, "%s: (b) fields of other managers removed or changed in %s:\n    %s\n  and of ours:\n    %s", at, ch.name, strings.Join(foreign, "\n    "), strings.Join(own, "\n    "))
		} else {
			r.violation(ch, "%s: (a) %s is not its intent merged with the other writers' fields:\n    %s", at, ch.name, strings.Join(own, "\n    "))
		}
		return
	}
	// Ownership, as managedFields records it.
	managers := ch.model.Managers()
	for _, m := range soak.ManagersOf(live) {
		if !slices.Contains(managers, m) {
			managers = append(managers, m)
		}
	}
	var wrong []string
	for _, m := range managers {
		owned, err := soak.OwnedPaths(live, m)
		if err != nil {
			r.must(err, "managedFields of %s", ch.name)
			return
		}
		for p := range want {
			if slices.Equal(ch.model.Owners(p), []string{soak.Webhook}) {
				continue // the webhook's default belongs to no one
			}
			modelOwns := slices.Contains(ch.model.Owners(p), m)
			liveOwns := slices.ContainsFunc(owned, func(o string) bool { return soak.Covers(o, p) })
			if modelOwns != liveOwns {
				wrong = append(wrong, fmt.Sprintf("%s: %s owns it: %v, the model says %v (owners %v)", p, m, liveOwns, modelOwns, ch.model.Owners(p)))
			}
		}
	}
	if len(wrong) > 0 {
		slices.Sort(wrong)
		var entries []string
		for _, e := range live.GetManagedFields() {
			entries = append(entries, fmt.Sprintf("%s %s %s: %s", e.Manager, e.Operation, e.Subresource, e.FieldsV1.Raw))
		}
		r.violation(ch, "%s: (b) ownership of %s differs from the model:\n    %s\n  managedFields:\n    %s", at, ch.name, strings.Join(wrong, "\n    "), strings.Join(entries, "\n    "))
	}
}

func lastN(s []string, n int) []string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
