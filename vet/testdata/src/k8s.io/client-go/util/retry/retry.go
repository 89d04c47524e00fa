// Package retry is a stub for analyzer tests.
package retry

var DefaultRetry = struct{}{}

func RetryOnConflict(backoff any, fn func() error) error { return fn() }

var DefaultBackoff = struct{}{}

func OnError(backoff any, retriable func(error) bool, fn func() error) error { return fn() }
