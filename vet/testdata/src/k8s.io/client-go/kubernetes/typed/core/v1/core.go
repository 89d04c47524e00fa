// Package v1 is a stub of client-go's typed core/v1 client for analyzer
// tests: a kind's client reads and writes the API server directly.
package v1

import (
	"context"

	"example.com/api"
)

type GetOptions struct{}
type CreateOptions struct{}
type UpdateOptions struct{}
type PatchOptions struct{}

type ConfigMapInterface interface {
	Get(ctx context.Context, name string, opts GetOptions) (*api.ConfigMap, error)
	Create(ctx context.Context, cm *api.ConfigMap, opts CreateOptions) (*api.ConfigMap, error)
	Update(ctx context.Context, cm *api.ConfigMap, opts UpdateOptions) (*api.ConfigMap, error)
	Patch(ctx context.Context, name string, pt string, data []byte, opts PatchOptions) (*api.ConfigMap, error)
}

type PodInterface interface {
	Get(ctx context.Context, name string, opts GetOptions) (*api.Pod, error)
	UpdateStatus(ctx context.Context, pod *api.Pod, opts UpdateOptions) (*api.Pod, error)
}

type CoreV1Interface interface {
	ConfigMaps(namespace string) ConfigMapInterface
	Pods(namespace string) PodInterface
}
