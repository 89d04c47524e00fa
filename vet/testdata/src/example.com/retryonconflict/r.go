package retryonconflict

import (
	"context"

	"example.com/api"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type R struct{ client.Client }

// Every conflict is one more read and write.
func (r *R) bump(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error { // want `RetryOnConflict around Get \+ Update`
		cm := &api.ConfigMap{}
		if err := r.Get(ctx, client.ObjectKey{Name: "bot"}, cm); err != nil {
			return err
		}
		cm.Data = map[string]string{"rotated": "yes"}
		return r.Update(ctx, cm)
	})
}

// Near miss: a retry around something that is not a read and an Update.
func (r *R) read(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		return r.Get(ctx, client.ObjectKey{Name: "bot"}, &api.ServiceAccount{})
	})
}
