package main

import (
	"go/format"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestVetFixOwnsChurning: on a controller-runtime reconciler that owns
// pods and reads their phase and their conditions' types and statuses,
// -fix gives Owns(&corev1.Pod{}) the predicate of exactly those reads
// (the conditions item by item) and the owner references; the package
// still builds, passes go vet and its unit test on the fake client, the
// fixed file is gofmt'd, and vet finds nothing left.
func TestVetFixOwnsChurning(t *testing.T) {
	bin, file, pkg, goCmd := vetFixPackage(t, "zzvetfixowns", ownsSrc, ownsTest)
	goCmd("test", "-count=1")
	cmd := exec.Command(bin, "vet", "-fix", pkg)
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ssagen vet -fix: rewrote 1 of 1 sites") {
		t.Fatalf("-fix: %v\n%s", err, out)
	}
	fixed, _ := os.ReadFile(file)
	want := `		Owns(&corev1.Pod{}, builder.WithPredicates(ssaensure.FieldsChanged(func(pod *corev1.Pod) any {
			return []any{
				pod.OwnerReferences,
				ssaensure.Each(pod.Status.Conditions, func(c corev1.PodCondition) any { return []any{c.Status, c.Type} }),
				pod.Status.Phase,
			}
		}))).
`
	if !strings.Contains(string(fixed), want) {
		t.Errorf("fixed file lacks\n%s\n%s", want, fixed)
	}
	if formatted, err := format.Source(fixed); err != nil || string(formatted) != string(fixed) {
		t.Errorf("the fixed file is not gofmt'd (%v):\n%s", err, fixed)
	}
	goCmd("build")
	goCmd("vet")
	goCmd("test", "-count=1")
	cmd = exec.Command(bin, "vet", pkg)
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("after -fix, vet: %v\n%s", err, out)
	}
}

const ownsSrc = `package x

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type R struct{ client.Client }

// Reconcile mirrors into the ConfigMap whether its pods run and are ready.
func (r *R) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(req.Namespace)); err != nil {
		return ctrl.Result{}, err
	}
	ready := 0
	for _, pod := range pods.Items {
		if pod.Status.Phase == corev1.PodRunning && podReady(&pod) {
			ready++
		}
	}
	if cm.Data["ready"] == string(rune('0'+ready)) {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, nil
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func (r *R) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		Owns(&corev1.Pod{}).
		Complete(r)
}
`

const ownsTest = `package x

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func TestReconcile(t *testing.T) {
	c := fake.NewClientBuilder().WithObjects(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns"}}).Build()
	r := &R{Client: c}
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Name: "cm", Namespace: "ns"}}); err != nil {
		t.Fatal(err)
	}
}
`
