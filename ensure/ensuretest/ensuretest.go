// Package ensuretest is a test kit for controllers that write with
// server-side apply (the EnsureX helpers ssagen generates, or apply
// patches of their own): controller-runtime's fake client, set up to
// behave as the API server does for apply, that records every request.
//
//	c := ensuretest.NewClient(scheme,
//		ensuretest.WithObjects(project),
//		ensuretest.WithTypeConverters(applyconfiguration.NewTypeConverter(scheme)))
//	r := &ProjectReconciler{Client: ensure.NewClient(c, ensure.FieldManager("project-controller"))}
//	r.Reconcile(ctx, req)
//	mark := c.Mark()
//	r.Reconcile(ctx, req)
//	c.ExpectNoWrites(t, mark) // nothing changed: nothing sent
//
// What it does that a plain fake client needs spelled out:
//   - the type converters given (the generated NewTypeConverter of the
//     output tree) come first, client-go's for the built-in kinds after
//     them, so that list-maps and sets merge as on the API server instead
//     of being replaced whole;
//   - managedFields are returned, as the API server returns them (the
//     helpers' skip cache and the Owned<Kind>Changes predicates read them);
//   - every kind of the scheme with a Status field has the status
//     subresource, as kubebuilder's +kubebuilder:subresource:status gives it;
//   - objects given, and objects created, that have no UID get one (an
//     owner reference needs it);
//   - an apply that changes nothing keeps the object's resourceVersion and
//     writes nothing, as the API server does (the plain fake client bumps
//     it on every apply, so "no write when nothing changed" cannot be
//     tested on it);
//   - every request is recorded, with what it did, for assertions that
//     read in one line.
//
// It works with controller-runtime v0.22 to v0.25. Requests through the
// typed Apply (client.Client.Apply) are recorded but not checked for
// no-ops; the helpers send apply patches, which are.
package ensuretest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	clientgoapplyconfigurations "k8s.io/client-go/applyconfigurations"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Option sets up a Client.
type Option func(*options)

type options struct {
	objects        []client.Object
	typeConverters []managedfields.TypeConverter
	status         []client.Object
	interceptor    *interceptor.Funcs
}

// WithObjects stores objects in the client before the test starts.
func WithObjects(objs ...client.Object) Option {
	return func(o *options) { o.objects = append(o.objects, objs...) }
}

// WithTypeConverters puts converters before client-go's: the generated
// NewTypeConverter(scheme) of the output tree knows the project's kinds.
func WithTypeConverters(tcs ...managedfields.TypeConverter) Option {
	return func(o *options) { o.typeConverters = append(o.typeConverters, tcs...) }
}

// WithStatusSubresource gives kinds the status subresource beyond those
// with a Status field.
func WithStatusSubresource(objs ...client.Object) Option {
	return func(o *options) { o.status = append(o.status, objs...) }
}

// WithInterceptorFuncs injects behaviour (an error from Create, a 409 from
// Patch) between the recording and the store: what an injected function
// answers is recorded as the request's outcome.
func WithInterceptorFuncs(f interceptor.Funcs) Option {
	return func(o *options) { o.interceptor = &f }
}

// Request is one call the client answered.
type Request struct {
	// Verb is get, list, watch, create, update, patch, apply (an apply
	// patch), delete or deleteallof.
	Verb        string
	Subresource string
	Kind        schema.GroupVersionKind
	Namespace   string
	Name        string
	// FieldManager is the one the request named.
	FieldManager string
	// Err is the answer's error; Code its HTTP status (200 without error).
	Err  error
	Code int
	// Wrote says the stored object changed (its resourceVersion moved, or
	// it was created or deleted).
	Wrote bool
}

func (r Request) String() string {
	target := r.Kind.Kind
	if r.Subresource != "" {
		target += "/" + r.Subresource
	}
	name := r.Name
	if r.Namespace != "" {
		name = r.Namespace + "/" + r.Name
	}
	return fmt.Sprintf("%s %s %s (manager %q): %d", r.Verb, target, name, r.FieldManager, r.Code)
}

// Write says the request is one that asks for a change.
func (r Request) Write() bool {
	switch r.Verb {
	case "create", "update", "patch", "apply", "delete", "deleteallof":
		return true
	}
	return false
}

// Client is the fake client with the API server's behaviour for apply,
// and its request log. Its methods are safe for concurrent use.
type Client struct {
	client.WithWatch
	scheme  *runtime.Scheme
	scratch func(objs ...client.Object) client.WithWatch

	mu       sync.Mutex
	requests []Request
}

