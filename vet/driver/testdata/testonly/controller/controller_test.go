package controller

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/ssagen/ssagen/vet/driver/testdata/testonly/fixture"
)

func TestReconcile(t *testing.T) {
	_ = fixture.Seed(context.Background(), nil, &corev1.ConfigMap{})
}
