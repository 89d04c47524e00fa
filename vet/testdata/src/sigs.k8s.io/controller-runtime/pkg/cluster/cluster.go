// Package cluster is a stub of controller-runtime's cluster for analyzer tests.
package cluster

import "sigs.k8s.io/controller-runtime/pkg/client"

type Cluster interface {
	GetClient() client.Client
}
