package ensure

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// CreateOrUpdate is controllerutil.CreateOrUpdate by server-side apply,
// with its signature: the mutate function f runs on a fresh object (obj
// as the caller built it, with its name and namespace; an object holding
// an earlier answer of the API server is first reset to its name and
// namespace), and what it set is applied with force under the field
// manager. Nothing is read back to mutate, no resourceVersion is sent,
// and no request at all when the object already holds the intent (the
// memory of an ensure.Client, or the cache and Schema). A field f stops
// setting is pruned when this manager owns it; other writers' fields stay.
//
// What f set is obj's JSON less the optional fields (omitempty) at their
// zero value, nulls, status, and the metadata the API server sets. A
// controller reference f sets (controllerutil.SetControllerReference) is
// the owner: an object another controller holds is refused with
// ErrAlreadyControlled; first the mutate function is handed the live
// object, as CreateOrUpdate would, and its error (its own check for
// another controller, SetControllerReference's AlreadyOwnedError) is the
// call's. obj receives the live object, and the result is
// controllerutil's: Created, Updated or None.
//
// f must set the object as a whole, as it would on a new object: a value
// it keeps from the live object (defaulted only when absent, carried
// forward) is not there to keep. ssagen vet -fix rewrites to it only the
// mutate functions that read nothing of the live object.
func CreateOrUpdate(ctx context.Context, c client.Client, obj client.Object, f controllerutil.MutateFn, opts ...ApplyOption) (controllerutil.OperationResult, error) {
	res, _, err := applyMutation(ctx, c, obj, f, false, opts)
	return res, err
}

// CreateOrPatch is controllerutil.CreateOrPatch by server-side apply: as
// CreateOrUpdate, and the status f set is applied to the status
// subresource after the object (UpdatedStatus, UpdatedStatusOnly;
// Created for a new object, whose status is applied too).
func CreateOrPatch(ctx context.Context, c client.Client, obj client.Object, f controllerutil.MutateFn, opts ...ApplyOption) (controllerutil.OperationResult, error) {
	res, _, err := applyMutation(ctx, c, obj, f, true, opts)
	return res, err
}

func applyMutation(ctx context.Context, c client.Client, obj client.Object, f controllerutil.MutateFn, status bool, opts []ApplyOption) (controllerutil.OperationResult, Result, error) {
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		return controllerutil.OperationResultNone, "", fmt.Errorf("ensure: the object's kind: %w", err)
	}
	key := client.ObjectKeyFromObject(obj)
	if ts := obj.GetCreationTimestamp(); obj.GetResourceVersion() != "" || obj.GetUID() != "" || !ts.IsZero() {
		// An earlier answer of the API server holds every writer's fields:
		// f starts from the name and namespace alone.
		v := reflect.ValueOf(obj).Elem()
		v.Set(reflect.Zero(v.Type()))
		obj.SetName(key.Name)
		obj.SetNamespace(key.Namespace)
		obj.GetObjectKind().SetGroupVersionKind(gvk)
	}
	if err := f(); err != nil {
		return controllerutil.OperationResultNone, "", err
	}
	if client.ObjectKeyFromObject(obj) != key {
		return controllerutil.OperationResultNone, "", fmt.Errorf("MutateFn cannot mutate object name and/or object namespace")
	}
	main, st, owner, err := mutationIntent(obj, gvk)
	if err != nil {
		return controllerutil.OperationResultNone, "", err
	}
	if owner != nil {
		opts = append(opts, BlockOwnerDeletion(owner.block))
	} else {
		opts = append(opts, NoOwner())
	}
	var ownerObj client.Object
	if owner != nil {
		ownerObj = owner.obj
	}
	res, err := Apply(ctx, c, ownerObj, main, obj, opts...)
	if errors.Is(err, ErrAlreadyControlled) {
		// Another controller holds the object: obj is the live object, and
		// the mutate function is handed it as CreateOrUpdate would, so its
		// own check (or SetControllerReference's) says so in its words.
		if ferr := f(); ferr != nil {
			return controllerutil.OperationResultNone, res, ferr
		}
	}
	if err != nil {
		return controllerutil.OperationResultNone, res, err
	}
	op := operationOf(res)
	if !status || st == nil {
		return op, res, nil
	}
	if op == controllerutil.OperationResultCreated {
		opts = append(opts, applyFunc(func(o *options) { o.created = true }))
	}
	sres, err := ApplyStatus(ctx, c, st, obj, opts...)
	if err != nil {
		return op, res, err
	}
	switch {
	case sres != Configured && sres != Created, op == controllerutil.OperationResultCreated:
		return op, res, nil // created: its status with it, as a result says
	case op == controllerutil.OperationResultNone:
		return controllerutil.OperationResultUpdatedStatusOnly, sres, nil
	default:
		return controllerutil.OperationResultUpdatedStatus, res, nil
	}
}

func operationOf(res Result) controllerutil.OperationResult {
	switch res {
	case Created:
		return controllerutil.OperationResultCreated
	case Configured:
		return controllerutil.OperationResultUpdated
	}
	return controllerutil.OperationResultNone
}

// rawIntent is an apply configuration held as its JSON.
type rawIntent []byte

func (rawIntent) IsApplyConfiguration()          {}
func (r rawIntent) MarshalJSON() ([]byte, error) { return r, nil }

