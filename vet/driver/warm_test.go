package driver

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ssagen/ssagen/generator"
	"github.com/ssagen/ssagen/generator/output"
)

// TestHelperAddedWhileRunning runs the analyzers twice in one process, as
// a long-running tool (gopls) does: a package writes a NetworkPolicy with
// Create → AlreadyExists → Update and its module has no helper for the
// kind; then the helper is generated; the second run finds it and offers
// the rewrite. Each run names the module's helpers anew (vet.UseHelpers),
// and no pass keeps anything between runs.
func TestHelperAddedWhileRunning(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages and generates")
	}
	// Inside ssagen's module, so the package resolves its dependencies.
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(root, "zzvetwarm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	src := `package x

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type R struct{ client.Client }

func (r *R) policy(ctx context.Context, ns string) error {
	np := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "deny", Namespace: ns}}
	err := r.Create(ctx, np)
	if apierrors.IsAlreadyExists(err) {
		return r.Update(ctx, np)
	}
	return err
}
`
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	runDiff := func() string {
		var stdout, stderr bytes.Buffer
		Main([]string{"-diff", "."}, &stdout, &stderr)
		return stdout.String() + stderr.String()
	}
	if out := runDiff(); !strings.Contains(out, "no Ensure helper for this kind") || !strings.Contains(out, "would rewrite 0 of 1 sites") {
		t.Fatalf("before the helper exists:\n%s", out)
	}
	rel, _ := filepath.Rel(root, dir)
	cfg := generator.Config{EnsureKinds: []string{"k8s.io/api/networking/v1.NetworkPolicy"}, OutputDir: "gen",
		OutputPkg: "github.com/ssagen/ssagen/" + filepath.ToSlash(rel) + "/gen"}
	if err := generator.Generate(cfg, output.Disk{Dir: filepath.Join(dir, "gen")}); err != nil {
		t.Fatal(err)
	}
	out := runDiff()
	if strings.Contains(out, "no Ensure helper") || !strings.Contains(out, "would rewrite 1 of 1 sites") || !strings.Contains(out, "EnsureNetworkPolicy(") {
		t.Fatalf("after the helper was generated, in the same process:\n%s", out)
	}
}
