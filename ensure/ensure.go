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
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
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
	// created: the object was created by the caller's apply just before
	// (the status of a CreateOrPatch), whatever the cache says.
	created            bool
	fieldManager       string
	force              bool
	blockOwnerDeletion bool
	alwaysSend         bool
	createOnly         bool
	noOwner            bool
	ownerLabels        bool
	reassertAfter      time.Duration
	migrateFrom        []string
	schema             *typed.ParseableType
	preview            *Diff
	recreate           *metav1.DeletionPropagation
	// fightFirst and fightMax bound the backoff of a fight (FightBackoff).
	fightFirst, fightMax time.Duration
}

// ApplyOption changes how an Ensure call (Apply, ApplyStatus and the
// generated Ensure<Kind> helpers) writes.
type ApplyOption interface{ setApply(*options) }

// applyFunc is an ApplyOption that sets one thing.
type applyFunc func(*options)

func (f applyFunc) setApply(o *options) { f(o) }

// FieldManager names the field manager — an option of NewClient (every
// call through the client), of one Ensure call, and of AddFinalizer and
// Finalize, as controller-runtime's client.FieldOwner is of its writes. A
// call's own FieldManager wins over its client's; without either it is
// DefaultFieldManager.
//
//	c := ensure.NewClient(mgr.GetClient(), ensure.FieldManager("project-controller"))
type FieldManager string

func (f FieldManager) setClient(c *clientConfig)        { c.fieldManager = string(f) }
func (f FieldManager) setApply(o *options)              { o.fieldManager = string(f) }
func (f FieldManager) setFinalizer(o *finalizerOptions) { o.fieldManager = string(f) }

// NoForce makes a conflict with another field manager an error
// (*ConflictError) instead of taking the field over.
func NoForce() ApplyOption { return applyFunc(func(o *options) { o.force = false }) }

// BlockOwnerDeletion sets blockOwnerDeletion on the owner reference (default true).
func BlockOwnerDeletion(b bool) ApplyOption {
	return applyFunc(func(o *options) { o.blockOwnerDeletion = b })
}

// AlwaysSend sends the apply even when the object already is as desired:
// for objects behind mutating webhooks, whose result cannot be predicted.
func AlwaysSend() ApplyOption { return applyFunc(func(o *options) { o.alwaysSend = true }) }

// CreateOnly creates the object when it does not exist and never writes it
// otherwise: no request at all when the cache already has it.
func CreateOnly() ApplyOption { return applyFunc(func(o *options) { o.createOnly = true }) }

// NoOwner applies without an owner reference (owner may then be nil).
func NoOwner() ApplyOption { return applyFunc(func(o *options) { o.noOwner = true }) }

// OwnerLabels lets a namespaced owner own a child that cannot carry an
// owner reference to it — a cluster-scoped object, or one in another
// namespace — by recording the owner on the child instead: the label
// OwnerUIDLabel (the owner's UID) and the annotation OwnerAnnotation
// (its kind and name). The garbage collector does not see such children;
// Prune and Finalize do, and LabelledOwner maps their events to the
// owner. Children that can carry a reference still get one.
func OwnerLabels() ApplyOption { return applyFunc(func(o *options) { o.ownerLabels = true }) }

// The label and annotation OwnerLabels sets on a child.
const (
	// OwnerUIDLabel holds the owner's UID.
	OwnerUIDLabel = "ensure.ssagen.io/owner-uid"
	// OwnerAnnotation holds the owner's kind and name:
	// <Kind>[.<group>]/<namespace>/<name>.
	OwnerAnnotation = "ensure.ssagen.io/owner"
)

// ReassertAfter sends an apply at least this often even when nothing
// changed (default 10 hours, as controller-runtime's resync period). It
// needs a Client's memory: without one, nothing says when the last apply
// was.
func ReassertAfter(d time.Duration) ApplyOption {
	return applyFunc(func(o *options) { o.reassertAfter = d })
}

// MigrateFrom names former names of THIS controller's field manager: the
// names it wrote the object with, by Update (or Create) or by apply,
// before it switched to apply or was renamed. Whenever an object shows
// entries of those names — on the object or on its status — one patch
// moves their fields to the apply manager, so fields the controller no
// longer sets are pruned.
//
// Without it only the field manager's own name, formerly used with
// Update, is migrated. Never name a manager other writers use too
// ("manager", the default of every Kubebuilder binary, or
// "kubectl-client-side-apply", a person's kubectl apply): their fields
// would become this controller's, and the next apply would delete them.
func MigrateFrom(managers ...string) ApplyOption {
	return applyFunc(func(o *options) { o.migrateFrom = append(o.migrateFrom, managers...) })
}