// NewClient builds the client for scheme (which must hold every kind the
// test touches, client-go's included).
func NewClient(scheme *runtime.Scheme, opts ...Option) *Client {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	converters := append(append([]managedfields.TypeConverter{}, o.typeConverters...), clientgoapplyconfigurations.NewTypeConverter(scheme))
	status := append(statusKinds(scheme), o.status...)
	build := func(objs ...client.Object) client.WithWatch {
		return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
			WithStatusSubresource(status...).WithTypeConverters(converters...).
			WithReturnManagedFields().Build()
	}
	objects := make([]client.Object, 0, len(o.objects))
	for _, obj := range o.objects {
		obj = obj.DeepCopyObject().(client.Object)
		assignUID(scheme, obj)
		objects = append(objects, obj)
	}
	c := &Client{scheme: scheme, scratch: build}
	var inner client.WithWatch = interceptor.NewClient(build(objects...), c.applyLikeAPIServer())
	if o.interceptor != nil {
		inner = interceptor.NewClient(inner, *o.interceptor)
	}
	c.WithWatch = interceptor.NewClient(inner, c.record())
	return c
}

// statusKinds are the kinds of the scheme whose Go type has a Status
// field.
func statusKinds(scheme *runtime.Scheme) []client.Object {
	var out []client.Object
	for _, t := range scheme.AllKnownTypes() {
		if t.Kind() != reflect.Struct {
			continue
		}
		if f, ok := t.FieldByName("Status"); !ok || f.Type.Kind() != reflect.Struct {
			continue
		}
		if obj, ok := reflect.New(t).Interface().(client.Object); ok {
			out = append(out, obj)
		}
	}
	return out
}

// assignUID gives obj a UID of its kind, namespace and name if it has none.
func assignUID(scheme *runtime.Scheme, obj client.Object) {
	if obj.GetUID() != "" {
		return
	}
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	if gvk, err := apiutil.GVKForObject(obj, scheme); err == nil {
		kind = gvk.Kind
	}
	obj.SetUID(types.UID(fmt.Sprintf("uid-%s-%s-%s", kind, obj.GetNamespace(), obj.GetName())))
}

