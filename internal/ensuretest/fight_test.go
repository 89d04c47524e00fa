package ensure_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/ssagen/ssagen/ensure"
	corev1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
)

// rewriter is a real mutating admission webhook that sets data.mode to
// "webhook" on every ConfigMap labelled fight=on while on is set.
type rewriter struct {
	srv *httptest.Server
	on  atomic.Bool
}

func (w *rewriter) serve(rw http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(rw, "bad review", http.StatusBadRequest)
		return
	}
	resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	var cm corev1.ConfigMap
	if err := json.Unmarshal(review.Request.Object.Raw, &cm); err == nil && w.on.Load() && cm.Data["mode"] != "" {
		resp.Patch, _ = json.Marshal([]any{map[string]any{"op": "replace", "path": "/data/mode", "value": "webhook"}})
		pt := admissionv1.PatchTypeJSONPatch
		resp.PatchType = &pt
	}
	review.Request, review.Response = nil, resp
	rw.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(rw).Encode(review)
}

// install registers the webhook and waits until it rewrites.
func (w *rewriter) install(t *testing.T, ctx context.Context, c client.Client) {
	t.Helper()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: w.srv.Certificate().Raw})
	url := w.srv.URL + "/mutate"
	fail, none, timeout := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone, int32(10)
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "fight-rewriter"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:         "rewrite.fight.ssagen.io",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca},
			Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{"fight": "on"}},
			FailurePolicy:           &fail,
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          &timeout,
		}},
	}
	if err := c.Create(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		probe := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "fight-probe", Namespace: "default", Labels: map[string]string{"fight": "on"}}, Data: map[string]string{"mode": "x"}}
		if err := c.Create(ctx, probe); err != nil {
			t.Fatal(err)
		}
		rewritten := probe.Data["mode"] == "webhook"
		if err := c.Delete(ctx, probe); err != nil {
			t.Fatal(err)
		}
		if rewritten {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the API server never called the webhook")
}

// TestFightingWebhook: issue 50's fighting writer. A mutating webhook
// rewrites a field the intent sets, and another writer churns the object
// (each of its writes would otherwise cost one more apply): Ensure sends
// the same intent again only as the backoff allows, counts the fight once
// (metric and event), and converges within one backoff once the webhook
// stops.
//
// The backoff here runs from 1 s to 4 s over 10 s of churn, so at most
// 4 applies (at 0, 1, 3 and 7 s; 5 allowed for timing); with the
// defaults, 10 s doubling to 5 min, five minutes of such churn cost 5
// (at 0, 10, 30, 70 and 150 s), where without the backoff each of the
// other writer's changes costs one.
func TestFightingWebhook(t *testing.T) {
	e, ctx := setup(t)
	if err := ensure.RegisterMetrics(metrics.Registry); err != nil {
		t.Fatal(err)
	}
	w := &rewriter{}
	w.srv = httptest.NewUnstartedServer(http.HandlerFunc(w.serve))
	w.srv.StartTLS()
	t.Cleanup(w.srv.Close)
	w.on.Store(true)
	w.install(t, ctx, e.direct)

	events := record.NewFakeRecorder(10)
	c := e.client(ensure.FieldManager("fight-controller"), ensure.MetricsName("fight"), ensure.Events(events))
	backoff := ensure.FightBackoff(time.Second, 4*time.Second)
	desired := func() *corev1ac.ConfigMapApplyConfiguration {
		return corev1ac.ConfigMap("fought", "default").WithLabels(map[string]string{"fight": "on"}).WithData(map[string]string{"mode": "ours"})
	}
	mark := e.counter.Snapshot()
	obj, _, err := corev1ensure.EnsureConfigMap(ctx, c, e.owner, desired(), backoff)
	if err != nil {
		t.Fatal(err)
	}
	if obj.Data["mode"] != "webhook" {
		t.Fatalf("data %v: the webhook did not rewrite mode", obj.Data)
	}
	start := time.Now()
	for i := 0; time.Since(start) < 10*time.Second; i++ {
		churn := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"churn":"`+time.Now().Format(time.RFC3339Nano)+`"}}}`))
		if err := e.direct.Patch(ctx, obj, churn, client.FieldOwner("churner")); err != nil {
			t.Fatal(err)
		}
		e.synced(t, ctx, obj)
		if _, _, err := corev1ensure.EnsureConfigMap(ctx, c, e.owner, desired(), backoff); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := writes(e.counter.Since(mark)); n > 5 || n < 3 {
		t.Fatalf("%d applies in 10 s of a fight, want 3 to 5 (the backoff's)", n)
	}
	if got := gatherMetrics(t)["ssagen_fights_total,client=fight,field=.data.mode,kind=ConfigMap"]; got != 1 {
		t.Errorf("ssagen_fights_total for .data.mode: %v, want 1", got)
	}
	if n := len(events.Events); n != 1 {
		t.Fatalf("%d events, want 1", n)
	}
	if ev := <-events.Events; !strings.Contains(ev, "Warning FieldFight") || !strings.Contains(ev, ".data.mode") {
		t.Errorf("event %q, want a Warning FieldFight naming .data.mode", ev)
	}

	// The webhook stops: within one backoff the intent holds, and then
	// nothing is sent.
	w.on.Store(false)
	deadline := time.Now().Add(6 * time.Second)
	for {
		got, _, err := corev1ensure.EnsureConfigMap(ctx, c, e.owner, desired(), backoff)
		if err != nil {
			t.Fatal(err)
		}
		if got.Data["mode"] == "ours" {
			e.synced(t, ctx, got)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no convergence within the longest backoff after the webhook stopped: %v", got.Data)
		}
		time.Sleep(200 * time.Millisecond)
	}
	mark = e.counter.Snapshot()
	if _, res, err := corev1ensure.EnsureConfigMap(ctx, c, e.owner, desired(), backoff); err != nil || res != ensure.Skipped {
		t.Fatalf("after convergence: %s, %v; want skipped", res, err)
	}
	if n := writes(e.counter.Since(mark)); n != 0 {
		t.Fatalf("%d writes after convergence", n)
	}
}
