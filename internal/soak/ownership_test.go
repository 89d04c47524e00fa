package soak_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	"github.com/ssagen/ssagen/internal/soak"
)

// The faults of what the API server keeps of ownership (issue 33): each
// leaves a child as upstream reports the API server or a controller
// leaves it, and the model as server-side apply's rules then say.

// resetManagedFields drops every managedFields entry of the child, as the
// API server does when a conversion webhook is down (kubernetes #136919),
// and lets the next apply come: the API server gives every field of the
// object to before-first-apply.
func resetManagedFields(ctx context.Context, c client.Client, ch *child) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	obj := ch.newObject()
	obj.SetName(ch.name)
	obj.SetNamespace(ns)
	wipe := client.RawPatch(types.JSONPatchType, []byte(`[{"op":"replace","path":"/metadata/managedFields","value":[{}]}]`))
	if err := c.Patch(ctx, obj, wipe); err != nil {
		return err
	}
	apiVersion, kind := "v1", "ConfigMap"
	if ch.proxy {
		apiVersion, kind = platformv1alpha1.GroupVersion.String(), "Proxy"
	}
	empty := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": ch.name, "namespace": ns}}}
	if err := c.Patch(ctx, empty, client.Apply, client.FieldOwner("fault")); err != nil {
		return err
	}
	if m := soak.ManagersOf(empty); !slices.Equal(m, []string{soak.BeforeFirstApply}) {
		return fmt.Errorf("the reset left managers %v, want %s alone", m, soak.BeforeFirstApply)
	}
	return nil
}

// removedVersion is the Proxy CRD version the StaleVersion fault serves
// and removes.
const removedVersion = "v1alpha0"

// staleVersion serves the Proxy CRD at removedVersion too, lets the legacy
// writer apply a label through it, and removes the version again: the
// child keeps an entry at a version the API server no longer serves,
// which fails every apply (kubernetes #111937) until it is restamped.
func staleVersion(ctx context.Context, c client.Client, ch *child, value string) error {
	if err := serveVersion(ctx, c, removedVersion, true); err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": platformv1alpha1.GroupVersion.Group + "/" + removedVersion, "kind": "Proxy",
		"metadata": map[string]any{"name": ch.name, "namespace": ns, "labels": map[string]any{"legacy": value}}}}
	callCtx, cancel := context.WithTimeout(ctx, callTimeout)
	err := c.Patch(callCtx, u, client.Apply, client.FieldOwner(legacyWriter), client.ForceOwnership)
	cancel()
	if err != nil {
		return err
	}
	return serveVersion(ctx, c, removedVersion, false)
}

// serveVersion adds version v to the Proxy CRD (served, not stored, the
// same schema) or removes it, and waits until the API server does so.
func serveVersion(ctx context.Context, c client.Client, v string, served bool) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(ctx, client.ObjectKey{Name: "proxies." + platformv1alpha1.GroupVersion.Group}, crd); err != nil {
		return err
	}
	crd.Spec.Versions = slices.DeleteFunc(crd.Spec.Versions, func(x apiextensionsv1.CustomResourceDefinitionVersion) bool { return x.Name == v })
	if served {
		extra := *crd.Spec.Versions[0].DeepCopy()
		extra.Name, extra.Storage = v, false
		crd.Spec.Versions = append(crd.Spec.Versions, extra)
	}
	if err := c.Update(ctx, crd); err != nil {
		return err
	}
	for {
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion(platformv1alpha1.GroupVersion.Group + "/" + v)
		l.SetKind("ProxyList")
		err := c.List(ctx, l, client.InNamespace(ns))
		if (err == nil) == served {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("the API server never served=%v %s: %v", served, v, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// formerRelease is the two releases of our controller before this one
// writing the child with Update: the last one a label, the one before the
// Proxy's status (Status().Update). It returns the model's changes by
// manager.
func formerRelease(ctx context.Context, c client.Client, ch *child, op soak.Op) (map[string]map[string]*string, error) {
	v := "r" + strconv.Itoa(op.N)
	changes := map[string]map[string]*string{formerV1: {"metadata.labels.release": &v}}
	if err := labelAs(ctx, c, ch, formerV1, "release", v); err != nil || !ch.proxy {
		return changes, err
	}
	addr := fmt.Sprintf("10.254.%d.%d", op.N/250%250, op.N%250)
	st := map[string]*string{"status.addresses[" + addr + "]": new(string)}
	for p := range ch.model.Values() {
		if strings.HasPrefix(p, "status.addresses[") && p != "status.addresses["+addr+"]" {
			st[p] = nil
		}
	}
	changes[formerV0] = st
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	px := &platformv1alpha1.Proxy{}
	if err := c.Get(ctx, ch.key(), px); err != nil {
		return changes, err
	}
	px.Status.Addresses = []string{addr}
	return changes, c.Status().Update(ctx, px, client.FieldOwner(formerV0))
}

// reusedConfiguration is the configuration our controller builds for the
// child's intent after an Apply decoded its answer into it, as
// controller-runtime v0.24 and later do (#3475): the answer of a dry run,
// which changes nothing, holds the resourceVersion and every field of
// the object.
func reusedConfiguration(ctx context.Context, c client.Client, ch *child) (runtime.ApplyConfiguration, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	cfg := ch.config()
	if err := c.Apply(ctx, cfg, client.DryRunAll, client.FieldOwner(ours), client.ForceOwnership); err != nil {
		return nil, err
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(string(b), `"resourceVersion"`) || !strings.Contains(string(b), `"uid"`) {
		return nil, fmt.Errorf("the answer was not decoded into the configuration: %s", b)
	}
	return cfg, nil
}