// applyLikeAPIServer answers an apply patch that would change nothing
// without writing, keeping the resourceVersion, and gives created objects
// a UID.
func (c *Client) applyLikeAPIServer() interceptor.Funcs {
	return interceptor.Funcs{
		Create: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			assignUID(c.scheme, obj)
			return cl.Create(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, cl client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			if patch.Type() == types.ApplyPatchType {
				if same, err := c.unchanged(ctx, cl, obj, func(scratch client.Client, o client.Object) error {
					return scratch.Patch(ctx, o, patch, opts...)
				}, ""); err != nil || same {
					return err
				}
			}
			return cl.Patch(ctx, obj, patch, opts...)
		},
		SubResourcePatch: func(ctx context.Context, cl client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			if patch.Type() == types.ApplyPatchType {
				if same, err := c.unchanged(ctx, cl, obj, func(scratch client.Client, o client.Object) error {
					return scratch.SubResource(sub).Patch(ctx, o, patch, opts...)
				}, sub); err != nil || same {
					return err
				}
			}
			return cl.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	}
}

// unchanged applies the patch to a copy of the stored object in a client
// of its own; when the result is the stored object (but for the
// resourceVersion and managedFields' times), it fills obj with the stored
// object and reports true: nothing is to be written.
func (c *Client) unchanged(ctx context.Context, cl client.Client, obj client.Object, apply func(client.Client, client.Object) error, sub string) (bool, error) {
	gvk, err := apiutil.GVKForObject(obj, c.scheme)
	if err != nil {
		return false, nil
	}
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(gvk)
	if err := cl.Get(ctx, client.ObjectKeyFromObject(obj), live); err != nil {
		return false, nil // NotFound: the apply creates it
	}
	stored, err := c.scheme.New(gvk)
	if err != nil {
		return false, nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(live.Object, stored); err != nil {
		return false, nil
	}
	scratch := c.scratch(stored.(client.Object))
	trial := obj.DeepCopyObject().(client.Object)
	if err := apply(scratch, trial); err != nil {
		return false, nil // the store answers it, error and all
	}
	after := &unstructured.Unstructured{}
	after.SetGroupVersionKind(gvk)
	if err := scratch.Get(ctx, client.ObjectKeyFromObject(obj), after); err != nil {
		return false, nil
	}
	if !sameObject(live, after) {
		return false, nil
	}
	// The API server answers a no-op apply with the object as stored.
	return true, cl.Get(ctx, client.ObjectKeyFromObject(obj), obj)
}

// sameObject compares two states of an object but for what a no-op
// apply would not change on the API server: the resourceVersion and the
// times of managedFields entries.
func sameObject(a, b *unstructured.Unstructured) bool {
	norm := func(u *unstructured.Unstructured) []byte {
		u = u.DeepCopy()
		u.SetResourceVersion("")
		mf := u.GetManagedFields()
		for i := range mf {
			mf[i].Time = nil
		}
		u.SetManagedFields(mf)
		b, _ := json.Marshal(u.Object)
		return b
	}
	return bytes.Equal(norm(a), norm(b))
}

// record logs every request with its outcome.
func (c *Client) record() interceptor.Funcs {
	return interceptor.Funcs{
		Get: func(ctx context.Context, cl client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			err := cl.Get(ctx, key, obj, opts...)
			c.add(Request{Verb: "get", Namespace: key.Namespace, Name: key.Name}, obj, err, "")
			return err
		},
		List: func(ctx context.Context, cl client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			err := cl.List(ctx, list, opts...)
			c.add(Request{Verb: "list"}, list, err, "")
			return err
		},
		Create: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			err := cl.Create(ctx, obj, opts...)
			co := &client.CreateOptions{}
			co.ApplyOptions(opts)
			c.add(Request{Verb: "create", FieldManager: co.FieldManager, Wrote: err == nil}, obj, err, "")
			return err
		},
		Update: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			before := c.stored(ctx, cl, obj)
			err := cl.Update(ctx, obj, opts...)
			uo := &client.UpdateOptions{}
			uo.ApplyOptions(opts)
			c.add(Request{Verb: "update", FieldManager: uo.FieldManager, Wrote: err == nil && c.wrote(ctx, cl, obj, before)}, obj, err, "")
			return err
		},
		Patch: func(ctx context.Context, cl client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			before := c.stored(ctx, cl, obj)
			err := cl.Patch(ctx, obj, patch, opts...)
			po := &client.PatchOptions{}
			po.ApplyOptions(opts)
			c.add(Request{Verb: patchVerb(patch), FieldManager: po.FieldManager, Wrote: err == nil && c.wrote(ctx, cl, obj, before)}, obj, err, "")
			return err
		},
		Delete: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			err := cl.Delete(ctx, obj, opts...)
			c.add(Request{Verb: "delete", Wrote: err == nil}, obj, err, "")
			return err
		},
		DeleteAllOf: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.DeleteAllOfOption) error {
			err := cl.DeleteAllOf(ctx, obj, opts...)
			c.add(Request{Verb: "deleteallof", Wrote: err == nil}, obj, err, "")
			return err
		},
		SubResourceUpdate: func(ctx context.Context, cl client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			before := c.stored(ctx, cl, obj)
			err := cl.SubResource(sub).Update(ctx, obj, opts...)
			uo := &client.SubResourceUpdateOptions{}
			uo.ApplyOptions(opts)
			c.add(Request{Verb: "update", FieldManager: uo.FieldManager, Wrote: err == nil && c.wrote(ctx, cl, obj, before)}, obj, err, sub)
			return err
		},
		SubResourcePatch: func(ctx context.Context, cl client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			before := c.stored(ctx, cl, obj)
			err := cl.SubResource(sub).Patch(ctx, obj, patch, opts...)
			po := &client.SubResourcePatchOptions{}
			po.ApplyOptions(opts)
			c.add(Request{Verb: patchVerb(patch), FieldManager: po.FieldManager, Wrote: err == nil && c.wrote(ctx, cl, obj, before)}, obj, err, sub)
			return err
		},
	}
}

func patchVerb(p client.Patch) string {
	if p.Type() == types.ApplyPatchType {
		return "apply"
	}
	return "patch"
}

