// Package lib is imported by the controller and by its tests: operator
// code.
package lib

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Seed writes the ConfigMap, whatever is there.
func Seed(ctx context.Context, c client.Client, cm *corev1.ConfigMap) error {
	if err := c.Create(ctx, cm); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		return c.Update(ctx, cm)
	}
	return nil
}
