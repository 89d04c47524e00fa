// Package ensure_test tests the runtime of the generated EnsureX helpers
// (module github.com/ssagen/ssagen/ensure) through generated helpers of
// examples/generated, on a real kube-apiserver (envtest) and on
// controller-runtime's fake client. It lives in ssagen's module because
// those helpers do: the runtime's own module imports nothing of ssagen's,
// so operators importing it keep their pinned k8s.io and
// controller-runtime versions.
package ensure_test
