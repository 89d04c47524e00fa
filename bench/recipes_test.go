package bench

import (
	"strings"
	"testing"

	kindv1alpha4 "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/yaml"

	"github.com/ssagen/ssagen/audit"
)

// TestKindConfig: docs/audit.md's kind recipe is a kind configuration
// kind reads (strictly, into its own v1alpha4 types), whose kubeadm patch
// gives the API server the flags of the audit log and mounts the policy
// where the flag says. (kind itself needs a container runtime, which
// this machine lacks: the cluster is not created here.)
func TestKindConfig(t *testing.T) {
	var c kindv1alpha4.Cluster
	if err := yaml.UnmarshalStrict([]byte(audit.KindConfig("./hack/audit/audit-policy.yaml")), &c); err != nil {
		t.Fatal(err)
	}
	if c.Kind != "Cluster" || c.APIVersion != "kind.x-k8s.io/v1alpha4" || len(c.Nodes) != 1 || c.Nodes[0].Role != kindv1alpha4.ControlPlaneRole {
		t.Fatalf("cluster %+v", c)
	}
	n := c.Nodes[0]
	if len(n.ExtraMounts) != 1 || n.ExtraMounts[0].HostPath != "./hack/audit/audit-policy.yaml" || len(n.KubeadmConfigPatches) != 1 {
		t.Fatalf("node %+v", n)
	}
	var patch struct {
		Kind      string
		APIServer struct {
			ExtraArgs    map[string]string
			ExtraVolumes []struct {
				Name, HostPath, MountPath string
			}
		} `json:"apiServer"`
	}
	if err := yaml.Unmarshal([]byte(n.KubeadmConfigPatches[0]), &patch); err != nil {
		t.Fatal(err)
	}
	args := patch.APIServer.ExtraArgs
	if patch.Kind != "ClusterConfiguration" || args["audit-log-format"] != "json" || !strings.HasPrefix(args["audit-log-path"], "/var/log/kubernetes/") {
		t.Fatalf("patch %+v", patch)
	}
	if !strings.HasPrefix(n.ExtraMounts[0].ContainerPath, "/etc/kubernetes/policies/") || args["audit-policy-file"] != n.ExtraMounts[0].ContainerPath {
		t.Errorf("the policy is mounted at %s, the flag reads %s", n.ExtraMounts[0].ContainerPath, args["audit-policy-file"])
	}
	mounted := map[string]bool{}
	for _, v := range patch.APIServer.ExtraVolumes {
		mounted[v.MountPath] = v.HostPath == v.MountPath
	}
	if !mounted["/etc/kubernetes/policies"] || !mounted["/var/log/kubernetes"] {
		t.Errorf("volumes %+v", patch.APIServer.ExtraVolumes)
	}
}
