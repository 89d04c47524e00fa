package ensure_test

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/ssagen/ssagen/ensure"
)

// TestIsUpdateError: a refused apply says whether it was to change an
// object that existed or to create one, and is otherwise the refusal
// itself (its message, errors.Is).
func TestIsUpdateError(t *testing.T) {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("something went wrong")
	existing := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "there", Namespace: "ns"}}
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(existing).WithInterceptorFuncs(interceptor.Funcs{
		Patch: func(context.Context, client.WithWatch, client.Object, client.Patch, ...client.PatchOption) error {
			return refused
		},
	}).Build()
	for _, tc := range []struct {
		name   string
		update bool
	}{{"there", true}, {"missing", false}} {
		desired := corev1ac.ConfigMap(tc.name, "ns").WithData(map[string]string{"k": "v"})
		_, err := ensure.Apply(t.Context(), c, nil, desired, &corev1.ConfigMap{}, ensure.NoOwner())
		if err == nil {
			t.Fatalf("%s: the refused apply returned no error", tc.name)
		}
		if got := ensure.IsUpdateError(err); got != tc.update {
			t.Errorf("%s: IsUpdateError = %v, want %v", tc.name, got, tc.update)
		}
		if err.Error() != refused.Error() || !errors.Is(err, refused) {
			t.Errorf("%s: the error is %q, not the refusal itself", tc.name, err)
		}
	}
	if ensure.IsUpdateError(refused) || ensure.IsUpdateError(nil) {
		t.Error("an error that is not an Ensure call's is an update error")
	}
	if made := ensure.NewUpdateError(refused); !ensure.IsUpdateError(made) || made.Error() != refused.Error() || !errors.Is(made, refused) {
		t.Errorf("NewUpdateError(%q) = %v", refused, made)
	}
	if ensure.NewUpdateError(nil) != nil {
		t.Error("NewUpdateError(nil) is an error")
	}
}
