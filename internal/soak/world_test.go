package soak_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	ac "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1"
	apiensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1/ensure"
	coreensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
	"github.com/ssagen/ssagen/internal/soak"
	"github.com/ssagen/ssagen/internal/testenv"
)

// The soak's names: our field manager, the other writers', the namespace.
const (
	ns           = "soak"
	ours         = "soak-controller"
	otherApplier = "other-apply"               // another apply manager
	otherOp      = "manager"                   // another Kubebuilder operator, writing with Update
	kubectlCSA   = "kubectl-client-side-apply" // a person's kubectl apply
	statusWriter = "status-writer"             // a kubelet-like status writer
	editor       = "kubectl-edit"              // a person editing our field
	creator      = "kubectl-create"            // a person creating a child again
	formerV0     = "soak-controller-v0"        // our controller's release before last (Status().Update)
	formerV1     = "soak-controller-v1"        // our controller's last release (Update)
	legacyWriter = "legacy-writer"             // a writer through a CRD version since removed
	managedBy    = "app.kubernetes.io/managed-by"
	lastApplied  = "kubectl.kubernetes.io/last-applied-configuration"
)

// callTimeout bounds every request of the soak.
const callTimeout = 20 * time.Second

// child is one object our controller ensures, and what the model expects
// of it.
type child struct {
	name   string
	proxy  bool // a Proxy (custom resource with a status); else a ConfigMap
	model  *soak.Object
	intent intent
	prev   intent   // the intent before, for rollbacks
	ops    []string // what touched it, for a violation's history
	// deciders are the clients that decided it, the last one last: what
	// a doubt is put down to.
	deciders []*ensure.Client
	// reused is an apply configuration an Apply decoded its answer into
	// (the Reused fault), which the controller passes again while the
	// intent it was built for (reusedFor) stands.
	reused    runtime.ApplyConfiguration
	reusedFor string
}

// intent is what our controller wants of a child.
type intent struct {
	data      map[string]string // ConfigMap
	replicas  int32             // Proxy
	hostnames []string          // Proxy, listener http
	admin     bool              // Proxy, listener admin
}

// history is how many operations a child's history keeps: enough to
// show what led to a violation, bounded so that a long run does not grow.
const history = 200

func (c *child) remember(line string) {
	if len(c.ops) >= 2*history {
		c.ops = append(c.ops[:0], c.ops[len(c.ops)-history:]...)
	}
	c.ops = append(c.ops, line)
}

// defaulted is what the mutating webhook does to a ConfigMap created
// just now, by anyone.
func (c *child) defaulted() {
	if !c.proxy {
		c.model.Default("metadata.annotations."+DefaultedAnnotation, "true")
	}
}

// decidedBy records that cl decided c last.
func (c *child) decidedBy(cl *ensure.Client) {
	c.deciders = append(slices.DeleteFunc(c.deciders, func(d *ensure.Client) bool { return d == cl }), cl)
	if len(c.deciders) > 8 {
		c.deciders = c.deciders[1:]
	}
}

// memoryOf says what cl knew of c before deciding it now.
func (c *child) memoryOf(cl *ensure.Client) string {
	switch i := slices.Index(c.deciders, cl); {
	case i < 0:
		return "empty memory"
	case i == len(c.deciders)-1:
		return "same memory"
	}
	return "older memory"
}

func (c *child) key() client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: c.name} }

func (c *child) newObject() client.Object {
	if c.proxy {
		return &platformv1alpha1.Proxy{}
	}
	return &corev1.ConfigMap{}
}

// fields is the intent in the model's terms.
func (c *child) fields(owner *platformv1alpha1.Project) soak.Fields {
	fs := soak.Fields{
		"metadata.labels." + managedBy:                        "soak",
		"metadata.ownerReferences[" + string(owner.UID) + "]": soak.OwnerRefValue("Project", owner.Name, true),
	}
	if !c.proxy {
		for k, v := range c.intent.data {
			fs["data."+k] = v
		}
		return fs
	}
	fs["spec.replicas"] = strconv.Itoa(int(c.intent.replicas))
	fs["spec.listeners[http].port"] = "80"
	for _, h := range c.intent.hostnames {
		fs["spec.listeners[http].hostnames["+h+"]"] = ""
	}
	if c.intent.admin {
		fs["spec.listeners[admin].port"] = "9000"
	}
	return fs
}

