// Package reconcile is a stub of multicluster-runtime's reconcile for analyzer tests.
package reconcile

import "sigs.k8s.io/controller-runtime/pkg/client"

// Request is a request for an object of a cluster of the fleet.
type Request struct {
	ClusterName string
	client.ObjectKey
}
