// Package ensure is the runtime of ssagen's generated EnsureX helpers: one
// server-side apply done right — a stable field manager, the controller
// owner reference, force, typed errors — and no request at all when the
// object already is as desired.
//
// Generated code imports it; builder packages never do. It depends on
// controller-runtime's client and nothing generated.
package ensure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// Result says what an Ensure call did.
type Result string

const (
	// Created: the object did not exist; one apply created it.
	Created Result = "created"
	// Configured: one apply changed the object.
	Configured Result = "configured"
	// Unchanged: one apply was sent and changed nothing.
	Unchanged Result = "unchanged"
	// Skipped: no request was sent; the object already was as desired.
	Skipped Result = "skipped"
)

// DefaultFieldManager is used when no FieldManager option is given. It is
// stable across binaries and versions, unlike client-go's user agent.
const DefaultFieldManager = "ssagen"

// options of one Ensure call.
type options struct {
	fieldManager       string
	force              bool
	blockOwnerDeletion bool
	alwaysSend         bool
	createOnly         bool
	noOwner            bool
	ownerLabels        bool
	cache              *SkipCache
	reassertAfter      time.Duration
	migrateFrom        []string
	schema             *typed.ParseableType
	preview            *Diff
	recreate           *metav1.DeletionPropagation
}

// Option changes how Ensure writes.
type Option func(*options)

// FieldManager sets the field manager (default DefaultFieldManager).
func FieldManager(name string) Option { return func(o *options) { o.fieldManager = name } }

// NoForce makes a conflict with another field manager an error
// (*ConflictError) instead of taking the field over.
func NoForce() Option { return func(o *options) { o.force = false } }

// BlockOwnerDeletion sets blockOwnerDeletion on the owner reference (default true).
func BlockOwnerDeletion(b bool) Option { return func(o *options) { o.blockOwnerDeletion = b } }

// AlwaysSend disables the skip cache for this call: for objects behind
// mutating webhooks, whose result the cache cannot predict.
func AlwaysSend() Option { return func(o *options) { o.alwaysSend = true } }

// CreateOnly creates the object when it does not exist and never writes it
// otherwise: no request at all when the cache already has it.
func CreateOnly() Option { return func(o *options) { o.createOnly = true } }

// NoOwner applies without an owner reference (owner may then be nil).
func NoOwner() Option { return func(o *options) { o.noOwner = true } }

// OwnerLabels lets a namespaced owner own a child that cannot carry an
// owner reference to it — a cluster-scoped object, or one in another
// namespace — by recording the owner on the child instead: the label
// OwnerUIDLabel (the owner's UID) and the annotation OwnerAnnotation
// (its kind and name). The garbage collector does not see such children;
// Prune and Finalize do, and LabelledOwner maps their events to the
// owner. Children that can carry a reference still get one.
func OwnerLabels() Option { return func(o *options) { o.ownerLabels = true } }

// The label and annotation OwnerLabels sets on a child.
const (
	// OwnerUIDLabel holds the owner's UID.
	OwnerUIDLabel = "ensure.ssagen.io/owner-uid"
	// OwnerAnnotation holds the owner's kind and name:
	// <Kind>[.<group>]/<namespace>/<name>.
	OwnerAnnotation = "ensure.ssagen.io/owner"
)

// WithCache uses c instead of the process-wide DefaultCache.
func WithCache(c *SkipCache) Option { return func(o *options) { o.cache = c } }

// ReassertAfter sends an apply at least this often even when nothing
// changed (default 10 hours, as controller-runtime's resync period).
func ReassertAfter(d time.Duration) Option { return func(o *options) { o.reassertAfter = d } }

// MigrateFrom names former names of THIS controller's field manager: the
// names it wrote the object with, by Update (or Create), before it
// switched to apply or was renamed. On the first apply of an object in
// this process, the fields those managers wrote with Update move to the
// apply manager, so fields the controller no longer sets are pruned.
//
// Without it only the field manager's own name, formerly used with
// Update, is migrated. Never name a manager other writers use too
// ("manager", the default of every Kubebuilder binary, or
// "kubectl-client-side-apply", a person's kubectl apply): their fields
// would become this controller's, and the next apply would delete them.
func MigrateFrom(managers ...string) Option {
	return func(o *options) { o.migrateFrom = append(o.migrateFrom, managers...) }
}

