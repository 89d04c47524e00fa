// Package controllerutil is a stub for analyzer tests.
package controllerutil

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

func CreateOrUpdate(ctx context.Context, c client.Client, obj client.Object, f func() error) (string, error) {
	return "", nil
}

func CreateOrPatch(ctx context.Context, c client.Client, obj client.Object, f func() error) (string, error) {
	return "", nil
}

func SetControllerReference(owner, obj client.Object, scheme any, opts ...any) error { return nil }