// ensure applies the intent through the generated helpers, declaring
// the former names of our controller's field manager.
func (c *child) ensure(ctx context.Context, cl *ensure.Client, owner *platformv1alpha1.Project) (ensure.Result, error) {
	desired := c.config()
	if c.reused != nil && c.reusedFor == c.intent.String() {
		desired = c.reused
	}
	migrate, backoff := ensure.MigrateFrom(formerV0, formerV1), ensure.FightBackoff(fightFirst, fightMax)
	if !c.proxy {
		_, res, err := coreensure.EnsureConfigMap(ctx, cl, owner, desired.(*corev1ac.ConfigMapApplyConfiguration), migrate, backoff)
		return res, err
	}
	_, res, err := apiensure.EnsureProxy(ctx, cl, owner, desired.(*ac.ProxyApplyConfiguration), migrate, backoff)
	return res, err
}

// config is the apply configuration of the intent.
func (c *child) config() runtime.ApplyConfiguration {
	labels := map[string]string{managedBy: "soak"}
	if !c.proxy {
		return corev1ac.ConfigMap(c.name, ns).WithLabels(labels).WithData(c.intent.data)
	}
	listeners := []*ac.ListenerApplyConfiguration{ac.Listener().WithName("http").WithPort(80).WithHostnames(c.intent.hostnames...)}
	if c.intent.admin {
		listeners = append(listeners, ac.Listener().WithName("admin").WithPort(9000))
	}
	return ac.Proxy(c.name, ns).WithLabels(labels).WithSpec(ac.ProxySpec().WithReplicas(c.intent.replicas).WithListeners(listeners...))
}

// drawIntent is a new intent for c, from op's values; one in two is a
// rollback to the intent before (what makes an old leader's memory match
// the intent again after the other replica applied another).
func (c *child) drawIntent(op soak.Op) (rollback bool) {
	r := op.Rand()
	prev := c.prev
	c.prev = c.intent
	if prev.data != nil || prev.replicas != 0 {
		if r.IntN(2) == 0 {
			c.intent = prev
			return true
		}
	}
	if !c.proxy {
		data := map[string]string{}
		for i := 0; i < 4; i++ {
			if r.IntN(2) == 0 {
				data[fmt.Sprintf("ours-%d", i)] = fmt.Sprintf("v%d", r.IntN(3))
			}
		}
		if len(data) == 0 {
			data["ours-0"] = "v0"
		}
		c.intent = intent{data: data}
		return false
	}
	var hosts []string
	for _, h := range []string{"a.example.com", "b.example.com", "c.example.com"} {
		if r.IntN(2) == 0 {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		hosts = []string{"a.example.com"}
	}
	c.intent = intent{replicas: int32(1 + r.IntN(5)), hostnames: hosts, admin: r.IntN(2) == 0}
	return false
}

func (i intent) String() string {
	if i.data != nil {
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range i.data {
				if !yield(k) {
					return
				}
			}
		})
		parts := make([]string, len(keys))
		for j, k := range keys {
			parts[j] = k + "=" + i.data[k]
		}
		return "data{" + strings.Join(parts, ",") + "}"
	}
	return fmt.Sprintf("replicas=%d hostnames=%v admin=%v", i.replicas, i.hostnames, i.admin)
}

// replica is one process of our controller: its informers, its client
// reading from them, and the ensure.Client that carries its memory.
type replica struct {
	name    string
	cache   cache.Cache
	client  *ensure.Client
	events  *eventLog // what its client recorded
	faults  *watchFaults
	cancel  context.CancelFunc
	stopped chan struct{}
}

// informed are the kinds a replica's informers watch.
var informed = []client.Object{&corev1.ConfigMap{}, &platformv1alpha1.Proxy{}}

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = platformv1alpha1.AddToScheme(s)
	_ = apiextensionsv1.AddToScheme(s)
	return s
}

