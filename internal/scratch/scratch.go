// Package scratch is what the tests that work as a user works need: the
// ssagen binary, built once per test process as `go tool` would build it,
// and scratch Go modules outside this repository to generate into, build
// and test, with commands run as a user runs them (module mode, the local
// toolchain). Only tests import it.
package scratch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/ssagen/ssagen/internal/apisurface"
)

// Repo is the folder of this repository.
func Repo() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// SSAgen returns the ssagen binary: $SSAGEN_BIN, which make test builds
// once for every package (.cache/tools/ssagen), or else one built once per
// test process into a folder removed when the process ends (TestMain
// calls Main).
func SSAgen(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("SSAGEN_BIN"); bin != "" {
		return bin
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ssagen-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "ssagen")
		cmd := exec.Command("go", "build", "-o", binary, "./cmd/ssagen")
		cmd.Dir = Repo()
		cmd.Env = Env()
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building ssagen: %v", buildErr)
	}
	return binary
}

// Main runs a package's tests and removes the binary SSAgen built:
// func TestMain(m *testing.M) { scratch.Main(m) }.
func Main(m *testing.M) {
	code := m.Run()
	if binary != "" {
		os.RemoveAll(filepath.Dir(binary))
	}
	os.Exit(code)
}

// Env is the environment commands run in: a user's module mode, with the
// local toolchain.
func Env() []string {
	return append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
}

// Run runs a command in dir and returns its combined output; a failure
// fails the test with that output. The command is logged as the test's
// current step, and stopped a minute before the package's deadline (go
// test -timeout): a run over budget fails naming the step, not with a
// goroutine dump.
func Run(t testing.TB, dir, name string, args ...string) string {
	t.Helper()
	step := name + " " + strings.Join(args, " ")
	t.Logf("step: %s (in %s)", step, dir)
	ctx := context.Background()
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if deadline, ok := d.Deadline(); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, deadline.Add(-time.Minute))
			defer cancel()
		}
	}
	start := time.Now()
	out, err := try(ctx, dir, name, args...)
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("out of time: the package's budget (go test -timeout) ran out in the step %s, after %s (in %s); its output so far:\n%s",
			step, time.Since(start).Round(time.Second), dir, out)
	}
	if err != nil {
		t.Fatalf("%s in %s: %v\n%s", step, dir, err, out)
	}
	return out
}

// Try runs a command in dir and returns its combined output and error.
func Try(dir, name string, args ...string) (string, error) {
	return try(context.Background(), dir, name, args...)
}

func try(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = Env()
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Write writes a file, creating its folder.
func Write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Surfaces lists the exported API of each package pattern matches in the
// module at dir (apisurface), with package paths renamed by mapPath.
func Surfaces(t testing.TB, dir string, mapPath func(string) string, patterns ...string) map[string]map[string]bool {
	t.Helper()
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: dir, Env: Env()}, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]bool{}
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			t.Fatalf("%s: %v", p.PkgPath, p.Errors)
		}
		out[p.PkgPath] = apisurface.Of(p.Types, mapPath)
	}
	return out
}

// InMatrix reports whether this run is `make test-matrix`
// (SSAGEN_MATRIX=1): the version matrix — scratch modules at every
// supported controller-runtime release but the floor, golangci-lint
// releases, Kubebuilder end to end — which `make test` leaves to it and
// .ci/run runs too.
func InMatrix() bool { return os.Getenv("SSAGEN_MATRIX") != "" }

// MatrixOnly skips a test outside `make test-matrix`.
func MatrixOnly(t testing.TB) {
	t.Helper()
	if !InMatrix() {
		t.Skip("runs in make test-matrix (SSAGEN_MATRIX=1)")
	}
}
