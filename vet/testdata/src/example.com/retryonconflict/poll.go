package retryonconflict

import (
	"context"
	"time"

	"example.com/api"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// velero's UpdateDataUploadWithRetry: a poll whose condition Gets and
// Updates and answers a conflict with "not yet" is a retry by hand.
func updateWithRetry(ctx context.Context, c client.Client, key client.ObjectKey, mutate func(*api.ConfigMap) bool) error {
	return wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) { // want `A poll that retries conflicts \(wait.PollUntilContextCancel\) around Get \+ Update.*no automatic fix: the retry is a poll written by hand`
		cm := &api.ConfigMap{}
		if err := c.Get(ctx, key, cm); err != nil {
			return false, err
		}
		if mutate(cm) {
			if err := c.Update(ctx, cm); err != nil {
				if apierrors.IsConflict(err) {
					return false, nil
				}
				return false, err
			}
		}
		return true, nil
	})
}

// Silent: a poll that waits for a condition and writes nothing.
func waitReady(ctx context.Context, c client.Client, key client.ObjectKey) error {
	return wait.PollImmediate(time.Second, time.Minute, func() (bool, error) {
		cm := &api.ConfigMap{}
		if err := c.Get(ctx, key, cm); err != nil {
			return false, nil
		}
		return cm.Data["ready"] == "true", nil
	})
}