// startReplica starts a controller process: informers on the counted
// config (through a watch fault injector), a client reading from them, and
// a fresh ensure.Client.
func startReplica(ctx context.Context, name string, counted *rest.Config, scheme *runtime.Scheme) (*replica, error) {
	r := &replica{name: name, faults: &watchFaults{}, stopped: make(chan struct{}), events: &eventLog{}}
	ctx, r.cancel = context.WithCancel(ctx)
	var err error
	opts := cache.Options{Scheme: scheme, DefaultNamespaces: map[string]cache.Config{ns: {}}}
	if stripMode {
		opts.DefaultTransform = cache.TransformStripManagedFields()
	}
	r.cache, err = cache.New(r.faults.wrap(counted), opts)
	if err != nil {
		return nil, err
	}
	for _, obj := range informed {
		if _, err := r.cache.GetInformer(ctx, obj); err != nil {
			return nil, err
		}
	}
	go func() {
		defer close(r.stopped)
		_ = r.cache.Start(ctx)
	}()
	syncCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if !r.cache.WaitForCacheSync(syncCtx) {
		r.stop()
		return nil, fmt.Errorf("replica %s: informers never synced", name)
	}
	c, err := client.New(counted, client.Options{Scheme: scheme, Cache: &client.CacheOptions{Reader: r.cache}})
	if err != nil {
		r.stop()
		return nil, err
	}
	copts := []ensure.ClientOption{ensure.FieldManager(ours), ensure.MetricsName(name), ensure.Events(r.events)}
	if stripMode {
		reader, err := client.New(counted, client.Options{Scheme: scheme})
		if err != nil {
			r.stop()
			return nil, err
		}
		copts = append(copts, ensure.APIReader(reader))
	}
	r.client = ensure.NewClient(c, copts...)
	return r, nil
}

// eventLog is a replica's event recorder: the reasons of the events its
// client recorded.
type eventLog struct {
	mu      sync.Mutex
	reasons []string
}

func (l *eventLog) Eventf(_ runtime.Object, _, reason, _ string, _ ...any) {
	l.mu.Lock()
	l.reasons = append(l.reasons, reason)
	l.mu.Unlock()
}

// count is the number of events recorded with reason.
func (l *eventLog) count(reason string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, r := range l.reasons {
		if r == reason {
			n++
		}
	}
	return n
}

// Fights' backoff in the soak: short, so that the Fight fault waits it
// out (the defaults are 10 s and 5 min).
const (
	fightFirst = 2 * time.Second
	fightMax   = 8 * time.Second
)

// stripMode runs the replicas with informer caches that strip
// managedFields (SOAK_STRIP=1) and an APIReader, as operators that save
// the memory do (issue 50).
var stripMode = os.Getenv("SOAK_STRIP") != ""

func (r *replica) stop() {
	r.cancel()
	<-r.stopped
}

// liveOf reads a child from the API server (not counted): nil when absent.
func liveOf(ctx context.Context, c client.Client, ch *child) (client.Object, error) {
	obj := ch.newObject()
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	err := c.Get(ctx, ch.key(), obj)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return obj, nil
}

// foreignApply is another apply manager's whole intent for a child:
// fields of its own, never ours.
func foreignApply(ctx context.Context, c client.Client, ch *child, op soak.Op) (soak.Fields, error) {
	r := op.Rand()
	rev := strconv.Itoa(op.N)
	fs := soak.Fields{"metadata.annotations." + otherApplier + "/rev": rev}
	annotations := map[string]string{otherApplier + "/rev": rev}
	if !ch.proxy {
		data := map[string]string{}
		for i := 0; i < 2; i++ {
			if r.IntN(2) == 0 {
				k := fmt.Sprintf("theirs-%d", i)
				data[k] = fmt.Sprintf("t%d", r.IntN(3))
				fs["data."+k] = data[k]
			}
		}
		cm := corev1ac.ConfigMap(ch.name, ns).WithAnnotations(annotations)
		if len(data) > 0 {
			cm.WithData(data)
		}
		return fs, applyAs(ctx, c, cm, otherApplier)
	}
	spec := ac.ProxySpec()
	if r.IntN(2) == 0 {
		spec.WithListeners(ac.Listener().WithName("other").WithPort(8080))
		fs["spec.listeners[other].port"] = "8080"
	}
	if r.IntN(2) == 0 {
		// A hostname in our listener: a set value of its own in a list-map
		// item we own.
		spec.WithListeners(ac.Listener().WithName("http").WithHostnames("other.example.com"))
		fs["spec.listeners[http].hostnames[other.example.com]"] = ""
	}
	px := ac.Proxy(ch.name, ns).WithAnnotations(annotations)
	if spec.Listeners != nil {
		px.WithSpec(spec)
	}
	return fs, applyAs(ctx, c, px, otherApplier)
}

func applyAs(ctx context.Context, c client.Client, obj runtime.ApplyConfiguration, manager string) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return c.Apply(ctx, obj, client.FieldOwner(manager), client.ForceOwnership)
}

// updateAs reads the child and writes it back with Update as manager,
// after change; a conflict (theirs, not ours) is retried.
func updateAs(ctx context.Context, c client.Client, ch *child, manager string, change func(client.Object)) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	for i := 0; ; i++ {
		obj := ch.newObject()
		if err := c.Get(ctx, ch.key(), obj); err != nil {
			return err
		}
		change(obj)
		err := c.Update(ctx, obj, client.FieldOwner(manager))
		if !apierrors.IsConflict(err) || i == 10 {
			return err
		}
	}
}

