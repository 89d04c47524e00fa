// Package bench measures what a controller spends to keep the objects it
// owns as desired, for each write pattern people use, on a real
// kube-apiserver: requests by verb and code, 409s, writes that changed an
// object, watch events, reconciles, CPU and allocations, time to converge.
// `make bench` runs it and writes docs/benchmarks.md.
package bench

import (
	"context"
	"encoding/json"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ssagen/ssagen/ensure"
)

// Pattern is a way of writing owned objects and a parent's status.
type Pattern struct {
	// Name is the short name used in tables.
	Name string
	// Title says what the pattern does, for the report.
	Title string
	// Ensure is true for the ssagen patterns, whose controllers also use
	// the generated Owned<Kind>Changes predicates.
	Ensure bool
	write  func(ctx context.Context, w *Writer, owner client.Object, ch Child) error
	status func(ctx context.Context, w *Writer, parent client.Object, ch StatusChange) error
}

// Patterns are the write patterns compared, in report order.
var Patterns = []Pattern{
	{Name: "create-update", Title: "Create → AlreadyExists → Update of an object built from scratch (seed 000)", write: createUpdate, status: statusUpdate},
	{Name: "create-or-update", Title: "controllerutil.CreateOrUpdate on a cached client (seed 001)", write: createOrUpdate, status: statusUpdate},
	{Name: "create-or-patch", Title: "controllerutil.CreateOrPatch on a cached client", write: createOrPatch, status: statusMergePatch},
	{Name: "ssa-by-hand", Title: "client.Apply of a hand-built client-go apply configuration, owner reference added by hand", write: ssaByHand, status: statusApplyByHand},
	{Name: "ensure-nocache", Title: "ssagen EnsureX with the skip cache off (ensure.AlwaysSend)", Ensure: true, write: ensureWrite(true), status: ensureStatus(true)},
	{Name: "ensure", Title: "ssagen EnsureX (skip cache on)", Ensure: true, write: ensureWrite(false), status: ensureStatus(false)},
}

// PatternByName finds a pattern.
func PatternByName(name string) (Pattern, bool) {
	for _, p := range Patterns {
		if p.Name == name {
			return p, true
		}
	}
	return Pattern{}, false
}

// Writer is what a pattern writes with: a client reading from an informer
// cache, as controllers have, and the ssagen client of the run over it
// (its field manager and skip cache).
type Writer struct {
	Client       client.Client
	Ensure       *ensure.Client
	Scheme       *runtime.Scheme
	FieldManager string
	pattern      Pattern
}

// newWriter is a Writer of pattern over c, with FieldManager.
func newWriter(c client.Client, scheme *runtime.Scheme, pattern Pattern) *Writer {
	return &Writer{Client: c, Ensure: ensure.NewClient(c, ensure.FieldManager(FieldManager)), Scheme: scheme, FieldManager: FieldManager, pattern: pattern}
}

// Child is one desired owned object, in the two forms the patterns take:
// an apply configuration (SSA patterns) and a typed object decoded from
// the same JSON (Create/Update patterns), so every pattern writes the same
// intent.
type Child struct {
	ac     runtime.ApplyConfiguration
	newObj func() client.Object
	own    func(*metav1ac.OwnerReferenceApplyConfiguration)
	ensure func(ctx context.Context, c client.Client, owner client.Object, opts ...ensure.ApplyOption) error
}

// applyConfiguration is what every generated top-level apply configuration
// offers.
type applyConfiguration[A any] interface {
	runtime.ApplyConfiguration
	WithOwnerReferences(...*metav1ac.OwnerReferenceApplyConfiguration) A
}

// NewChild pairs an apply configuration with its typed kind and the
// generated EnsureX helper for it.
func NewChild[A applyConfiguration[A], O client.Object](ac A, newObj func() O, helper func(context.Context, client.Client, client.Object, A, ...ensure.ApplyOption) (O, ensure.Result, error)) Child {
	return Child{
		ac:     ac,
		newObj: func() client.Object { return newObj() },
		own:    func(ref *metav1ac.OwnerReferenceApplyConfiguration) { ac.WithOwnerReferences(ref) },
		ensure: func(ctx context.Context, c client.Client, owner client.Object, opts ...ensure.ApplyOption) error {
			_, _, err := helper(ctx, c, owner, ac, opts...)
			return err
		},
	}
}

