package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestVetFixRounds: -fix on the shapes of a controller that writes two
// children with CreateOrUpdate — the first a copy of a typed desired
// object whose mutate function refuses one another owner controls, the
// second a value literal whose labels are merged, both sharing one
// OperationResult variable, compared after the second write — rewrites
// both as the generated CreateOrUpdate<Kind>, which keep the
// OperationResult and hand an object another controller holds to the
// mutate function as it is live (so its check refuses it as before), and
// the package's unit test on the fake client, which checks the results
// and the refusal of a Role another owner controls, stays green.
func TestVetFixRounds(t *testing.T) {
	bin, file, pkg, goCmd := vetFixPackage(t, "zzvetfixrounds", roundsSrc, roundsTest)
	goCmd("test", "-count=1")
	cmd := exec.Command(bin, "vet", "-fix", pkg)
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ssagen vet -fix: %v\n%s", err, out)
	}
	// The Role's mutate function refuses another controller's Role by a
	// check the runtime keeps: an object another controller holds is
	// handed to it as it is live. The ClusterRole's OperationResult keeps
	// its meaning.
	if !strings.Contains(string(out), "rewrote 2 of 2 sites") {
		t.Errorf("-fix output:\n%s", out)
	}
	fixed, _ := os.ReadFile(file)
	for _, want := range []string{
		`result, err := rbacensure.CreateOrUpdateRole(ctx, r.Client, role, func() error {`,
		`if controlledByOther(role, owner) {`,
		`result, err = rbacensure.CreateOrUpdateClusterRole(ctx, r.Client, &viewer, func() error {`,
		`if result == controllerutil.OperationResultCreated {`,
	} {
		if !strings.Contains(string(fixed), want) {
			t.Errorf("fixed file lacks %s:\n%s", want, fixed)
		}
	}
	goCmd("build")
	goCmd("vet")
	goCmd("test", "-count=1")
}

const roundsSrc = `package x

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	rbacensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"
)

var _ = rbacensure.EnsureRole

type R struct {
	client.Client
	Log []string
}

func controlledByOther(obj, owner metav1.Object) bool {
	if t := obj.GetCreationTimestamp(); t.IsZero() {
		return false
	}
	return controllerutil.HasControllerReference(obj) && !metav1.IsControlledBy(obj, owner)
}

func desiredRole(ns string) *rbacv1.Role {
	return &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: ns},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}},
	}
}

func (r *R) reconcile(ctx context.Context, owner client.Object) error {
	desired := desiredRole(owner.GetNamespace())
	role := desired.DeepCopy()
	result, err := controllerutil.CreateOrUpdate(ctx, r.Client, role, func() error {
		if controlledByOther(role, owner) {
			return apierrors.NewAlreadyExists(rbacv1.Resource("roles"), role.Name)
		}
		if err := controllerutil.SetControllerReference(owner, role, r.Scheme()); err != nil {
			return err
		}
		role.Rules = desired.Rules
		return nil
	})
	if err != nil {
		if apierrors.IsAlreadyExists(err) {
			r.Log = append(r.Log, "conflict "+role.Name)
			return nil
		}
		return err
	}
	r.Log = append(r.Log, fmt.Sprint("role ", result))

	viewer := rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "viewer-" + owner.GetNamespace()}}
	result, err = controllerutil.CreateOrUpdate(ctx, r.Client, &viewer, func() error {
		if viewer.Labels == nil {
			viewer.Labels = map[string]string{}
		}
		viewer.Labels["managed-by"] = "x"
		viewer.Rules = desired.Rules
		return nil
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", viewer.Name, err)
	}
	if result == controllerutil.OperationResultCreated {
		r.Log = append(r.Log, "created "+viewer.Name)
	}
	return nil
}
`

const roundsTest = `package x

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ssagen/ssagen/examples/generated/applyconfiguration"
)

func owner() *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "a", UID: "uid-owner"}}
}

func newClient(objs ...client.Object) client.Client {
	return fake.NewClientBuilder().WithScheme(scheme.Scheme).
		WithTypeConverters(applyconfiguration.NewTypeConverter(scheme.Scheme)).
		WithObjects(objs...).Build()
}

func TestReconcile(t *testing.T) {
	ctx := context.Background()
	r := &R{Client: newClient(owner())}
	if err := r.reconcile(ctx, owner()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Log, ","); got != "role created,created viewer-a" {
		t.Errorf("log %q", got)
	}
	var role rbacv1.Role
	if err := r.Get(ctx, client.ObjectKey{Namespace: "a", Name: "reader"}, &role); err != nil || len(role.Rules) != 1 || !metav1.IsControlledBy(&role, owner()) {
		t.Errorf("role: %v %+v", err, role)
	}
	var viewer rbacv1.ClusterRole
	if err := r.Get(ctx, client.ObjectKey{Name: "viewer-a"}, &viewer); err != nil || viewer.Labels["managed-by"] != "x" {
		t.Errorf("viewer: %v %+v", err, viewer)
	}
}

func TestRoleOfAnotherOwner(t *testing.T) {
	ctx := context.Background()
	other := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: "a", CreationTimestamp: metav1.Now(), OwnerReferences: []metav1.OwnerReference{
		{APIVersion: "v1", Kind: "ConfigMap", Name: "other", UID: "uid-other", Controller: ptr.To(true)}}}}
	r := &R{Client: newClient(owner(), other)}
	if err := r.reconcile(ctx, owner()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Log, ","); got != "conflict reader" {
		t.Errorf("log %q, want the conflict", got)
	}
}
`