// labelAs sets the child's label key to value with Update as manager.
func labelAs(ctx context.Context, c client.Client, ch *child, manager, key, value string) error {
	return updateAs(ctx, c, ch, manager, func(obj client.Object) {
		l := obj.GetLabels()
		if l == nil {
			l = map[string]string{}
		}
		l[key] = value
		obj.SetLabels(l)
	})
}

// kubectlApply is a person's `kubectl apply` of a label, client-side: a
// patch with kubectl's last-applied annotation, as manager
// kubectl-client-side-apply. It returns the two fields it writes.
func kubectlApply(ctx context.Context, c client.Client, ch *child, value string) (map[string]string, error) {
	kind, apiVersion, pt := "ConfigMap", "v1", types.StrategicMergePatchType
	if ch.proxy {
		kind, apiVersion, pt = "Proxy", "platform.ssagen.dev/v1alpha1", types.MergePatchType
	}
	last, _ := json.Marshal(map[string]any{"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"annotations": map[string]any{}, "labels": map[string]string{"person": value}, "name": ch.name, "namespace": ns}})
	lastS := string(last) + "\n"
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"annotations": map[string]string{lastApplied: lastS}, "labels": map[string]string{"person": value}}})
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	obj := ch.newObject()
	obj.SetName(ch.name)
	obj.SetNamespace(ns)
	err := c.Patch(ctx, obj, client.RawPatch(pt, patch), client.FieldOwner(kubectlCSA))
	return map[string]string{"metadata.labels.person": value, "metadata.annotations." + lastApplied: lastS}, err
}

// statusWrite applies a Proxy's addresses as the status writer.
func statusWrite(ctx context.Context, c client.Client, ch *child, op soak.Op) (soak.Fields, error) {
	r := op.Rand()
	n := 1 + r.IntN(2)
	fs := soak.Fields{}
	var addrs []string
	for i := 0; i < n; i++ {
		a := fmt.Sprintf("10.%d.%d.%d", op.N%250, i, r.IntN(250))
		if _, dup := fs["status.addresses["+a+"]"]; dup {
			continue
		}
		addrs = append(addrs, a)
		fs["status.addresses["+a+"]"] = ""
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return fs, testenv.ApplyStatus(ctx, c, ac.Proxy(ch.name, ns).WithStatus(ac.ProxyStatus().WithAddresses(addrs...)), statusWriter)
}

// createAgain is a person creating the child again right after deleting
// it, with fields of their own and one of ours at another value.
func createAgain(ctx context.Context, c client.Client, ch *child, op soak.Op) (soak.Fields, error) {
	v := fmt.Sprintf("person-%d", op.N)
	var obj client.Object
	fs := soak.Fields{}
	if ch.proxy {
		replicas := int32(7)
		obj = &platformv1alpha1.Proxy{ObjectMeta: metav1.ObjectMeta{Name: ch.name, Namespace: ns, Labels: map[string]string{"person": v}},
			Spec: platformv1alpha1.ProxySpec{Replicas: &replicas, Listeners: []platformv1alpha1.Listener{{Name: "http", Port: 80}}}}
		fs["spec.replicas"] = "7"
		fs["spec.listeners[http].port"] = "80"
	} else {
		obj = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ch.name, Namespace: ns, Labels: map[string]string{"person": v}},
			Data: map[string]string{"person-key": v, "ours-0": v}}
		fs["data.person-key"] = v
		fs["data.ours-0"] = v
	}
	fs["metadata.labels.person"] = v
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return fs, c.Create(ctx, obj, client.FieldOwner(creator))
}

// editable are the fields of ours a person may edit.
func editable(ch *child) []string {
	var out []string
	for _, p := range ch.model.OwnedBy(ours) {
		if strings.HasPrefix(p, "data.") || p == "spec.replicas" {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// edit sets the field at path to value with Update as the editor.
func edit(ctx context.Context, c client.Client, ch *child, path, value string) error {
	return updateAs(ctx, c, ch, editor, func(obj client.Object) {
		switch o := obj.(type) {
		case *corev1.ConfigMap:
			o.Data[strings.TrimPrefix(path, "data.")] = value
		case *platformv1alpha1.Proxy:
			n, _ := strconv.Atoi(value)
			r := int32(n)
			o.Spec.Replicas = &r
		}
	})
}
