// Package wait is a stub of apimachinery's wait for analyzer tests.
package wait

import (
	"context"
	"time"
)

type ConditionWithContextFunc func(context.Context) (bool, error)

type ConditionFunc func() (bool, error)

func PollUntilContextCancel(ctx context.Context, interval time.Duration, immediate bool, condition ConditionWithContextFunc) error {
	return nil
}

func PollImmediate(interval, timeout time.Duration, condition ConditionFunc) error { return nil }
