// Package controller uses lib; its tests use fixture.
package controller

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ssagen/ssagen/vet/driver/testdata/testonly/lib"
)

// Reconcile writes the ConfigMap through lib.
func Reconcile(ctx context.Context, c client.Client, cm *corev1.ConfigMap) error {
	return lib.Seed(ctx, c, cm)
}
