package kubebuilder

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ssagen/ssagen/audit"
)

// The e2e audit gate (docs/audit.md): a Makefile target that runs go/v4's
// e2e suite on a Kind cluster whose API server writes an audit log, then
// holds the run to the project's budget with ssagen audit, naming the
// line behind each row over it.
const (
	auditGateTarget = "test-e2e-audit"
	auditPolicyFile = "hack/audit/audit-policy.yaml"
	auditKindFile   = "hack/audit/kind-config.yaml"
	auditBudgetFile = ".ssagen-budget.yaml"
	auditGateRule   = `
.PHONY: test-e2e-audit
test-e2e-audit: manifests generate fmt vet $(LOCALBIN) ## Run the e2e tests on a Kind cluster whose API server writes an audit log, then hold the run to .ssagen-budget.yaml (ssagen audit).
	@command -v $(KIND) >/dev/null 2>&1 || { echo "Kind is not installed. Please install Kind manually."; exit 1; }
	@$(KIND) delete cluster --name $(KIND_CLUSTER)-audit >/dev/null 2>&1 || true
	$(KIND) create cluster --name $(KIND_CLUSTER)-audit --config ` + auditKindFile + `
	KIND=$(KIND) KIND_CLUSTER=$(KIND_CLUSTER)-audit go test -tags=e2e ./test/e2e/ -v -ginkgo.v; rc=$$?; \
	$(CONTAINER_TOOL) exec $(KIND_CLUSTER)-audit-control-plane cat /var/log/kubernetes/kube-apiserver-audit.log > $(LOCALBIN)/e2e-audit.log; \
	$(KIND) delete cluster --name $(KIND_CLUSTER)-audit; \
	exit $$rc
	$(SSAGEN) audit --budget ` + auditBudgetFile + ` --source ./... $(LOCALBIN)/e2e-audit.log
`
)

// addAuditGate adds the test-e2e-audit target after go/v4's e2e targets;
// a Makefile without test-e2e, or with the gate already, is left as it is.
func addAuditGate(s string) (string, bool) {
	if strings.Contains(s, "\n"+auditGateTarget+":") {
		return s, false
	}
	lines := strings.SplitAfter(s, "\n")
	after := -1
	for _, name := range []string{"test-e2e:", "cleanup-test-e2e:"} {
		if i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, name) }); i >= 0 {
			after = max(after, i)
		}
	}
	if after < 0 {
		return s, false
	}
	end := after + 1
	for end < len(lines) && strings.HasPrefix(lines[end], "\t") {
		end++
	}
	return strings.Join(lines[:end], "") + auditGateRule + strings.Join(lines[end:], ""), true
}

// auditBudget is the project's budget: its manager's service account
// (go/v4's config/default names it <project>-controller-manager in
// <project>-system) sends no 409 and no Create → 409 → Update, and few
// writes that change nothing (an apply sent while the manager's cache
// lags its own last write is one).
func auditBudget(projectName string) string {
	writer := "system:serviceaccount:*-system:*-controller-manager"
	if projectName != "" {
		writer = fmt.Sprintf("system:serviceaccount:%s-system:%s-controller-manager", projectName, projectName)
	}
	return `# What the e2e suite's run may spend (make test-e2e-audit; ssagen audit --budget).
# A writer is a user, user agent or field manager (a glob); resource and
# verb narrow a limit (resource[.group][/subresource]).
limits:
- writer: "` + writer + `"
  conflicts: 0
  createConflictUpdate: 0
  # An apply sent while the manager's cache lags its own last write changes
  # nothing; a few are expected. Many mean writes that are not needed.
  noopWrites: 5
`
}

// addAuditFiles scaffolds the gate's policy, kind configuration and
// budget, leaving the ones the project has.
func addAuditFiles(universe map[string]string, projectName string, out files) {
	for name, content := range map[string]string{
		auditPolicyFile: audit.Policy,
		auditKindFile:   audit.KindConfig("./" + auditPolicyFile),
		auditBudgetFile: auditBudget(projectName),
	} {
		if _, ok := universe[name]; !ok {
			out[name] = content
		}
	}
}
