package controller

import (
	"context"
	"os"
	"testing"

	"github.com/ssagen/ssagen/internal/testenv"
)

// TestExampleOperator runs the example operator on a real API server: its
// resyncs send nothing, nothing ever gets a 409, and a pod start requeues
// the sandbox once per phase change, not once per kubelet write.
func TestExampleOperator(t *testing.T) {
	cfg := testenv.Start(t)
	rep, err := Run(context.Background(), cfg, 10, os.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Resync) != 0 {
		t.Errorf("resyncs sent %s, want nothing", testenv.String(rep.Resync))
	}
	if n := testenv.Total(rep.PodStart, "PATCH 409", "PUT 409", "POST 409"); n != 0 {
		t.Errorf("%d conflicts during the pod start", n)
	}
	// The API server creates pods Pending; the one change the sandbox
	// mirrors is Pending → Running.
	if rep.SandboxReconciles != 1 {
		t.Errorf("%d sandbox reconciles for %d kubelet writes, want 1 (Pending → Running)", rep.SandboxReconciles, rep.KubeletWrites)
	}
}
