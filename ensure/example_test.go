package ensure_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ssagen/ssagen/ensure"
)

// owner is a ConfigMap standing for the object a reconciler owns children
// of; the fake client needs it stored, with a UID.
func owner() *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "default", UID: "uid-owner"}}
}

// A controller builds one Client and hands it to every helper: the field
// manager and what was applied travel with it. The second call finds the
// child as desired and sends nothing.
func ExampleNewClient() {
	ctx := context.Background()
	c := ensure.NewClient(fake.NewClientBuilder().WithObjects(owner()).Build(), ensure.FieldManager("example-controller"))
	for i := 0; i < 2; i++ {
		// Generated code calls ensure.Apply as EnsureConfigMap(ctx, c, owner, desired).
		res, err := ensure.Apply(ctx, c, owner(), corev1ac.ConfigMap("child", "default").WithData(map[string]string{"k": "v"}), &corev1.ConfigMap{})
		fmt.Println(res, err)
	}
	// Output:
	// created <nil>
	// skipped <nil>
}

// CreateOnly creates an object once and never writes it again: users may
// annotate it.
func ExampleCreateOnly() {
	ctx := context.Background()
	c := ensure.NewClient(fake.NewClientBuilder().WithObjects(owner()).Build())
	for _, v := range []string{"first", "second"} {
		obj := &corev1.ConfigMap{}
		res, _ := ensure.Apply(ctx, c, owner(), corev1ac.ConfigMap("seed", "default").WithData(map[string]string{"k": v}), obj, ensure.CreateOnly())
		fmt.Println(res, obj.Data["k"])
	}
	// Output:
	// created first
	// skipped first
}

// Prune deletes the children the owner controls that are no longer
// desired, and nothing else.
func ExamplePrune() {
	ctx := context.Background()
	c := ensure.NewClient(fake.NewClientBuilder().WithObjects(owner()).Build())
	for _, name := range []string{"keep", "drop"} {
		if _, err := ensure.Apply(ctx, c, owner(), corev1ac.ConfigMap(name, "default"), &corev1.ConfigMap{}); err != nil {
			fmt.Println(err)
		}
	}
	n, err := ensure.Prune(ctx, c, owner(), &corev1.ConfigMapList{}, []client.ObjectKey{{Namespace: "default", Name: "keep"}}, client.InNamespace("default"))
	fmt.Println(n, err)
	// Output:
	// 1 <nil>
}

// AddFinalizer applies the finalizer under a field manager of its own,
// once; RemoveFinalizer takes it out, whoever added it.
func ExampleAddFinalizer() {
	ctx := context.Background()
	o := owner()
	c := ensure.NewClient(fake.NewClientBuilder().WithObjects(o).Build(), ensure.FieldManager("example-controller"))
	for i := 0; i < 2; i++ {
		res, err := ensure.AddFinalizer(ctx, c, o, "example.com/cleanup")
		fmt.Println(res, err, o.Finalizers)
	}
	res, err := ensure.RemoveFinalizer(ctx, c, o, "example.com/cleanup")
	fmt.Println(res, err, o.Finalizers)
	// Output:
	// configured <nil> [example.com/cleanup]
	// skipped <nil> [example.com/cleanup]
	// configured <nil> []
}

// Condition keeps the live lastTransitionTime while the status stays the
// same, so re-applying an unchanged status changes nothing.
func ExampleCondition() {
	then := metav1.Date(2026, 1, 1, 0, 0, 0, 0, metav1.Now().Location())
	live := []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Up", LastTransitionTime: then}}
	c := ensure.Condition(live, "Ready", metav1.ConditionTrue, "Up", "", 1, metav1.Now())
	fmt.Println(c.LastTransitionTime.Equal(&then))
	// Output:
	// true
}