// Schema gives Ensure the merge schema of the kind (generated helpers pass
// it): with it, "the live object already holds the intent" is decided by
// structured-merge-diff exactly as the API server would merge; without it,
// by a conservative value-by-value comparison.
func Schema(t typed.ParseableType) ApplyOption {
	return applyFunc(func(o *options) { o.schema = &t })
}

func newOptions(c client.Client, opts []ApplyOption) *options {
	o := &options{
		fieldManager:       managerOf(c),
		force:              true,
		blockOwnerDeletion: true,
		reassertAfter:      10 * time.Hour,
		fightFirst:         10 * time.Second,
		fightMax:           5 * time.Minute,
		// migrateFrom is empty: migrate only ever takes what the field
		// manager itself wrote with Update, and what MigrateFrom names.
	}
	for _, opt := range opts {
		if opt != nil {
			opt.setApply(o)
		}
	}
	return o
}

// Apply makes the object described by desired exist as desired, owned by
// owner (controller=true), and decodes the live object into obj. desired
// is never modified. When it fails, obj holds at least the name and
// namespace of desired.
func Apply(ctx context.Context, c client.Client, owner client.Object, desired runtime.ApplyConfiguration, obj client.Object, opts ...ApplyOption) (Result, error) {
	return applyTo(ctx, c, owner, desired, obj, mainResource, opts)
}

// ApplyStatus applies the status in desired to the status subresource of
// an existing object (a *NotFoundError when it does not exist yet: a
// status apply would create an object with only a status), and decodes
// the live object into obj. desired is never modified.
func ApplyStatus(ctx context.Context, c client.Client, desired runtime.ApplyConfiguration, obj client.Object, opts ...ApplyOption) (Result, error) {
	return applyTo(ctx, c, nil, desired, obj, statusResource, opts)
}

func applyTo(ctx context.Context, c client.Client, owner client.Object, desired runtime.ApplyConfiguration, obj client.Object, at endpoint, opts []ApplyOption) (Result, error) {
	o := newOptions(c, opts)
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
	reused := in.snapshot || in.droppedVersion
	if in.snapshot {
		if err := reduceSnapshot(ctx, c, in, obj, o, at.subresource()); err != nil {
			return "", err
		}
	}
	if reused && o.preview == nil {
		repaired(ctx, c, in, repairReused)
	}
	res, err := apply(ctx, c, owner, in, obj, at, o)
	if err != nil && obj.GetName() == "" {
		// A failed write leaves obj with the name and namespace it was
		// meant for, as a failed CreateOrUpdate or Update leaves the
		// object it was handed: error paths that name it still can.
		obj.SetName(in.name)
		obj.SetNamespace(in.namespace)
	}
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
	applyTotal.WithLabelValues(metricsNameOf(c), in.gvk.Kind, label).Inc()
	return res, err
}

// entriesFromServer reads the managedFields of the object of p from the
// client's APIReader, with its resourceVersion, for a repair after a
// refusal; nil without a reader or on error.
func entriesFromServer(ctx context.Context, c client.Client, obj client.Object, p *plan) []metav1.ManagedFieldsEntry {
	full, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return nil
	}
	full.SetName(p.in.name)
	full.SetNamespace(p.in.namespace)
	if read, err := fromAPIServer(ctx, c, full); !read || err != nil {
		return nil
	}
	p.resourceVersion = full.GetResourceVersion()
	return full.GetManagedFields()
}

// endpoint is where an apply goes: the object itself, or its status.
type endpoint uint8

const (
	mainResource endpoint = iota
	statusResource
)

// subresource is the endpoint's name in managedFields and requests.
func (e endpoint) subresource() string {
	if e == statusResource {
		return "status"
	}
	return ""
}

// plan is what decide found: the intent sealed for the endpoint, its
// cache key, and what was live before the apply is sent.
type plan struct {
	in     *intent
	at     endpoint
	key    cacheKey
	hash   string
	body   []byte
	exists bool
	before string    // the live resourceVersion, "" when there is none
	uid    types.UID // the live UID
	// content is the live object's content (content) when it came without
	// managedFields, to tell an unchanged answer from a changed one.
	content string
	live    client.Object
	// resourceVersion and entries are the live object's, for a repair
	// after a refusal (send resets obj).
	resourceVersion string
	entries         []metav1.ManagedFieldsEntry
	mem             *skipCache // the client's memory; nil remembers nothing
	// blind: the object was decided on its first sight without
	// managedFields (a stripping cache, no APIReader): its repair is made
	// on the answer to the apply, which has them.
	blind bool
	// stripped: the cache strips managedFields; what is remembered keeps
	// the object's content (cacheEntry.content).
	stripped bool
}

