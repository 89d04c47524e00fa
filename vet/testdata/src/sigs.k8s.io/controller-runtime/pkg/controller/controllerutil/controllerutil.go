// Package controllerutil is a stub for analyzer tests.
package controllerutil

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

type OperationResult string

const (
	OperationResultNone              OperationResult = "unchanged"
	OperationResultCreated           OperationResult = "created"
	OperationResultUpdated           OperationResult = "updated"
	OperationResultUpdatedStatus     OperationResult = "updatedStatus"
	OperationResultUpdatedStatusOnly OperationResult = "updatedStatusOnly"
)

func CreateOrUpdate(ctx context.Context, c client.Client, obj client.Object, f func() error) (OperationResult, error) {
	return "", nil
}

func CreateOrPatch(ctx context.Context, c client.Client, obj client.Object, f func() error) (OperationResult, error) {
	return "", nil
}

func HasControllerReference(obj any) bool { return false }

func SetControllerReference(owner, obj client.Object, scheme any, opts ...any) error { return nil }
