package soak_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// DefaultedAnnotation is the field the mutating webhook defaults on every
// ConfigMap of the soak's namespace.
const DefaultedAnnotation = "soak.ssagen.io/defaulted"

// webhook is a real mutating admission webhook: an HTTPS server the API
// server calls on every CREATE and UPDATE of a ConfigMap in the namespace,
// which adds DefaultedAnnotation when it is missing.
type webhook struct {
	srv   *httptest.Server
	calls atomic.Int64
	// fighting is the ConfigMap and the data key the webhook rewrites to
	// Fought on every write of it that sets the key (the Fight fault);
	// nil while it does not fight.
	fighting atomic.Pointer[[2]string]
}

// Fought is the value the fighting webhook writes.
const Fought = "fought"

func startWebhook() *webhook {
	w := &webhook{}
	w.srv = httptest.NewUnstartedServer(http.HandlerFunc(w.serve))
	w.srv.StartTLS()
	return w
}

func (w *webhook) serve(rw http.ResponseWriter, r *http.Request) {
	w.calls.Add(1)
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(rw, "bad review", http.StatusBadRequest)
		return
	}
	resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	var obj corev1.ConfigMap
	if err := json.Unmarshal(review.Request.Object.Raw, &obj); err == nil {
		var ops []any
		if _, ok := obj.Annotations[DefaultedAnnotation]; !ok {
			if obj.Annotations == nil {
				ops = append(ops, map[string]any{"op": "add", "path": "/metadata/annotations", "value": map[string]string{DefaultedAnnotation: "true"}})
			} else {
				ops = append(ops, map[string]any{"op": "add", "path": "/metadata/annotations/" + strings.ReplaceAll(DefaultedAnnotation, "/", "~1"), "value": "true"})
			}
		}
		if f := w.fighting.Load(); f != nil && obj.Name == f[0] {
			if _, set := obj.Data[f[1]]; set {
				ops = append(ops, map[string]any{"op": "replace", "path": "/data/" + f[1], "value": Fought})
			}
		}
		if len(ops) > 0 {
			resp.Patch, _ = json.Marshal(ops)
			pt := admissionv1.PatchTypeJSONPatch
			resp.PatchType = &pt
		}
	}
	review.Request, review.Response = nil, resp
	rw.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(rw).Encode(review)
}

// install registers the webhook for ConfigMaps of namespace ns and waits
// until the API server calls it.
func (w *webhook) install(ctx context.Context, c client.Client, ns string) error {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: w.srv.Certificate().Raw})
	url := w.srv.URL + "/mutate"
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	timeout := int32(10)
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "soak-defaults"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "defaults.soak.ssagen.io",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca},
			Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
			FailurePolicy:           &fail,
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          &timeout,
		}},
	}
	if err := c.Create(ctx, cfg); err != nil {
		return err
	}
	// The API server picks the configuration up from its informer: probe
	// until a ConfigMap comes back defaulted.
	for i := 0; i < 300; i++ {
		probe := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "webhook-probe", Namespace: ns}}
		if err := c.Create(ctx, probe); err != nil {
			return err
		}
		defaulted := probe.Annotations[DefaultedAnnotation] == "true"
		if err := c.Delete(ctx, probe); err != nil {
			return err
		}
		if defaulted {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("the API server never called the webhook")
}

// watchFaults is a transport fault between one replica's informers and the
// API server: cut breaks every open watch and answers the next watch of
// each resource that resumes from a resourceVersion with 410 Expired,
// which makes its reflector list again. It counts, per resource, the
// lists it sees (a LIST, or a watch that asks for the initial events).
type watchFaults struct {
	mu     sync.Mutex
	open   map[*cutBody]bool
	expire map[string]bool // resources whose next resuming watch is told 410
	lists  map[string]int  // lists per resource (the URL path)
}

