// Package applied holds server-side applies of typed structs, with JSON
// tags as kubebuilder APIs have them: those that send zero values the code
// never set are reported; those whose every written field is set on
// purpose are not (seed 002's false positives).
package applied

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

type ObjectMeta struct {
	Name      string            `json:"name,omitempty"`
	Namespace string            `json:"namespace,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
}

type Time struct{ s string }

func (Time) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

type Widget struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       WidgetSpec   `json:"spec,omitempty"`
	Status     WidgetStatus `json:"status,omitempty"`
}

func (w *Widget) GetName() string { return w.Name }

type WidgetSpec struct {
	Replicas int32  `json:"replicas"`
	Image    string `json:"image"`
	Paused   bool   `json:"paused,omitempty"`
}

type WidgetStatus struct {
	Ready bool   `json:"ready"`
	Phase string `json:"phase,omitempty"`
	Since Time   `json:"since,omitempty"`
}

type Reconciler struct{ client.Client }

// Every field without omitempty set: silent.
func (r *Reconciler) applyAllSet(ctx context.Context) error {
	w := &Widget{ObjectMeta: ObjectMeta{Name: "w"}, Spec: WidgetSpec{Replicas: 2, Image: "nginx"}}
	return r.Patch(ctx, w, client.Apply)
}

// Replicas without omitempty is left zero: this manager claims it.
func (r *Reconciler) applyZeroReplicas(ctx context.Context) error {
	w := &Widget{ObjectMeta: ObjectMeta{Name: "w"}, Spec: WidgetSpec{Image: "nginx"}}
	return r.Patch(ctx, w, client.Apply) // want `server-side apply of a typed Go struct.*no automatic fix: the literal leaves fields at their zero value`
}

// Status apply: the spec, all zero, is dropped by the status endpoint,
// and every status field it writes is set: silent.
func (r *Reconciler) applyStatus(ctx context.Context) error {
	w := &Widget{ObjectMeta: ObjectMeta{Name: "w"}, Status: WidgetStatus{Ready: true, Since: Time{"now"}}}
	return r.Status().Patch(ctx, w, client.Apply)
}

// Status apply with Ready left zero: reported.
func (r *Reconciler) applyStatusZero(ctx context.Context) error {
	w := &Widget{ObjectMeta: ObjectMeta{Name: "w"}, Status: WidgetStatus{Phase: "Running", Since: Time{"now"}}}
	return r.Status().Patch(ctx, w, client.Apply) // want `server-side apply of a typed Go struct`
}

// The object changes after the literal: what is sent is not in sight.
func (r *Reconciler) applyChanged(ctx context.Context, n int32) error {
	w := &Widget{ObjectMeta: ObjectMeta{Name: "w"}, Spec: WidgetSpec{Replicas: 2, Image: "nginx"}}
	w.Spec.Replicas = n
	return r.Patch(ctx, w, client.Apply) // want `server-side apply of a typed Go struct.*no automatic fix: the object is not one literal in sight`
}

// Inline literal, everything set: silent.
func (r *Reconciler) applyInline(ctx context.Context) error {
	return r.Patch(ctx, &Widget{ObjectMeta: ObjectMeta{Name: "w"}, Spec: WidgetSpec{Replicas: 1, Image: "x"}}, client.Apply)
}

// The object comes from a function of the package that returns a literal
// setting every field encoding/json writes: silent, inline or assigned.
func desiredWidget(name string, replicas int32) *Widget {
	return &Widget{ObjectMeta: ObjectMeta{Name: name}, Spec: WidgetSpec{Replicas: replicas, Image: "nginx"}}
}

func (r *Reconciler) applyFromFunc(ctx context.Context) error {
	w := desiredWidget("w", 2)
	if err := r.Patch(ctx, w, client.Apply); err != nil {
		return err
	}
	return r.Patch(ctx, desiredWidget("v", 1), client.Apply)
}

// A function whose literal leaves Replicas zero: reported.
func partialWidget(name string) *Widget {
	return &Widget{ObjectMeta: ObjectMeta{Name: name}, Spec: WidgetSpec{Image: "nginx"}}
}

func (r *Reconciler) applyFromPartialFunc(ctx context.Context) error {
	return r.Patch(ctx, partialWidget("w"), client.Apply) // want `server-side apply of a typed Go struct`
}

// A wrapper around an unstructured object: its JSON is the object's map
// (MarshalJSON, promoted), which sends no zero value: silent.
type wrappedObject struct {
	unstructured.Unstructured
	source string
}

func (r *Reconciler) applyWrapped(ctx context.Context, w *wrappedObject) error {
	return r.Patch(ctx, w, client.Apply)
}

// An interface holding whatever the caller passed (an unstructured object
// among others): nothing here says it is a typed struct: silent.
func (r *Reconciler) applyObject(ctx context.Context, obj client.Object) error {
	return r.Patch(ctx, obj, client.Apply)
}

// A type of its own encoding: what it sends is what its MarshalJSON
// writes, not its fields: silent.
type encoded struct {
	ObjectMeta `json:"metadata,omitempty"`
	Replicas   int32 `json:"replicas"`
}

func (e *encoded) MarshalJSON() ([]byte, error) { return []byte(`{"metadata":{}}`), nil }
func (e *encoded) GetName() string              { return e.Name }

func (r *Reconciler) applyEncoded(ctx context.Context, e *encoded) error {
	return r.Patch(ctx, e, client.Apply)
}
