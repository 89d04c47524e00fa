package adoption

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ssagen/ssagen/internal/scratch"
)

// TestVetFixCarryForward is network-services-operator's Gateway, in our
// words, in an operator module pinned at the floor of the matrix (its own
// k8s.io v0.34.1 and controller-runtime v0.22.4): a reconciler writes an
// Edge with CreateOrUpdate, its mutate function carrying forward from the
// live object the listener another controller adds hostnames to, and a
// unit test on the fake client in which that controller adds a hostname
// between two reconciles. ssagen generate, then ssagen vet -fix alone:
// the call becomes the generated CreateOrUpdateEdge, which runs the
// mutate function on a fresh object where the carry-forward block never
// runs (an apply leaves the other controller's hostname alone), and the
// test's fake client is built with the
// generated tree's type converter, under which the fake merges the
// listeners by name as the API server does (with its default, deduced
// schema the list is atomic, the apply drops the hostname, and the check
// declines the fix). The module builds, passes go vet and its test, its
// pins unmoved.
func TestVetFixCarryForward(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a scratch operator module")
	}
	repo, bin := scratch.Repo(), scratch.SSAgen(t)
	cell := matrix[0]
	pinned := pins(cell.k8s, cell.controllerRuntime)
	op := t.TempDir()
	scratch.Write(t, filepath.Join(op, "go.mod"), goMod("example.com/edge", cell.goVersion, pinned, filepath.Join(repo, "ensure")))
	scratch.Write(t, filepath.Join(op, "api", "v1", "types.go"), edgeTypes)
	scratch.Write(t, filepath.Join(op, "controller", "controller.go"), edgeController)
	scratch.Write(t, filepath.Join(op, "controller", "controller_test.go"), edgeTest)
	scratch.Run(t, op, "go", "mod", "tidy", "-e")
	scratch.Run(t, op, bin, "generate", "--ensure", "--output-dir", "internal/ssa", "./api/...")
	scratch.Run(t, op, "go", "mod", "tidy")
	scratch.Run(t, op, "go", "test", "-count=1", "./...")

	out := scratch.Run(t, op, bin, "vet", "-fix", "./controller/")
	if !strings.Contains(out, "ssagen vet -fix: rewrote 1 of 1 sites; 2 file(s) changed (1 of them tests)") {
		t.Errorf("-fix output:\n%s", out)
	}
	fixed := read(t, filepath.Join(op, "controller", "controller.go"))
	fixedTest := read(t, filepath.Join(op, "controller", "controller_test.go"))
	// The generated CreateOrUpdateEdge runs the mutate function on a fresh
	// object, where the carry-forward block never runs.
	if !strings.Contains(fixed, "apiv1ensure.CreateOrUpdateEdge(ctx, r.Client, edge, func() error {") || strings.Contains(fixed, "controllerutil") {
		t.Errorf("fixed controller:\n%s", fixed)
	}
	if !strings.Contains(fixedTest, ".WithScheme(s).WithTypeConverters(ssa.NewTypeConverter(s), clientgoapplyconfigurations.NewTypeConverter(s), managedfields.NewDeducedTypeConverter()).Build()") {
		t.Errorf("fixed test:\n%s", fixedTest)
	}
	scratch.Run(t, op, "go", "build", "./...")
	scratch.Run(t, op, "go", "vet", "./...")
	scratch.Run(t, op, "go", "test", "-count=1", "./...")
	checkPins(t, op, pinned)
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const edgeTypes = `// +groupName=edge.example.com
// +kubebuilder:object:generate=true
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	GroupVersion  = schema.GroupVersion{Group: "edge.example.com", Version: "v1"}
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	AddToScheme   = SchemeBuilder.AddToScheme
)

// Listener accepts traffic on a port.
type Listener struct {
	Name string ` + "`json:\"name\"`" + `
	Port int32  ` + "`json:\"port\"`" + `
	// Hostnames another controller fills in.
	// +listType=set
	// +optional
	Hostnames []string ` + "`json:\"hostnames,omitempty\"`" + `
}

type EdgeSpec struct {
	// +listType=map
	// +listMapKey=name
	Listeners []Listener ` + "`json:\"listeners,omitempty\"`" + `
}

// +kubebuilder:object:root=true

// Edge is a proxy's front.
type Edge struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec              EdgeSpec ` + "`json:\"spec,omitempty\"`" + `
}

// +kubebuilder:object:root=true

// EdgeList is a list of Edges.
type EdgeList struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ListMeta ` + "`json:\"metadata,omitempty\"`" + `
	Items           []Edge ` + "`json:\"items\"`" + `
}

func (in *Edge) DeepCopy() *Edge {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Listeners = nil
	for _, l := range in.Spec.Listeners {
		l.Hostnames = append([]string(nil), l.Hostnames...)
		out.Spec.Listeners = append(out.Spec.Listeners, l)
	}
	return &out
}

func (in *Edge) DeepCopyObject() runtime.Object { return in.DeepCopy() }

func (in *EdgeList) DeepCopyObject() runtime.Object {
	out := *in
	out.Items = nil
	for i := range in.Items {
		out.Items = append(out.Items, *in.Items[i].DeepCopy())
	}
	return &out
}

func init() { SchemeBuilder.Register(&Edge{}, &EdgeList{}) }
`

