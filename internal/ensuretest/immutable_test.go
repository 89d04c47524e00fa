package ensure_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/ssagen/ssagen/ensure"
	"github.com/ssagen/ssagen/examples/generated/applyconfiguration"
	corev1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
	"github.com/ssagen/ssagen/internal/testenv"
)

// TestImmutableFields: an intent that changes a Service's clusterIP is
// refused with a typed error naming the field, and not sent again while
// the intent and the object stay as they are (no hot loop); with
// RecreateOnImmutable the Service is deleted and the next Ensure creates
// it as desired.
func TestImmutableFields(t *testing.T) {
	e, ctx := setup(t)
	cache := e.client()
	svc := func(ip string) *corev1ac.ServiceApplyConfiguration {
		return corev1ac.Service("fixed", "default").WithSpec(corev1ac.ServiceSpec().WithClusterIP(ip).
			WithPorts(corev1ac.ServicePort().WithName("http").WithPort(80)))
	}
	obj, _, err := corev1ensure.EnsureService(ctx, cache, e.owner, svc("10.0.0.50"))
	if err != nil {
		t.Fatal(err)
	}
	e.synced(t, ctx, obj)

	before := e.counter.Snapshot()
	_, _, err = corev1ensure.EnsureService(ctx, cache, e.owner, svc("10.0.0.51"))
	var ie *ensure.ImmutableError
	if !errors.As(err, &ie) || !slices.Contains(ie.Fields, "spec.clusterIPs[0]") && !slices.Contains(ie.Fields, "spec.clusterIP") || !apierrors.IsInvalid(err) {
		t.Fatalf("changing the clusterIP: %v", err)
	}
	if got := e.counter.Since(before); writes(got) != 1 {
		t.Fatalf("the refused apply took %s", testenv.String(got))
	}
	before = e.counter.Snapshot()
	for i := 0; i < 5; i++ {
		if _, _, err := corev1ensure.EnsureService(ctx, cache, e.owner, svc("10.0.0.51")); !errors.As(err, &ie) {
			t.Fatalf("reconcile %d of the refused intent: %v", i, err)
		}
	}
	if got := e.counter.Since(before); len(got) != 0 {
		t.Fatalf("5 reconciles of a refused intent sent %s, want none", testenv.String(got))
	}

	// Opted in: delete and create again.
	_, res, err := corev1ensure.EnsureService(ctx, cache, e.owner, svc("10.0.0.51"), ensure.RecreateOnImmutable(metav1.DeletePropagationBackground))
	if err != nil || res != ensure.Recreating {
		t.Fatalf("recreate: %v %v", res, err)
	}
	for i := 0; i < 200; i++ {
		if err := e.c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "fixed"}, &corev1.Service{}); apierrors.IsNotFound(err) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	obj, res, err = corev1ensure.EnsureService(ctx, cache, e.owner, svc("10.0.0.51"), ensure.RecreateOnImmutable(metav1.DeletePropagationBackground))
	if err != nil || res != ensure.Created || obj.Spec.ClusterIP != "10.0.0.51" {
		t.Fatalf("create after the delete: %v %v %v", res, err, obj.Spec.ClusterIP)
	}
	e.synced(t, ctx, obj)
	// Opted in from the first refusal on: one refused apply, one DELETE.
	before = e.counter.Snapshot()
	_, res, err = corev1ensure.EnsureService(ctx, e.c, e.owner, svc("10.0.0.52"), ensure.RecreateOnImmutable(metav1.DeletePropagationForeground))
	if err != nil || res != ensure.Recreating {
		t.Fatalf("recreate at the first refusal: %v %v", res, err)
	}
	if got := e.counter.Since(before); testenv.Total(got, "PATCH 422") != 1 || testenv.Total(got, "DELETE 200") != 1 || writes(got) != 2 {
		t.Fatalf("recreate at the first refusal took %s, want the refused apply and one DELETE", testenv.String(got))
	}
}