// Schema gives Ensure the merge schema of the kind (generated helpers pass
// it): with it, "the live object already holds the intent" is decided by
// structured-merge-diff exactly as the API server would merge; without it,
// by a conservative value-by-value comparison.
func Schema(t typed.ParseableType) Option { return func(o *options) { o.schema = &t } }

func newOptions(opts []Option) *options {
	o := &options{
		fieldManager:       DefaultFieldManager,
		force:              true,
		blockOwnerDeletion: true,
		cache:              DefaultCache,
		reassertAfter:      10 * time.Hour,
		// migrateFrom is empty: migrate only ever takes what the field
		// manager itself wrote with Update, and what MigrateFrom names.
	}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// Apply makes the object described by desired exist as desired, owned by
// owner (controller=true), and decodes the live object into obj. desired
// is never modified.
func Apply(ctx context.Context, c client.Client, owner client.Object, desired runtime.ApplyConfiguration, obj client.Object, opts ...Option) (Result, error) {
	return applyTo(ctx, c, owner, desired, obj, "", opts)
}

// ApplyStatus applies the status in desired to the status subresource of
// an existing object (a *NotFoundError when it does not exist yet: a
// status apply would create an object with only a status), and decodes
// the live object into obj. desired is never modified.
func ApplyStatus(ctx context.Context, c client.Client, desired runtime.ApplyConfiguration, obj client.Object, opts ...Option) (Result, error) {
	return applyTo(ctx, c, nil, desired, obj, "status", opts)
}

func applyTo(ctx context.Context, c client.Client, owner client.Object, desired runtime.ApplyConfiguration, obj client.Object, sub string, opts []Option) (Result, error) {
	o := newOptions(opts)
	if o.fieldManager == "" {
		return "", fmt.Errorf("ensure: the field manager must not be empty")
	}
	if o.preview != nil {
		*o.preview = Diff{}
	}
	in, err := newIntent(desired)
	if err != nil {
		return "", err
	}
	res, err := apply(ctx, c, owner, in, obj, sub, o)
	if _, ok := obj.(runtime.Unstructured); !ok {
		// A typed object comes back as the client's own writes leave it:
		// without apiVersion and kind (client-go's decoder and the fake
		// client clear them), so a caller's comparison with what an Update
		// used to return sees no difference.
		obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	}
	label := string(res)
	if err != nil {
		label = "error"
		var conflict *ConflictError
		if errors.As(err, &conflict) {
			label = "conflict"
		}
	}
	applyTotal.WithLabelValues(in.gvk.Kind, label).Inc()
	return res, err
}

func apply(ctx context.Context, c client.Client, owner client.Object, in *intent, obj client.Object, sub string, o *options) (Result, error) {
	gvk := in.gvk
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	obj.SetName(in.name)
	obj.SetNamespace(in.namespace)
	kind := gvk.Kind

	if sub == "" && !o.noOwner {
		if err := setOwner(c, owner, in, obj, o); err != nil {
			return "", err
		}
	}
	hash, body, err := in.seal(sub)
	if err != nil {
		return "", fmt.Errorf("ensure: encoding the intent for %s %s: %w", kind, in.name, err)
	}
	key := cacheKey{gvk: gvk, namespace: in.namespace, name: in.name, manager: o.fieldManager, subresource: sub, client: clientToken(c)}

	// Read the live object from the client's cache; that is free.
	liveErr := c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
	exists := liveErr == nil
	if liveErr != nil && !apierrors.IsNotFound(liveErr) {
		return "", liveErr
	}
	// Typed reads may come back without apiVersion and kind (the fake
	// client and client-go's decoder clear them); the comparison below
	// needs them as the intent has them.
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	if !exists {
		o.cache.forget(key) // deleted objects leave the cache
	}
	if exists && sub == "" && !o.noOwner {
		if err := checkController(obj, owner); err != nil {
			return "", err
		}
	}
	if sub != "" && !exists {
		return "", &NotFoundError{GVK: gvk, Namespace: in.namespace, Name: in.name}
	}
	if o.createOnly && exists {
		return Skipped, nil
	}
	if exists && o.recreate != nil && obj.GetDeletionTimestamp() != nil {
		return Recreating, nil // deleted to be recreated; not gone yet
	}
	if exists {
		if ie := o.cache.rejected(key, hash, obj); ie != nil {
			// The same intent, refused for the same object: not sent again.
			if o.recreate != nil && o.preview == nil {
				o.cache.forget(key)
				return recreate(ctx, c, obj, obj.GetUID(), *o.recreate)
			}
			return "", ie
		}
	}
	if exists && !o.alwaysSend && o.cache.fresh(key, hash, obj, in, o) {
		return Skipped, nil
	}
	if exists && !o.cache.seen(key) && o.preview == nil {
		if err := migrate(ctx, c, obj, o, sub); err != nil {
			return "", err
		}
	}

	before := ""
	var live client.Object
	var uid types.UID
	if exists {
		before, uid = version(obj), obj.GetUID()
		if o.preview != nil {
			live = obj.DeepCopyObject().(client.Object)
		}
	}
	start := time.Now()
	err = send(ctx, c, obj, gvk, body, sub, o)
	applyLatency.WithLabelValues(kind).Observe(time.Since(start).Seconds())
	if err != nil {
		// A dry run remembers nothing, not even a refusal: the real
		// apply afterwards is sent and answered on its own.
		if o.preview == nil {
			o.cache.forget(key)
		}
		if conflict := asConflict(err); conflict != nil {
			return "", conflict
		}
		if ie := asImmutable(err, gvk, in.namespace, in.name); ie != nil && exists {
			if o.recreate != nil && o.preview == nil {
				return recreate(ctx, c, obj, uid, *o.recreate)
			}
			if o.preview == nil {
				o.cache.reject(key, hash, before, uid, ie)
			}
			return "", ie
		}
		return "", err
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	if o.preview != nil {
		// A dry run: nothing was written, so nothing is remembered.
		var answer client.Object = obj
		if ts := obj.GetCreationTimestamp(); ts.IsZero() {
			// The client answered no dry run (controller-runtime's fake
			// client returns before it): merge the intent locally.
			if answer, err = localMerge(o.schema, live, in.object()); err != nil {
				return "", err
			}
			if live != nil {
				reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(live).Elem())
			}
		}
		d, err := diff(o.schema, live, answer)
		if err != nil {
			return "", err
		}
		*o.preview = d
		switch {
		case !exists:
			return Created, nil
		case d.Empty():
			return Unchanged, nil
		}
		return Configured, nil
	}
	o.cache.record(key, hash, obj, ownedHash(obj, o.fieldManager, sub))
	res := Configured
	switch {
	case !exists:
		res = Created
	case version(obj) == before:
		res = Unchanged
	}
	return res, nil
}

// send applies body, the intent's JSON as it was hashed, as an apply
// patch of obj (or of its status), and the client decodes the API
// server's answer into obj. A patch's answer lands in the object it is
// given with every client — real, cached, fake, wrapped — and every
// controller-runtime release this module supports, where typed Apply
// hands the answer back only from v0.24 on and a status Apply exists only
// from v0.23. obj is reset first.
func send(ctx context.Context, c client.Client, obj client.Object, gvk schema.GroupVersionKind, body []byte, sub string, o *options) error {
	reset(obj, gvk)
	patch := applyPatch(body)
	if sub == "status" {
		opts := []client.SubResourcePatchOption{client.FieldOwner(o.fieldManager)}
		if o.force {
			opts = append(opts, client.ForceOwnership)
		}
		if o.preview != nil {
			opts = append(opts, client.DryRunAll)
		}
		return c.Status().Patch(ctx, obj, patch, opts...)
	}
	opts := []client.PatchOption{client.FieldOwner(o.fieldManager)}
	if o.force {
		opts = append(opts, client.ForceOwnership)
	}
	if o.preview != nil {
		opts = append(opts, client.DryRunAll)
	}
	return c.Patch(ctx, obj, patch, opts...)
}

// recreate deletes obj (its UID as read) to create it again.
func recreate(ctx context.Context, c client.Client, obj client.Object, uid types.UID, policy metav1.DeletionPropagation) (Result, error) {
	err := c.Delete(ctx, obj, client.Preconditions{UID: &uid}, client.PropagationPolicy(policy))
	if err != nil && !apierrors.IsNotFound(err) {
		return "", fmt.Errorf("ensure: deleting %s to recreate it: %w", obj.GetName(), err)
	}
	return Recreating, nil
}

// reset zeroes obj but for what addresses a request (kind, name,
// namespace), before a client decodes an answer into it: fields the cached
// copy had and the answer lacks (a label another writer removed) must not
// survive, and client-go's decoder merges into what it is given.
func reset(obj client.Object, gvk schema.GroupVersionKind) {
	name, namespace := obj.GetName(), obj.GetNamespace()
	reflect.ValueOf(obj).Elem().SetZero()
	if u, ok := obj.(*unstructured.Unstructured); ok {
		u.Object = map[string]any{}
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	obj.SetName(name)
	obj.SetNamespace(namespace)
}

// applyPatch is an apply patch of the intent's JSON. Its body is the
// intent as it is, except where the client set a resourceVersion on the
// object before asking for the body: controller-runtime's fake client
// assigns one to an apply that creates (as its own Apply sends it), and
// without it the object would be stored with none. Every other client
// asks with the zeroed object, and the intent goes out untouched: a
// resourceVersion in an apply is a precondition on a real API server.
type applyPatch []byte

func (applyPatch) Type() types.PatchType { return types.ApplyPatchType }

func (p applyPatch) Data(obj client.Object) ([]byte, error) {
	rv := obj.GetResourceVersion()
	if rv == "" {
		return p, nil
	}
	u := map[string]any{}
	if err := json.Unmarshal(p, &u); err != nil {
		return nil, err
	}
	md, _ := u["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		u["metadata"] = md
	}
	md["resourceVersion"] = rv
	return json.Marshal(u)
}

// setOwner adds owner as the controller owner reference of u.
func setOwner(c client.Client, owner client.Object, in *intent, obj client.Object, o *options) error {
	if owner == nil {
		return fmt.Errorf("ensure: owner is nil; pass the owning object, or NoOwner()")
	}
	ogvk, err := apiutil.GVKForObject(owner, c.Scheme())
	if err != nil {
		return fmt.Errorf("ensure: the owner's kind: %w", err)
	}
	namespaced, err := isNamespaced(c, obj, in.gvk, in.namespace != "")
	if err != nil {
		return fmt.Errorf("ensure: is %s namespaced: %w", in.gvk.Kind, err)
	}
	if owner.GetUID() == "" {
		return &OwnerError{Cause: ErrOwnerNoUID, Reason: fmt.Sprintf("owner %s %s has no UID: pass the object read from the API server (fake client fixtures need metadata.uid)", ogvk.Kind, owner.GetName())}
	}
	if owner.GetNamespace() != "" && (!namespaced || owner.GetNamespace() != in.namespace) {
		if o.ownerLabels {
			in.setOwnerLabels(owner.GetUID(), ogvk.GroupKind().String()+"/"+owner.GetNamespace()+"/"+owner.GetName())
			return nil
		}
		const hint = "; pass ensure.OwnerLabels() to record the owner on the child instead, and prune it with ensure.Prune and ensure.Finalize"
		if !namespaced {
			return &OwnerError{Cause: ErrClusterScopedChild, Reason: fmt.Sprintf("namespaced %s %s/%s cannot own cluster-scoped %s %s%s", ogvk.Kind, owner.GetNamespace(), owner.GetName(), in.gvk.Kind, in.name, hint)}
		}
		return &OwnerError{Cause: ErrCrossNamespace, Reason: fmt.Sprintf("%s %s/%s cannot own %s %s/%s in another namespace%s", ogvk.Kind, owner.GetNamespace(), owner.GetName(), in.gvk.Kind, in.namespace, in.name, hint)}
	}
	ref := metav1.OwnerReference{
		APIVersion: ogvk.GroupVersion().String(), Kind: ogvk.Kind, Name: owner.GetName(), UID: owner.GetUID(),
		Controller: ptr(true), BlockOwnerDeletion: ptr(o.blockOwnerDeletion),
	}
	in.setController(ref)
	return nil
}

func ptr[T any](v T) *T { return &v }

// scopes remembers, per REST mapper and kind, whether the kind is
// namespaced: a kind's scope does not change, and asking the mapper costs
// about 70 allocations per call.
var scopes sync.Map

type scopeKey struct {
	mapper any
	gvk    schema.GroupVersionKind
}

// isNamespaced asks the client's REST mapper whether gvk is namespaced.
// When the mapper has no mapping for the kind (controller-runtime's fake
// client has an empty mapper unless given one), the answer is
// hasNamespace: the kind is taken as namespaced iff the desired object
// has a namespace. Such a guess is never remembered: only the mapper's
// own answers are, under that mapper. On a real API server a kind without
// a mapping cannot be applied anyway; the apply's error says so.
func isNamespaced(c client.Client, obj client.Object, gvk schema.GroupVersionKind, hasNamespace bool) (bool, error) {
	mapper := c.RESTMapper()
	cacheable := mapper != nil && reflect.TypeOf(mapper).Comparable()
	k := scopeKey{mapper: mapper, gvk: gvk}
	if cacheable {
		if v, ok := scopes.Load(k); ok {
			return v.(bool), nil
		}
	}
	namespaced, err := c.IsObjectNamespaced(obj)
	if meta.IsNoMatchError(err) {
		return hasNamespace, nil
	}
	if err != nil {
		return false, err
	}
	if cacheable {
		scopes.Store(k, namespaced)
	}
	return namespaced, nil
}

// checkController reports an object already controlled by someone else.
func checkController(live client.Object, owner client.Object) error {
	for _, r := range live.GetOwnerReferences() {
		if r.Controller != nil && *r.Controller && r.UID != owner.GetUID() {
			return &OwnerError{Cause: ErrAlreadyControlled, Reason: fmt.Sprintf("%s is already controlled by %s %s", live.GetName(), r.Kind, r.Name)}
		}
	}
	if uid, ok := live.GetLabels()[OwnerUIDLabel]; ok && uid != string(owner.GetUID()) {
		return &OwnerError{Cause: ErrAlreadyControlled, Reason: fmt.Sprintf("%s is already owned by %s (label %s)", live.GetName(), live.GetAnnotations()[OwnerAnnotation], OwnerUIDLabel)}
	}
	return nil
}

// NotFoundError is returned by status applies to objects that do not exist:
// a status apply would otherwise create an object with only a status.
type NotFoundError struct {
	GVK             schema.GroupVersionKind
	Namespace, Name string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("ensure: %s %s/%s does not exist yet: ensure the object before its status", e.GVK.Kind, e.Namespace, e.Name)
}

// OwnerError is an owner reference Kubernetes would not honour. Its
// Cause is one of the Err* sentinels below, for errors.Is:
//
//	if errors.Is(err, ensure.ErrAlreadyControlled) { ... }
type OwnerError struct {
	Reason string // what is wrong, with the objects' names
	Cause  error  // ErrClusterScopedChild, ErrCrossNamespace, ErrOwnerNoUID or ErrAlreadyControlled
}

func (e *OwnerError) Error() string { return "ensure: " + e.Reason }

// Unwrap returns the sentinel cause.
func (e *OwnerError) Unwrap() error { return e.Cause }

// Causes of an OwnerError.
var (
	// ErrClusterScopedChild: a namespaced owner cannot own a cluster-scoped object.
	ErrClusterScopedChild = errors.New("a namespaced owner cannot own a cluster-scoped object")
	// ErrCrossNamespace: an owner cannot own an object in another namespace.
	ErrCrossNamespace = errors.New("an owner cannot own an object in another namespace")
	// ErrOwnerNoUID: the owner has no UID (not read from the API server).
	ErrOwnerNoUID = errors.New("the owner has no UID")
	// ErrAlreadyControlled: the object already has another controller.
	ErrAlreadyControlled = errors.New("the object is already controlled by another owner")
)
