package ensure

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// AddFinalizer makes finalizer one of obj's finalizers (obj is the owner,
// typically the object being reconciled) by server-side apply, under a
// field manager of its own, <FieldManager>/<finalizer>: other finalizers
// — other controllers', and this controller's others — are untouched, and
// no resourceVersion is sent, so it never 409s on a stale cache. It sends
// nothing when the client's cache already shows the finalizer. The apply
// carries obj's UID, so an owner deleted meanwhile is never re-created:
// that is a NotFound error. obj is updated to the live object.
func AddFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string, opts ...FinalizerOption) (Result, error) {
	o := newFinalizerOptions(c, opts)
	live, res, err := finalizerState(ctx, c, obj, finalizer, true)
	if err != nil || res == Skipped {
		return res, err
	}
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		return "", fmt.Errorf("ensure: the kind of %s: %w", obj.GetName(), err)
	}
	body, err := json.Marshal(map[string]any{
		"apiVersion": gvk.GroupVersion().String(),
		"kind":       gvk.Kind,
		"metadata": map[string]any{
			"name": live.GetName(), "namespace": live.GetNamespace(), "uid": live.GetUID(),
			"finalizers": []string{finalizer},
		},
	})
	if err != nil {
		return "", err
	}
	reset(obj, gvk)
	patch := client.RawPatch(types.ApplyPatchType, body)
	if err := c.Patch(ctx, obj, patch, client.FieldOwner(o.fieldManager+"/"+finalizer), client.ForceOwnership); err != nil {
		if apierrors.IsConflict(err) {
			// "uid mismatch ... no existing object was found": the owner is
			// gone, and the apply did not create it again.
			return "", apierrors.NewNotFound(groupResource(c, gvk), obj.GetName())
		}
		return "", err
	}
	return Configured, nil
}

// RemoveFinalizer takes finalizer out of obj's finalizers, whoever added
// it (this controller's apply, or its Update before it used apply), with a
// JSON patch that first tests the finalizer is still where the cache saw
// it: no resourceVersion, so no 409; a concurrent change of the list fails
// the test (422) and the next reconcile tries again; an owner deleted
// meanwhile is not re-created. It sends nothing when the cache no longer
// shows the finalizer, or the object is gone. obj is updated to the live
// object.
func RemoveFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string) (Result, error) {
	live, res, err := finalizerState(ctx, c, obj, finalizer, false)
	if err != nil || res == Skipped {
		return res, err
	}
	i := slices.Index(live.GetFinalizers(), finalizer)
	path := fmt.Sprintf("/metadata/finalizers/%d", i)
	body, err := json.Marshal([]map[string]any{
		{"op": "test", "path": "/metadata/uid", "value": live.GetUID()},
		{"op": "test", "path": path, "value": finalizer},
		{"op": "remove", "path": path},
	})
	if err != nil {
		return "", err
	}
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		return "", fmt.Errorf("ensure: the kind of %s: %w", obj.GetName(), err)
	}
	reset(obj, gvk)
	if err := c.Patch(ctx, obj, client.RawPatch(types.JSONPatchType, body)); err != nil {
		if apierrors.IsNotFound(err) {
			return Skipped, nil
		}
		return "", err
	}
	return Configured, nil
}

// FinalizerOption changes how AddFinalizer and Finalize write: FieldManager.
type FinalizerOption interface{ setFinalizer(*finalizerOptions) }

type finalizerOptions struct{ fieldManager string }

func newFinalizerOptions(c client.Client, opts []FinalizerOption) *finalizerOptions {
	o := &finalizerOptions{fieldManager: managerOf(c)}
	for _, opt := range opts {
		if opt != nil {
			opt.setFinalizer(o)
		}
	}
	return o
}

// finalizerState reads obj from the client's cache into a copy and says
// whether the finalizer is already as wanted (Skipped).
func finalizerState(ctx context.Context, c client.Client, obj client.Object, finalizer string, want bool) (client.Object, Result, error) {
	if finalizer == "" {
		return nil, "", fmt.Errorf("ensure: the finalizer must not be empty")
	}
	live, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return nil, "", fmt.Errorf("ensure: %T cannot be copied", obj)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), live); err != nil {
		if apierrors.IsNotFound(err) && !want {
			return nil, Skipped, nil
		}
		return nil, "", err
	}
	if live.GetUID() == "" {
		// The fake client assigns none to objects given to its builder:
		// the apply's UID guard would then refuse every write.
		return nil, "", &OwnerError{Cause: ErrOwnerNoUID, Reason: fmt.Sprintf("%s has no UID (fake client fixtures need metadata.uid)", obj.GetName())}
	}
	if slices.Contains(live.GetFinalizers(), finalizer) == want {
		reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(live).Elem())
		return live, Skipped, nil
	}
	return live, "", nil
}

// groupResource names gvk's resource for an error: from the client's REST
// mapper, or the lower-cased kind when it has none (the fake client).
func groupResource(c client.Client, gvk schema.GroupVersionKind) schema.GroupResource {
	if m, err := c.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); err == nil {
		return m.Resource.GroupResource()
	}
	return schema.GroupResource{Group: gvk.Group, Resource: strings.ToLower(gvk.Kind)}
}