const edgeController = `package controller

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	edgev1 "example.com/edge/api/v1"
)

type Reconciler struct {
	client.Client
}

func desiredEdge(ns string) *edgev1.Edge {
	return &edgev1.Edge{
		ObjectMeta: metav1.ObjectMeta{Name: "front", Namespace: ns},
		Spec:       edgev1.EdgeSpec{Listeners: []edgev1.Listener{{Name: "http", Port: 80}}},
	}
}

// setListener replaces e's listener of l's name with l.
func setListener(e *edgev1.Edge, l edgev1.Listener) {
	for i := range e.Spec.Listeners {
		if e.Spec.Listeners[i].Name == l.Name {
			e.Spec.Listeners[i] = l
			return
		}
	}
	e.Spec.Listeners = append(e.Spec.Listeners, l)
}

func (r *Reconciler) front(ctx context.Context, ns string) error {
	desired := desiredEdge(ns)
	edge := desired.DeepCopy()
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, edge, func() error {
		// Another controller fills in the listener's hostnames: keep them.
		if edge.ResourceVersion != "" {
			for _, l := range edge.Spec.Listeners {
				if l.Name == "http" {
					setListener(desired, l)
				}
			}
		}
		edge.Spec = desired.Spec
		return nil
	})
	if err != nil {
		return fmt.Errorf("writing the front edge: %w", err)
	}
	return nil
}
`

const edgeTest = `package controller

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	edgev1 "example.com/edge/api/v1"
)

// TestFrontKeepsHostnames: the other controller's hostname survives the
// next reconcile.
func TestFrontKeepsHostnames(t *testing.T) {
	s := runtime.NewScheme()
	if err := edgev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(s).Build()
	r := &Reconciler{Client: c}
	ctx := context.Background()
	if err := r.front(ctx, "ns"); err != nil {
		t.Fatal(err)
	}
	var e edgev1.Edge
	key := client.ObjectKey{Namespace: "ns", Name: "front"}
	if err := c.Get(ctx, key, &e); err != nil {
		t.Fatal(err)
	}
	e.Spec.Listeners[0].Hostnames = []string{"front.example.com"}
	if err := c.Update(ctx, &e, client.FieldOwner("hostnames-controller")); err != nil {
		t.Fatal(err)
	}
	if err := r.front(ctx, "ns"); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, key, &e); err != nil {
		t.Fatal(err)
	}
	if len(e.Spec.Listeners) != 1 || len(e.Spec.Listeners[0].Hostnames) != 1 || e.Spec.Listeners[0].Port != 80 {
		t.Fatalf("listeners %+v, want http:80 with the other controller's hostname", e.Spec.Listeners)
	}
}
`
