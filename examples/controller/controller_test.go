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
	// A dropped namespace: its Role, RoleBinding and ServiceAccount, one
	// DELETE each, and the status of the new generation.
	if n := testenv.Total(rep.Drop, "DELETE 200"); n != 3 || testenv.Total(rep.Drop, "DELETE") != 3 {
		t.Errorf("dropping a namespace sent %s, want 3 DELETEs", testenv.String(rep.Drop))
	}
	// The deletion: 8 DELETEs and one patch removing the finalizer.
	if testenv.Total(rep.Delete, "DELETE 200") != 8 || testenv.Total(rep.Delete, "DELETE") != 8 || testenv.Total(rep.Delete, "PATCH 200") != 1 {
		t.Errorf("deleting the project sent %s, want 8 DELETEs and 1 PATCH", testenv.String(rep.Delete))
	}
	if rep.Leaked != 0 {
		t.Errorf("%d children left after the project's deletion", rep.Leaked)
	}
	for _, m := range []map[string]int{rep.Drop, rep.Delete} {
		if n := testenv.Total(m, "PATCH 409", "PUT 409", "DELETE 409"); n != 0 {
			t.Errorf("%d conflicts", n)
		}
	}
}