// mutationOwner is the controller reference a mutate function set.
type mutationOwner struct {
	obj   client.Object
	block bool
}

// mutationIntent is what the mutate function set on obj: the object and
// its status as apply configurations (status nil when it set none), and
// the controller reference it set, taken out of the references to be
// the apply's owner.
func mutationIntent(obj client.Object, gvk schema.GroupVersionKind) (main, status runtime.ApplyConfiguration, owner *mutationOwner, err error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("ensure: encoding %s %s: %w", gvk.Kind, obj.GetName(), err)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, nil, nil, fmt.Errorf("ensure: encoding %s %s: %w", gvk.Kind, obj.GetName(), err)
	}
	var t reflect.Type
	if _, ok := obj.(runtime.Unstructured); !ok {
		t = reflect.TypeOf(obj)
	}
	m, _ = setFields(m, t).(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	st, _ := m["status"].(map[string]any)
	delete(m, "status")
	ident := map[string]any{"name": obj.GetName()}
	if ns := obj.GetNamespace(); ns != "" {
		ident["namespace"] = ns
	}
	md := maps.Clone(ident)
	old, _ := m["metadata"].(map[string]any)
	for _, k := range []string{"labels", "annotations", "finalizers"} {
		if v, ok := old[k]; ok {
			md[k] = v
		}
	}
	for _, r := range obj.GetOwnerReferences() {
		if r.Controller != nil && *r.Controller {
			p := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: r.APIVersion, Kind: r.Kind}}
			p.SetName(r.Name)
			p.SetUID(r.UID)
			owner = &mutationOwner{obj: p, block: r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion}
			break
		}
	}
	// The other references, as the object's JSON has them.
	refs, _ := old["ownerReferences"].([]any)
	refs = slices.DeleteFunc(slices.Clone(refs), func(r any) bool {
		rm, _ := r.(map[string]any)
		return owner != nil && rm["controller"] == true
	})
	if len(refs) > 0 {
		md["ownerReferences"] = refs
	}
	m["metadata"] = md
	m["apiVersion"], m["kind"] = gvk.GroupVersion().String(), gvk.Kind
	body, err := json.Marshal(m)
	if err != nil {
		return nil, nil, nil, err
	}
	if st != nil {
		sb, err := json.Marshal(map[string]any{"apiVersion": m["apiVersion"], "kind": gvk.Kind, "metadata": ident, "status": st})
		if err != nil {
			return nil, nil, nil, err
		}
		status = rawIntent(sb)
	}
	return rawIntent(body), status, owner, nil
}

// setFields is v (a JSON value decoded from a value of Go type t; t nil
// when unknown) less what was not set: nulls, optional fields (omitempty)
// at their type's zero value, and objects left empty by that. nil when
// nothing is left.
func setFields(v any, t reflect.Type) any {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && (t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler)) {
		t = nil // its own encoding (Quantity, Time, IntOrString): a leaf
	}
	switch v := v.(type) {
	case nil:
		return nil
	case map[string]any:
		var fields map[string]jsonField
		if t != nil && t.Kind() == reflect.Struct {
			fields = fieldsOf(t)
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			var ft reflect.Type
			switch {
			case fields != nil:
				f, ok := fields[k]
				if ok && f.omitEmpty && isZeroJSON(x, f.typ) {
					continue
				}
				ft = f.typ
			case t != nil && t.Kind() == reflect.Map:
				ft = t.Elem()
			}
			if x = setFields(x, ft); x != nil {
				out[k] = x
			}
		}
		if len(out) == 0 && fields != nil {
			return nil
		}
		return out
	case []any:
		var et reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			et = t.Elem()
		}
		out := make([]any, 0, len(v))
		for _, x := range v {
			x = setFields(x, et)
			if x == nil {
				x = map[string]any{} // an item stays an item
			}
			out = append(out, x)
		}
		return out
	}
	return v
}

var jsonMarshaler = reflect.TypeFor[json.Marshaler]()

// jsonField is a struct field as JSON names it.
type jsonField struct {
	typ       reflect.Type
	omitEmpty bool
}

var fieldCache sync.Map // reflect.Type → map[string]jsonField

// fieldsOf is the JSON fields of struct type t, embedded structs'
// included as encoding/json flattens them.
func fieldsOf(t reflect.Type) map[string]jsonField {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]jsonField)
	}
	out := map[string]jsonField{}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" || !sf.IsExported() && !sf.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if sf.Anonymous && name == "" {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				for k, f := range fieldsOf(et) {
					if _, ok := out[k]; !ok {
						out[k] = f
					}
				}
				continue
			}
		}
		if name == "" {
			name = sf.Name
		}
		out[name] = jsonField{typ: ft, omitEmpty: strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")}
	}
	fieldCache.Store(t, out)
	return out
}

var zeroCache sync.Map // reflect.Type → any

// isZeroJSON reports whether x is the JSON of t's zero value.
func isZeroJSON(x any, t reflect.Type) bool {
	if x == nil {
		return true
	}
	z, ok := zeroCache.Load(t)
	if !ok {
		b, err := json.Marshal(reflect.Zero(t).Interface())
		if err != nil {
			return false
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return false
		}
		z = v
		zeroCache.Store(t, z)
	}
	return reflect.DeepEqual(x, z)
}
