package ensure

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ImmutableError is an apply the API server refused because it changes
// fields that cannot change once set (a Service's clusterIP, a Job's
// template, a Deployment's selector). Through a Client, Ensure does not
// send the same intent again while the object stays as it is: the next
// calls return this error with no request, until the intent or the object
// changes (a plain client remembers nothing, and sends it again). A Preview's
// refusal is not remembered: the real apply afterwards is sent. With
// RecreateOnImmutable, Ensure deletes the object instead, to create it
// again.
type ImmutableError struct {
	GVK             schema.GroupVersionKind
	Namespace, Name string
	// Fields are the paths the API server named (spec.clusterIP).
	Fields []string
	err    error
}

func (e *ImmutableError) Error() string {
	return fmt.Sprintf("ensure: %s %s/%s: the intent changes immutable fields %s: %v", e.GVK.Kind, e.Namespace, e.Name, strings.Join(e.Fields, ", "), e.err)
}

func (e *ImmutableError) Unwrap() error { return e.err }

// asImmutable recognises the API server's refusal of an immutable field.
func asImmutable(err error, gvk schema.GroupVersionKind, namespace, name string) *ImmutableError {
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	ie := &ImmutableError{GVK: gvk, Namespace: namespace, Name: name, err: err}
	for _, c := range status.Status().Details.Causes {
		if strings.Contains(c.Message, "immutable") || strings.Contains(c.Message, "may not change once set") {
			ie.Fields = append(ie.Fields, c.Field)
		}
	}
	if len(ie.Fields) == 0 {
		return nil
	}
	return ie
}

// Recreating: the object's immutable fields differed from the intent, and
// with RecreateOnImmutable it was deleted (or its deletion is still under
// way); an Ensure after it is gone creates it.
const Recreating Result = "recreating"

// RecreateOnImmutable deletes an object whose immutable fields the intent
// changes, with the given propagation policy (metav1.DeletePropagationBackground
// deletes dependents after the object, Foreground before it, Orphan keeps
// them), so that the next Ensure creates it as desired. The delete is
// preconditioned on the UID read, so a namesake created meanwhile is not
// touched.
func RecreateOnImmutable(policy metav1.DeletionPropagation) ApplyOption {
	return applyFunc(func(o *options) { o.recreate = &policy })
}