// typed decodes the child's intent into its Go type.
func (ch Child) typed() (client.Object, error) {
	b, err := json.Marshal(ch.ac)
	if err != nil {
		return nil, err
	}
	obj := ch.newObj()
	if err := json.Unmarshal(b, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// copyIntent is the mutate function people write for CreateOrUpdate: set
// every field of the intent (spec, rules, subjects, labels…) on the live
// object, leaving metadata the server owns and status alone.
func copyIntent(live, want client.Object) error {
	l, err := runtime.DefaultUnstructuredConverter.ToUnstructured(live)
	if err != nil {
		return err
	}
	w, err := runtime.DefaultUnstructuredConverter.ToUnstructured(want)
	if err != nil {
		return err
	}
	for k, v := range w {
		if k != "metadata" && k != "status" && k != "apiVersion" && k != "kind" {
			l[k] = v
		}
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(l, live); err != nil {
		return err
	}
	labels := live.GetLabels()
	for k, v := range want.GetLabels() {
		if labels == nil {
			labels = map[string]string{}
		}
		labels[k] = v
	}
	live.SetLabels(labels)
	return nil
}

func createUpdate(ctx context.Context, w *Writer, owner client.Object, ch Child) error {
	obj, err := ch.typed()
	if err != nil {
		return err
	}
	if err := controllerutil.SetControllerReference(owner, obj, w.Scheme); err != nil {
		return err
	}
	err = w.Client.Create(ctx, obj, client.FieldOwner(w.FieldManager))
	if apierrors.IsAlreadyExists(err) {
		return w.Client.Update(ctx, obj, client.FieldOwner(w.FieldManager))
	}
	return err
}

func createOrUpdate(ctx context.Context, w *Writer, owner client.Object, ch Child) error {
	return mutate(ctx, w, owner, ch, controllerutil.CreateOrUpdate)
}

func createOrPatch(ctx context.Context, w *Writer, owner client.Object, ch Child) error {
	return mutate(ctx, w, owner, ch, controllerutil.CreateOrPatch)
}

// mutate runs CreateOrUpdate or CreateOrPatch with the usual mutate
// function: copy the intent onto the live object, set the controller.
func mutate(ctx context.Context, w *Writer, owner client.Object, ch Child,
	op func(context.Context, client.Client, client.Object, controllerutil.MutateFn) (controllerutil.OperationResult, error)) error {
	want, err := ch.typed()
	if err != nil {
		return err
	}
	obj := ch.newObj()
	obj.SetName(want.GetName())
	obj.SetNamespace(want.GetNamespace())
	_, err = op(ctx, w.Client, obj, func() error {
		if err := copyIntent(obj, want); err != nil {
			return err
		}
		return controllerutil.SetControllerReference(owner, obj, w.Scheme)
	})
	return err
}

func ssaByHand(ctx context.Context, w *Writer, owner client.Object, ch Child) error {
	gvk, err := apiutil.GVKForObject(owner, w.Scheme)
	if err != nil {
		return err
	}
	ch.own(metav1ac.OwnerReference().WithAPIVersion(gvk.GroupVersion().String()).WithKind(gvk.Kind).
		WithName(owner.GetName()).WithUID(owner.GetUID()).WithController(true).WithBlockOwnerDeletion(true))
	return w.Client.Apply(ctx, ch.ac, client.FieldOwner(w.FieldManager), client.ForceOwnership)
}

func ensureWrite(alwaysSend bool) func(context.Context, *Writer, client.Object, Child) error {
	return func(ctx context.Context, w *Writer, owner client.Object, ch Child) error {
		return ch.ensure(ctx, w.Ensure, owner, ensureOptions(alwaysSend)...)
	}
}

func ensureOptions(alwaysSend bool) []ensure.ApplyOption {
	if alwaysSend {
		return []ensure.ApplyOption{ensure.AlwaysSend()}
	}
	return nil
}

// StatusChange is a parent's desired status: a condition, for the typed
// patterns as a metav1.Condition set on the cached object, for the apply
// patterns as an apply configuration of the parent's status.
type StatusChange struct {
	// Condition is the condition the status must hold.
	Condition metav1.Condition
	// Conditions returns the typed object's conditions to set it on.
	Conditions func(parent client.Object) *[]metav1.Condition
	// Apply builds the status apply configuration from the condition, as
	// generated for the parent kind (owner-less, status only).
	Apply func(cond *metav1ac.ConditionApplyConfiguration) runtime.ApplyConfiguration
	// Ensure is the generated EnsureXStatus helper for the parent kind.
	Ensure func(ctx context.Context, c client.Client, cond *metav1ac.ConditionApplyConfiguration, opts ...ensure.ApplyOption) error
}

// statusUpdate sets the condition on the object read from the cache and
// writes status with Update when it changed: the common pattern, 409 when
// the cache is behind.
func statusUpdate(ctx context.Context, w *Writer, parent client.Object, st StatusChange) error {
	if !meta.SetStatusCondition(st.Conditions(parent), st.Condition) {
		return nil
	}
	return w.Client.Status().Update(ctx, parent, client.FieldOwner(w.FieldManager))
}

// statusMergePatch is CreateOrPatch's way for status: a merge patch of the
// difference, no optimistic lock.
func statusMergePatch(ctx context.Context, w *Writer, parent client.Object, st StatusChange) error {
	before := parent.DeepCopyObject().(client.Object)
	if !meta.SetStatusCondition(st.Conditions(parent), st.Condition) {
		return nil
	}
	return w.Client.Status().Patch(ctx, parent, client.MergeFrom(before), client.FieldOwner(w.FieldManager))
}

func statusApplyByHand(ctx context.Context, w *Writer, parent client.Object, st StatusChange) error {
	cond := conditionFor(*st.Conditions(parent), st.Condition)
	return w.Client.Status().Apply(ctx, st.Apply(cond), client.FieldOwner(w.FieldManager), client.ForceOwnership)
}

func ensureStatus(alwaysSend bool) func(context.Context, *Writer, client.Object, StatusChange) error {
	return func(ctx context.Context, w *Writer, parent client.Object, st StatusChange) error {
		cond := conditionFor(*st.Conditions(parent), st.Condition)
		return st.Ensure(ctx, w.Ensure, cond, ensureOptions(alwaysSend)...)
	}
}

// conditionFor keeps the live lastTransitionTime when the status is
// unchanged, as meta.SetStatusCondition does for the typed patterns.
func conditionFor(live []metav1.Condition, c metav1.Condition) *metav1ac.ConditionApplyConfiguration {
	return ensure.Condition(live, c.Type, c.Status, c.Reason, c.Message, c.ObservedGeneration, metav1.Now())
}
