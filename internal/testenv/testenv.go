// Package testenv starts a real kube-apiserver and etcd for tests, through
// controller-runtime's envtest, with the binaries hack/envtest-assets.sh
// builds. Without KUBEBUILDER_ASSETS a test is skipped — unless
// SSAGEN_REQUIRE_ENVTEST is set (as `make test` and CI do), where it fails:
// CI never passes by skipping the API server.
package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Start starts an API server with the example CRDs and stops it when the
// test ends.
func Start(t testing.TB) *rest.Config {
	t.Helper()
	_, cfg := StartEnv(t)
	return cfg
}

// StartEnv is Start, also returning the environment (to stop and restart
// its API server); configure may set it up further before it starts.
func StartEnv(t testing.TB, configure ...func(*envtest.Environment)) (*envtest.Environment, *rest.Config) {
	t.Helper()
	Require(t)
	env, cfg, err := New(configure...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping envtest: %v", err)
		}
	})
	return env, cfg
}

// Require skips a test that needs kube-apiserver's binaries when
// KUBEBUILDER_ASSETS is not set, and fails it instead when
// SSAGEN_REQUIRE_ENVTEST is (make test, CI).
func Require(t testing.TB) {
	t.Helper()
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		if os.Getenv("SSAGEN_REQUIRE_ENVTEST") != "" {
			t.Fatal("KUBEBUILDER_ASSETS is not set: run `make envtest-assets` (or `make test`)")
		}
		t.Skip("KUBEBUILDER_ASSETS is not set: run `make test` to test against a real kube-apiserver")
	}
}

// New starts a kube-apiserver and etcd (KUBEBUILDER_ASSETS) with the
// example CRDs installed, for tests and for programs (bench/) alike.
// configure may set more of the environment before it starts (API server
// flags: an audit log).
func New(configure ...func(*envtest.Environment)) (*envtest.Environment, *rest.Config, error) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		return nil, nil, fmt.Errorf("KUBEBUILDER_ASSETS is not set: run `make envtest-assets` and export its last line")
	}
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(repoRoot(), "examples", "config", "crd")},
		ErrorIfCRDPathMissing: true,
	}
	for _, c := range configure {
		c(env)
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, nil, fmt.Errorf("starting envtest: %w", err)
	}
	return env, cfg, nil
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
