package updatefromscratch

import (
	"context"

	"example.com/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type R struct{ client.Client }

// Every field other writers set is overwritten.
func (r *R) settings(ctx context.Context) error {
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "settings"}, Data: map[string]string{"mode": "fast"}}
	return r.Update(ctx, cm) // want `Update of an object built from scratch`
}

// Near miss: an Update of what was read.
func (r *R) edit(ctx context.Context) error {
	cm := &api.ConfigMap{}
	if err := r.Get(ctx, client.ObjectKey{Name: "settings"}, cm); err != nil {
		return err
	}
	cm.Data = map[string]string{"mode": "slow"}
	return r.Update(ctx, cm)
}
