package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVetCommand runs `ssagen vet` and `go vet -vettool=ssagen` on a
// package of this module that uses controller-runtime for real.
func TestVetCommand(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "ssagen")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("%s", out)
	}
	dir, err := os.MkdirTemp("../..", "zzvettest")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	src := `package x

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type R struct{ client.Client }

func (r *R) role(ctx context.Context, role *rbacv1.Role) error {
	if err := r.Create(ctx, role); apierrors.IsAlreadyExists(err) {
		return r.Update(ctx, role)
	}
	return nil
}
`
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := "./" + filepath.Base(dir)
	for _, args := range [][]string{{bin, "vet", pkg}, {"go", "vet", "-vettool=" + bin, pkg}} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = "../.."
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("%v: exit 0, want a finding", args)
		}
		if !strings.Contains(string(out), "x.go:14:12: Create → AlreadyExists → Update") || !strings.Contains(string(out), "fix: EnsureRole") {
			t.Errorf("%v printed:\n%s", args, out)
		}
	}
}