// stored is obj as stored, nil when absent.
func (c *Client) stored(ctx context.Context, cl client.Client, obj client.Object) *unstructured.Unstructured {
	gvk, err := apiutil.GVKForObject(obj, c.scheme)
	if err != nil {
		return nil
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := cl.Get(ctx, client.ObjectKeyFromObject(obj), u); err != nil {
		return nil
	}
	return u
}

// wrote says a write changed the stored object: its content (v0.22's
// fake client versions no apply), or its resourceVersion.
func (c *Client) wrote(ctx context.Context, cl client.Client, obj client.Object, before *unstructured.Unstructured) bool {
	after := c.stored(ctx, cl, obj)
	switch {
	case before == nil || after == nil:
		return before != after
	case before.GetResourceVersion() != after.GetResourceVersion():
		return true
	}
	return !sameObject(before, after)
}

func (c *Client) add(r Request, obj runtime.Object, err error, sub string) {
	if gvk, gerr := apiutil.GVKForObject(obj, c.scheme); gerr == nil {
		r.Kind = gvk
	}
	if o, ok := obj.(client.Object); ok && r.Name == "" && r.Verb != "list" {
		r.Namespace, r.Name = o.GetNamespace(), o.GetName()
	}
	r.Subresource, r.Err, r.Code = sub, err, 200
	if err != nil {
		r.Code = 500
		var status apierrors.APIStatus
		if errors.As(err, &status) {
			r.Code = int(status.Status().Code)
		}
	}
	c.mu.Lock()
	c.requests = append(c.requests, r)
	c.mu.Unlock()
}

// Mark is a point in the request log.
type Mark int

// Mark returns the point the log has reached.
func (c *Client) Mark() Mark {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Mark(len(c.requests))
}

// Requests returns the requests since m (Mark(0): all of them).
func (c *Client) Requests(since Mark) []Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Request(nil), c.requests[min(int(since), len(c.requests)):]...)
}

// Writes returns the write requests since m, answered or refused.
func (c *Client) Writes(since Mark) []Request {
	var out []Request
	for _, r := range c.Requests(since) {
		if r.Write() {
			out = append(out, r)
		}
	}
	return out
}

// Count counts the requests since m of a verb ("" for any) on a kind
// ("" for any; the Kind, such as "ConfigMap").
func (c *Client) Count(since Mark, verb, kind string) int {
	n := 0
	for _, r := range c.Requests(since) {
		if (verb == "" || r.Verb == verb) && (kind == "" || r.Kind.Kind == kind) {
			n++
		}
	}
	return n
}

// Conflicts counts the requests since m answered 409 Conflict.
func (c *Client) Conflicts(since Mark) int {
	n := 0
	for _, r := range c.Requests(since) {
		if r.Code == 409 {
			n++
		}
	}
	return n
}

// ExpectNoWrites fails the test if a write was sent since m, listing them.
func (c *Client) ExpectNoWrites(t testing.TB, since Mark) {
	t.Helper()
	if w := c.Writes(since); len(w) > 0 {
		t.Errorf("%d write(s) sent where nothing changed:\n%s", len(w), list(w))
	}
}

// ExpectWrites fails the test unless exactly n writes were sent since m.
func (c *Client) ExpectWrites(t testing.TB, since Mark, n int) {
	t.Helper()
	if w := c.Writes(since); len(w) != n {
		t.Errorf("%d write(s) sent, want %d:\n%s", len(w), n, list(w))
	}
}

// ExpectNoConflicts fails the test if a request since m was answered 409.
func (c *Client) ExpectNoConflicts(t testing.TB, since Mark) {
	t.Helper()
	var conflicts []Request
	for _, r := range c.Requests(since) {
		if r.Code == 409 {
			conflicts = append(conflicts, r)
		}
	}
	if len(conflicts) > 0 {
		t.Errorf("%d request(s) answered 409 Conflict:\n%s", len(conflicts), list(conflicts))
	}
}

func list(rs []Request) string {
	var b bytes.Buffer
	for _, r := range rs {
		fmt.Fprintf(&b, "  %s\n", r)
	}
	return b.String()
}

// Managers returns the field managers that own the field at path (field
// names from the object's root: "spec", "replicas") in obj as stored,
// with the subresource of their entry ("" or "status") after a slash
// when it has one.
func (c *Client) Managers(ctx context.Context, obj client.Object, path ...string) ([]string, error) {
	gvk, err := apiutil.GVKForObject(obj, c.scheme)
	if err != nil {
		return nil, err
	}
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(gvk)
	if err := c.WithWatch.Get(ctx, client.ObjectKeyFromObject(obj), live); err != nil {
		return nil, err
	}
	elems := make([]any, len(path))
	for i, p := range path {
		elems[i] = p
	}
	want, err := fieldpath.MakePath(elems...)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range live.GetManagedFields() {
		if e.FieldsV1 == nil {
			continue
		}
		set := &fieldpath.Set{}
		if err := set.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
			return nil, fmt.Errorf("managedFields of %s: %w", e.Manager, err)
		}
		if set.Has(want) {
			name := e.Manager
			if e.Subresource != "" {
				name += "/" + e.Subresource
			}
			out = append(out, name)
		}
	}
	return out, nil
}
