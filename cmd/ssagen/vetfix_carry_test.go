package main

import (
	"strings"
	"testing"
)

// TestVetFixCarryForward: network-services-operator's Gateway in our
// words — a reconciler that writes a Proxy with CreateOrUpdate, its
// mutate function carrying the listener another controller fills in
// forward from the live object, and a test on the fake client in which
// that controller adds a hostname between two reconciles. -fix calls the
// generated CreateOrUpdateProxy, which runs the mutate function on a fresh
// object, where the carry-forward block never runs (the apply leaves the
// other controller's hostname alone), and builds the test's fake client with the generated tree's type
// converter, under which the fake merges the listeners by name as the API
// server does; without it the fake's deduced schema makes the list atomic,
// the apply drops the hostname and the check declines the fix. The
// package builds, passes go vet and its test, before and after. The Proxy
// holds a uint64, so the converter is the tree's own (it reads such kinds
// through their JSON); internal/adoption's TestVetFixCarryForward runs the
// same in an operator module of its own, at the oldest supported pins.
func TestVetFixCarryForward(t *testing.T) {
	bin, file, pkg, goCmd := vetFixPackage(t, "zzvetfixcarry", carrySrc, carryTest)
	goCmd("test", "-count=1")
	fixed, fixedTest := vetFixRun(t, bin, pkg, file, "ssagen vet -fix: rewrote 1 of 1 sites; 2 file(s) changed (1 of them tests)")
	for _, want := range []string{
		"proxy.Spec = desired.Spec\n",
		"apiv1alpha1ensure.CreateOrUpdateProxy(ctx, r.Client, proxy, func() error {",
		"if proxy.ResourceVersion != \"\" {", // never true on the fresh object the helper hands it
	} {
		if !strings.Contains(string(fixed), want) {
			t.Errorf("fixed file lacks %q:\n%s", want, fixed)
		}
	}
	if want := "fake.NewClientBuilder().WithScheme(s).WithTypeConverters(applyconfiguration.NewTypeConverter(s), clientgoapplyconfigurations.NewTypeConverter(s), managedfields.NewDeducedTypeConverter()).Build()"; !strings.Contains(string(fixedTest), want) {
		t.Errorf("fixed test lacks %s:\n%s", want, fixedTest)
	}
	goCmd("build")
	goCmd("vet")
	goCmd("test", "-count=1")
}

const carrySrc = `package x

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
)

type R struct {
	client.Client
	Log []string
}

// desiredProxy is the edge Proxy of a namespace: one listener, whose
// hostnames the edge controller fills in.
func desiredProxy(ns string) *platformv1alpha1.Proxy {
	return &platformv1alpha1.Proxy{
		ObjectMeta: metav1.ObjectMeta{Name: "edge", Namespace: ns},
		Spec:       platformv1alpha1.ProxySpec{Listeners: []platformv1alpha1.Listener{{Name: "http", Port: 80}}},
	}
}

// setListener replaces p's listener of l's name with l.
func setListener(p *platformv1alpha1.Proxy, l platformv1alpha1.Listener) {
	for i := range p.Spec.Listeners {
		if p.Spec.Listeners[i].Name == l.Name {
			p.Spec.Listeners[i] = l
			return
		}
	}
	p.Spec.Listeners = append(p.Spec.Listeners, l)
}

func (r *R) edge(ctx context.Context, ns string) error {
	desired := desiredProxy(ns)
	proxy := desired.DeepCopy()
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, proxy, func() error {
		// The edge controller fills in the listener's hostnames: keep them.
		if proxy.ResourceVersion != "" {
			for _, l := range proxy.Spec.Listeners {
				if l.Name == "http" {
					setListener(desired, l)
				}
			}
		}
		proxy.Spec = desired.Spec
		return nil
	})
	if err != nil {
		return fmt.Errorf("writing the edge proxy: %w", err)
	}
	r.Log = append(r.Log, "wrote "+proxy.Name)
	return nil
}
`

const carryTest = `package x

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
)

// TestEdgeKeepsHostnames: the edge controller's hostname survives the
// next reconcile.
func TestEdgeKeepsHostnames(t *testing.T) {
	s := runtime.NewScheme()
	if err := platformv1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(s).Build()
	r := &R{Client: c}
	ctx := context.Background()
	if err := r.edge(ctx, "ns"); err != nil {
		t.Fatal(err)
	}
	var p platformv1alpha1.Proxy
	key := client.ObjectKey{Namespace: "ns", Name: "edge"}
	if err := c.Get(ctx, key, &p); err != nil {
		t.Fatal(err)
	}
	p.Spec.Listeners[0].Hostnames = []string{"edge.example.com"}
	if err := c.Update(ctx, &p, client.FieldOwner("edge-controller")); err != nil {
		t.Fatal(err)
	}
	if err := r.edge(ctx, "ns"); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, key, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Spec.Listeners) != 1 || len(p.Spec.Listeners[0].Hostnames) != 1 || p.Spec.Listeners[0].Port != 80 {
		t.Fatalf("listeners %+v, want http:80 with the edge controller's hostname", p.Spec.Listeners)
	}
}
`
