// Package scratch is what the tests that work as a user works need: the
// ssagen binary, built once per test process as `go tool` would build it,
// and scratch Go modules outside this repository to generate into, build
// and test, with commands run as a user runs them (module mode, the local
// toolchain). Only tests import it.
package scratch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

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

// SSAgen returns the ssagen binary, built once per test process into a
// folder removed when the process ends (TestMain calls Cleanup).
func SSAgen(t testing.TB) string {
	t.Helper()
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

// Cleanup removes the binary SSAgen built.
func Cleanup() {
	if binary != "" {
		os.RemoveAll(filepath.Dir(binary))
	}
}

// Env is the environment commands run in: a user's module mode, with the
// local toolchain.
func Env() []string {
	return append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
}

// Run runs a command in dir and returns its combined output; a failure
// fails the test with that output.
func Run(t testing.TB, dir, name string, args ...string) string {
	t.Helper()
	out, err := Try(dir, name, args...)
	if err != nil {
		t.Fatalf("%s %s in %s: %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return out
}

// Try runs a command in dir and returns its combined output and error.
func Try(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = Env()
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