func (f *watchFaults) wrap(cfg *rest.Config) *rest.Config {
	f.open, f.expire, f.lists = map[*cutBody]bool{}, map[string]bool{}, map[string]int{}
	out := rest.CopyConfig(cfg)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			q := r.URL.Query()
			watch := q.Get("watch") == "true" || q.Get("watch") == "1"
			resuming := watch && q.Get("resourceVersion") != "" && q.Get("sendInitialEvents") != "true"
			// A reflector's list carries a limit or a resourceVersion (the
			// REST mapper's discovery GETs carry neither), or asks a watch
			// for the initial events.
			list := r.Method == http.MethodGet && ((!watch && (q.Has("limit") || q.Has("resourceVersion"))) || q.Get("sendInitialEvents") == "true")
			f.mu.Lock()
			expire := resuming && f.expire[r.URL.Path]
			if list {
				f.lists[r.URL.Path]++
				delete(f.expire, r.URL.Path) // it lists anyway
			}
			if expire {
				delete(f.expire, r.URL.Path)
			}
			f.mu.Unlock()
			if expire {
				return expired(r), nil
			}
			resp, err := rt.RoundTrip(r)
			if err != nil || !watch {
				return resp, err
			}
			b := &cutBody{ReadCloser: resp.Body, f: f}
			f.mu.Lock()
			f.open[b] = true
			f.mu.Unlock()
			resp.Body = b
			return resp, nil
		})
	})
	return out
}

// cut breaks the open watches and marks every resource listed so far so
// that its next resuming watch is told it expired. It returns the lists
// per resource before the cut.
func (f *watchFaults) cut() map[string]int {
	f.mu.Lock()
	open := make([]*cutBody, 0, len(f.open))
	for b := range f.open {
		open = append(open, b)
	}
	before := maps.Clone(f.lists)
	for path := range f.lists {
		f.expire[path] = true
	}
	f.mu.Unlock()
	for _, b := range open {
		b.Close()
	}
	return before
}

// listedSince is how many lists each resource of before made since, and
// whether every one of them made one.
func (f *watchFaults) listedSince(before map[string]int) (n int, all bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	all = true
	for path, was := range before {
		d := f.lists[path] - was
		n += d
		all = all && d > 0
	}
	return n, all
}

type cutBody struct {
	io.ReadCloser
	f    *watchFaults
	once sync.Once
}

func (b *cutBody) Close() error {
	var err error
	b.once.Do(func() {
		err = b.ReadCloser.Close()
		b.f.mu.Lock()
		delete(b.f.open, b)
		b.f.mu.Unlock()
	})
	return err
}

func expired(r *http.Request) *http.Response {
	body := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version (injected by the soak)","reason":"Expired","code":410}`
	return &http.Response{
		StatusCode: http.StatusGone, Status: "410 Gone", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": []string{"application/json"}},
		Body:    io.NopCloser(bytes.NewReader([]byte(body))),
		Request: r, ContentLength: int64(len(body)),
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// apiServer restarts envtest's kube-apiserver on the same etcd, keeping
// its serving certificate as a real API server does: envtest generates a
// new one in a new folder on every start unless it is given a folder, so
// the first restart moves the certificates into one of ours.
type apiServer struct {
	env      *envtest.Environment
	certDir  string // ours, once the first restart moved the certificates
	restarts int
}

// stopTimeout is how long a stopping API server may drain before it is
// killed. With the informers' watches open, kube-apiserver did not finish
// its graceful shutdown within envtest's 20 s, so a stop is a SIGTERM
// and, after this, a SIGKILL: the API server goes away with requests in
// flight.
const stopTimeout = 5 * time.Second

// stop stops the API server (etcd keeps running).
func (a *apiServer) stop(tmp string) error {
	as := a.env.ControlPlane.APIServer
	first := a.certDir == ""
	var dir string
	if first {
		dir = filepath.Join(tmp, "apiserver-certs")
		if err := copyDir(as.CertDir, dir); err != nil {
			return err
		}
	}
	if err := as.Stop(); err != nil && !strings.Contains(err.Error(), "timeout waiting for process") {
		return err
	}
	if first {
		as.CertDir, a.certDir = dir, dir
	}
	as.StopTimeout = stopTimeout // envtest reads it at the next start
	return nil
}

func (a *apiServer) start() error {
	a.restarts++
	return a.env.ControlPlane.APIServer.Start()
}

func copyDir(from, to string) error {
	if err := os.MkdirAll(to, 0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o600); err != nil {
			return err
		}
	}
	return nil
}
