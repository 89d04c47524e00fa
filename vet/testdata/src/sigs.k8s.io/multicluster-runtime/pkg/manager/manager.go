// Package manager is a stub of multicluster-runtime's manager for analyzer tests.
package manager

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/cluster"
)

type Manager interface {
	GetCluster(ctx context.Context, name string) (cluster.Cluster, error)
}