// TestPreviewRemembersNoRefusal: a Preview of an immutable change reports
// the *ImmutableError (one refused dry-run apply) and remembers nothing;
// the real Ensure of the same intent afterwards is sent (one refused
// apply) and answered by the API server, as docs/ensure.md promises. That
// real refusal is remembered: the next Ensure sends nothing.
func TestPreviewRemembersNoRefusal(t *testing.T) {
	e, ctx := setup(t)
	cache := e.client()
	svc := func(ip string) *corev1ac.ServiceApplyConfiguration {
		return corev1ac.Service("previewed", "default").WithSpec(corev1ac.ServiceSpec().WithClusterIP(ip).
			WithPorts(corev1ac.ServicePort().WithName("http").WithPort(80)))
	}
	obj, _, err := corev1ensure.EnsureService(ctx, cache, e.owner, svc("10.0.0.70"))
	if err != nil {
		t.Fatal(err)
	}
	e.synced(t, ctx, obj)
	var d ensure.Diff
	var ie *ensure.ImmutableError
	before := e.counter.Snapshot()
	if _, _, err := corev1ensure.EnsureService(ctx, cache, e.owner, svc("10.0.0.71"), ensure.Preview(&d)); !errors.As(err, &ie) {
		t.Fatalf("preview of the immutable change: %v, want *ImmutableError", err)
	}
	if got := e.counter.Since(before); writes(got) != 1 || testenv.Total(got, "PATCH 422") != 1 {
		t.Fatalf("the preview took %s, want one refused dry-run apply", testenv.String(got))
	}
	before = e.counter.Snapshot()
	if _, _, err := corev1ensure.EnsureService(ctx, cache, e.owner, svc("10.0.0.71")); !errors.As(err, &ie) {
		t.Fatalf("the real Ensure: %v, want *ImmutableError from the API server", err)
	}
	if got := e.counter.Since(before); writes(got) != 1 || testenv.Total(got, "PATCH 422") != 1 {
		t.Fatalf("the real Ensure after the preview took %s, want its own refused apply", testenv.String(got))
	}
	before = e.counter.Snapshot()
	if _, _, err := corev1ensure.EnsureService(ctx, cache, e.owner, svc("10.0.0.71")); !errors.As(err, &ie) {
		t.Fatalf("the real Ensure again: %v, want the remembered *ImmutableError", err)
	}
	if got := e.counter.Since(before); len(got) != 0 {
		t.Fatalf("the real Ensure again sent %s, want none: the real refusal is remembered", testenv.String(got))
	}
}

// TestPreviewRemembersNoRefusalOnFakeClient: the same on the fake client,
// which knows no immutable field: an interceptor refuses a change of a
// Service's clusterIP as the API server does (a 422 naming the field, to
// dry runs too). Patches: 1 refused preview, 1 refused real Ensure, then
// none.
func TestPreviewRemembersNoRefusalOnFakeClient(t *testing.T) {
	ctx := context.Background()
	owner := fakeOwner()
	s := fakeScheme(t)
	var patches atomic.Int64
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(owner).WithTypeConverters(applyconfiguration.NewTypeConverter(s)).
		WithInterceptorFuncs(interceptor.Funcs{Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			patches.Add(1)
			if patch.Type() != types.ApplyPatchType {
				return c.Patch(ctx, obj, patch, opts...)
			}
			body, err := patch.Data(obj)
			if err != nil {
				return err
			}
			var intent corev1.Service
			if err := json.Unmarshal(body, &intent); err != nil {
				return err
			}
			var live corev1.Service
			if err := c.Get(ctx, client.ObjectKeyFromObject(obj), &live); err == nil && intent.Kind == "Service" &&
				live.Spec.ClusterIP != "" && intent.Spec.ClusterIP != live.Spec.ClusterIP {
				return apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, obj.GetName(), field.ErrorList{
					field.Invalid(field.NewPath("spec", "clusterIPs").Index(0), intent.Spec.ClusterIP, "may not change once set")})
			}
			return c.Patch(ctx, obj, patch, opts...)
		}}).Build()
	cache := ensure.NewClient(c)
	svc := func(ip string) *corev1ac.ServiceApplyConfiguration {
		return corev1ac.Service("previewed", "default").WithSpec(corev1ac.ServiceSpec().WithClusterIP(ip).
			WithPorts(corev1ac.ServicePort().WithName("http").WithPort(80)))
	}
	if _, _, err := corev1ensure.EnsureService(ctx, cache, owner, svc("10.0.0.70")); err != nil {
		t.Fatal(err)
	}
	var d ensure.Diff
	var ie *ensure.ImmutableError
	for _, step := range []struct {
		what    string
		opts    []ensure.ApplyOption
		patches int64
	}{
		{"the preview", []ensure.ApplyOption{ensure.Preview(&d)}, 1},
		{"the real Ensure after the preview", nil, 1},
		{"the real Ensure again", nil, 0},
	} {
		before := patches.Load()
		if _, _, err := corev1ensure.EnsureService(ctx, cache, owner, svc("10.0.0.71"), step.opts...); !errors.As(err, &ie) {
			t.Fatalf("%s: %v, want *ImmutableError", step.what, err)
		}
		if got := patches.Load() - before; got != step.patches {
			t.Fatalf("%s sent %d patches, want %d", step.what, got, step.patches)
		}
	}
}