// apply is one Ensure call: decide whether a request is needed at all;
// if so send the apply, then record what the API server answered.
func apply(ctx context.Context, c client.Client, owner client.Object, in *intent, obj client.Object, at endpoint, o *options) (Result, error) {
	p, res, err := decide(ctx, c, owner, in, obj, at, o)
	if p == nil || err != nil {
		return res, err
	}
	start := time.Now()
	err = send(ctx, c, obj, p, o)
	applyLatency.WithLabelValues(metricsNameOf(c), in.gvk.Kind).Observe(time.Since(start).Seconds())
	if err != nil && p.exists && o.preview == nil {
		if p.entries == nil {
			// A cache that strips managedFields: the refusal may name an
			// entry only the API server shows (APIReader).
			p.entries = entriesFromServer(ctx, c, obj, p)
		}
		if gv := staleInError(err, p.entries); gv != "" {
			// An entry at a version the REST mapper still thought served.
			err = resendRestamped(ctx, c, obj, p, o, gv)
		}
	}
	if err == nil && p.blind && o.preview == nil {
		err = repairAnswered(ctx, c, obj, p, o)
	}
	if err != nil {
		return failed(ctx, c, obj, p, o, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(in.gvk)
	if o.preview != nil {
		return previewed(obj, p, o)
	}
	defer func() {
		if holds(obj, p.in, o) {
			p.mem.calm(p.key)
		} else {
			fought(ctx, c, obj, p, o)
		}
	}()
	if released, ok := releaseShared(obj.GetManagedFields(), o.fieldManager, p.at.subresource()); ok {
		// The apply after a managedFields reset: its fields are recorded
		// as shared with "before-first-apply" (repairReset).
		res := resultOf(obj, p) // what the apply did, not the patch
		if err := patchManagedFields(ctx, c, obj, released); err != nil {
			// The apply stands; unseen, the object is released by the
			// next call's repair.
			p.mem.forget(p.key)
			log.FromContext(ctx).Info("ensure: the fields of the apply after a managedFields reset stay shared with before-first-apply until the next call", "kind", in.gvk.Kind, "name", in.name, "error", err.Error())
			return res, nil
		}
		repaired(ctx, c, in, repairReset)
		obj.GetObjectKind().SetGroupVersionKind(in.gvk)
		remember(obj, p, o)
		return res, nil
	}
	remember(obj, p, o)
	return resultOf(obj, p), nil
}

// repairAnswered makes, on the answer obj to the apply of p, the repair
// decide could not make on an object read without managedFields: when it
// moves fields of this controller's former names or of its Update to the
// apply manager, the apply is sent once more, so that what the intent no
// longer sets is pruned as it is after a repair made first.
func repairAnswered(ctx context.Context, c client.Client, obj client.Object, p *plan, o *options) error {
	rv := obj.GetResourceVersion()
	if err := repair(ctx, c, p.in, obj, o, p.at.subresource(), true); err != nil || obj.GetResourceVersion() == rv {
		return err
	}
	return send(ctx, c, obj, p, o)
}

// decide reads the live object from the client's cache (that is free) and
// settles everything that needs no request: the owner reference, a
// controller of another's, create-only, an object being recreated, a
// refusal remembered, an intent the live object already holds. It returns
// the plan of the apply to send, or no plan and the call's result.
func decide(ctx context.Context, c client.Client, owner client.Object, in *intent, obj client.Object, at endpoint, o *options) (*plan, Result, error) {
	gvk := in.gvk
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	obj.SetName(in.name)
	obj.SetNamespace(in.namespace)
	sub := at.subresource()

	if at == mainResource && !o.noOwner {
		if err := setOwner(c, owner, in, obj, o); err != nil {
			return nil, "", err
		}
	}
	hash, body, err := in.seal(sub)
	if err != nil {
		return nil, "", fmt.Errorf("ensure: encoding the intent for %s %s: %w", gvk.Kind, in.name, err)
	}
	p := &plan{in: in, at: at, hash: hash, body: body,
		key: cacheKey{gvk: gvk, namespace: in.namespace, name: in.name, manager: o.fieldManager, subresource: sub}, mem: memory(c)}

	liveErr := c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
	p.exists = liveErr == nil
	if liveErr != nil && !apierrors.IsNotFound(liveErr) {
		return nil, "", liveErr
	}
	if !p.exists && o.created && at == statusResource {
		// Created by this call's first apply (CreateOrPatch): the cache
		// has not seen it yet, and its status is applied all the same.
		p.exists = true
	}
	p.stripped = p.exists && stripped(obj) || !p.exists && hasAPIReader(c)
	if p.stripped && !p.mem.seen(p.key) {
		// The cache strips managedFields: on first sight, what follows
		// needs them (APIReader); without a reader, the answer to the
		// apply shows them (blind).
		read, err := fromAPIServer(ctx, c, obj)
		if apierrors.IsNotFound(err) {
			p.exists = false
		} else if err != nil {
			return nil, "", err
		}
		p.blind = !read
	}
	// Typed reads may come back without apiVersion and kind (the fake
	// client and client-go's decoder clear them); the comparison below
	// needs them as the intent has them.
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	if !p.exists {
		p.mem.forget(p.key) // deleted objects leave the cache
	}
	if p.exists && at == mainResource && !o.noOwner {
		if err := checkController(obj, owner); err != nil {
			return nil, "", err
		}
	}
	if at == statusResource && !p.exists {
		return nil, "", &NotFoundError{GVK: gvk, Namespace: in.namespace, Name: in.name}
	}
	if o.createOnly && p.exists {
		return nil, Skipped, nil
	}
	if p.exists && o.recreate != nil && obj.GetDeletionTimestamp() != nil {
		return nil, Recreating, nil // deleted to be recreated; not gone yet
	}
	if p.exists {
		if ie := p.mem.rejected(p.key, hash, obj); ie != nil {
			// The same intent, refused for the same object: not sent again.
			if o.recreate != nil && o.preview == nil {
				p.mem.forget(p.key)
				res, err := recreate(ctx, c, obj, obj.GetUID(), *o.recreate)
				return nil, res, err
			}
			return nil, "", ie
		}
	}
	if p.exists && o.preview == nil {
		if err := repair(ctx, c, in, obj, o, sub, !p.mem.seen(p.key)); err != nil {
			return nil, "", err
		}
	}
	if p.exists && !o.alwaysSend && p.mem.fresh(p.key, hash, obj, in, o, p.stripped) {
		return nil, Skipped, nil
	}
	if p.exists {
		p.before, p.uid = version(obj), obj.GetUID()
		p.resourceVersion, p.entries = obj.GetResourceVersion(), obj.GetManagedFields()
		if stripped(obj) {
			// No managedFields (a fake client keeps none, a cache may
			// strip them): a client that gives every write a new version
			// (the fake does) is told apart by the content.
			p.content = content(obj)
		}
		if o.preview != nil {
			p.live = obj.DeepCopyObject().(client.Object)
		}
	}
	return p, "", nil
}

// resendRestamped restamps the entries at the stale version gv, the
// apply's refusal named, and sends the apply once more.
func resendRestamped(ctx context.Context, c client.Client, obj client.Object, p *plan, o *options, gv string) error {
	obj.SetResourceVersion(p.resourceVersion)
	if err := patchManagedFields(ctx, c, obj, restamp(p.entries, sets.New(gv), p.in.gvk.GroupVersion().String())); err != nil {
		return err
	}
	repaired(ctx, c, p.in, repairStaleVersion)
	p.before = version(obj)
	start := time.Now()
	err := send(ctx, c, obj, p, o)
	applyLatency.WithLabelValues(metricsNameOf(c), p.in.gvk.Kind).Observe(time.Since(start).Seconds())
	return err
}

// beforeFirstApply is the manager the API server gives every field of an
// object that has no managedFields when it is first applied.
const beforeFirstApply = "before-first-apply"

// failed turns the API server's refusal of a sent apply into the call's
// result: a typed conflict, an immutable field (recreated when asked, or
// remembered so the same intent is not sent again), or the error.
func failed(ctx context.Context, c client.Client, obj client.Object, p *plan, o *options, err error) (Result, error) {
	// A dry run remembers nothing, not even a refusal: the real apply
	// afterwards is sent and answered on its own.
	if o.preview == nil {
		p.mem.forget(p.key)
	}
	if conflict := asConflict(err); conflict != nil {
		return "", conflict
	}
	if ie := asImmutable(err, p.in.gvk, p.in.namespace, p.in.name); ie != nil && p.exists {
		if o.recreate != nil && o.preview == nil {
			return recreate(ctx, c, obj, p.uid, *o.recreate)
		}
		if o.preview == nil {
			p.mem.reject(p.key, p.hash, p.before, p.uid, ie)
		}
		return "", ie
	}
	if p.exists {
		return "", &updateError{err: err}
	}
	return "", err
}

// updateError is the refusal of an apply to an object that existed. Its
// message is the refusal's own: it only lets IsUpdateError tell an update
// from a create.
type updateError struct{ err error }

func (e *updateError) Error() string { return e.err.Error() }
func (e *updateError) Unwrap() error { return e.err }

// NewUpdateError is err as an Ensure call returns it when the apply to an
// existing object is refused (IsUpdateError reports it; its message is
// err's): for tests' stubs of the helpers that stand for a failed update.
func NewUpdateError(err error) error {
	if err == nil {
		return nil
	}
	return &updateError{err: err}
}

// IsUpdateError reports whether err is an Ensure call's failure to change
// an object that existed (a conflict, an immutable field, or any other
// refusal of the apply), as opposed to a failure to create it or to read
// it. Code that reported Create → AlreadyExists → Update's two failures
// apart keeps doing so with it:
//
//	if _, _, err := xensure.EnsureX(ctx, c, owner, desired); err != nil {
//		if ensure.IsUpdateError(err) {
//			return fmt.Errorf("updating %s: %w", name, err)
//		}
//		return fmt.Errorf("creating %s: %w", name, err)
//	}
func IsUpdateError(err error) bool {
	var (
		u *updateError
		c *ConflictError
		i *ImmutableError
	)
	return errors.As(err, &u) || errors.As(err, &c) || errors.As(err, &i)
}

// previewed is the result of a dry run: the difference it would make, and
// nothing remembered, since nothing was written.
func previewed(obj client.Object, p *plan, o *options) (Result, error) {
	var answer client.Object = obj
	if ts := obj.GetCreationTimestamp(); ts.IsZero() {
		// The client answered no dry run (controller-runtime's fake
		// client returns before it): merge the intent locally.
		var err error
		if answer, err = localMerge(o.schema, p.live, p.in.object()); err != nil {
			return "", err
		}
		if p.live != nil {
			reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(p.live).Elem())
		}
	}
	d, err := diff(o.schema, p.live, answer)
	if err != nil {
		return "", err
	}
	*o.preview = d
	switch {
	case !p.exists:
		return Created, nil
	case d.Empty():
		return Unchanged, nil
	}
	return Configured, nil
}

// remember records the object as the API server answered the apply.
func remember(obj client.Object, p *plan, o *options) {
	sealed := ""
	if p.stripped {
		sealed = content(obj)
	}
	p.mem.record(p.key, p.hash, obj, ownedHash(obj, o.fieldManager, p.at.subresource()), sealed)
}

// resultOf says what the apply, answered with obj, did.
func resultOf(obj client.Object, p *plan) Result {
	switch {
	case !p.exists:
		return Created
	case version(obj) == p.before, p.content != "" && content(obj) == p.content:
		return Unchanged
	}
	return Configured
}

// send applies the plan's body, the intent's JSON as it was hashed, as an
// apply patch of obj (or of its status), and the client decodes the API
// server's answer into obj. A patch's answer lands in the object it is
// given with every client — real, cached, fake, wrapped — and every
// controller-runtime release this module supports, where typed Apply
// hands the answer back only from v0.24 on and a status Apply exists only
// from v0.23. obj is reset first.
func send(ctx context.Context, c client.Client, obj client.Object, p *plan, o *options) error {
	reset(obj, p.in.gvk)
	patch := applyPatch(p.body)
	if p.at == statusResource {
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

// isNamespaced asks the client's REST mapper whether gvk is namespaced,
// once per Client and kind. When the mapper has no mapping for the kind
// (controller-runtime's fake client has an empty mapper unless given
// one), the answer is hasNamespace: the kind is taken as namespaced iff
// the desired object has a namespace. Such a guess is never remembered:
// only the mapper's own answers are. On a real API server a kind without
// a mapping cannot be applied anyway; the apply's error says so.
func isNamespaced(c client.Client, obj client.Object, gvk schema.GroupVersionKind, hasNamespace bool) (bool, error) {
	if namespaced, ok := knownScope(c, gvk); ok {
		return namespaced, nil
	}
	namespaced, err := c.IsObjectNamespaced(obj)
	if meta.IsNoMatchError(err) {
		return hasNamespace, nil
	}
	if err != nil {
		return false, err
	}
	rememberScope(c, gvk, namespaced)
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

// Err is the error of a helper's call, for a place that wants an error
// alone (return, if err := ...; err != nil):
//
//	return ensure.Err(podensure.EnsurePodStatus(ctx, c, podac.StatusFromPod(pod)))
//
// ssagen vet -fix writes it where it replaces a Status().Update.
func Err[T any](_ T, _ Result, err error) error { return err }
