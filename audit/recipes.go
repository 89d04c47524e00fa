package audit

import "strings"

// KindConfig is a kind cluster configuration whose API server writes the
// audit log ssagen audit reads, with Policy mounted from policyPath (a
// path on the machine running kind, relative to where kind runs). The
// log is then /var/log/kubernetes/kube-apiserver-audit.log in the
// control-plane node: `docker exec <cluster>-control-plane cat …`. It
// follows kind's auditing guide.
func KindConfig(policyPath string) string {
	return strings.Replace(`# A kind cluster whose API server writes an audit log for ssagen audit
# (docs/audit.md). kind create cluster --config this-file, from the folder
# the policy's hostPath below is relative to; the log is
# /var/log/kubernetes/kube-apiserver-audit.log in the control-plane node.
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
nodes:
- role: control-plane
  kubeadmConfigPatches:
  - |
    kind: ClusterConfiguration
    apiServer:
      extraArgs:
        audit-log-path: /var/log/kubernetes/kube-apiserver-audit.log
        audit-policy-file: /etc/kubernetes/policies/audit-policy.yaml
        audit-log-format: json
      extraVolumes:
      - name: audit-policies
        hostPath: /etc/kubernetes/policies
        mountPath: /etc/kubernetes/policies
        readOnly: true
        pathType: DirectoryOrCreate
      - name: audit-logs
        hostPath: /var/log/kubernetes
        mountPath: /var/log/kubernetes
        readOnly: false
        pathType: DirectoryOrCreate
  extraMounts:
  - hostPath: POLICY
    containerPath: /etc/kubernetes/policies/audit-policy.yaml
    readOnly: true
`, "POLICY", policyPath, 1)
}

// PrometheusRule alerts on ssagen audit serve's metrics: a budget passed
// (ssagen_audit_over_budget, exported while a counter of the budget's
// window is over its limit), and serve itself dropping or refusing
// batches.
const PrometheusRule = `# Alerts on ssagen audit serve's metrics (docs/audit.md).
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: ssagen-audit
spec:
  groups:
  - name: ssagen-audit
    rules:
    - alert: WriterOverBudget
      # serve --budget: a writer's 409s, no-op writes, Create → 409 → Update
      # or requests over their limit in --budget-window.
      expr: max by (user, user_agent, field_manager, group, resource, subresource, verb, counter, limit) (ssagen_audit_over_budget) > 0
      for: 5m
      labels:
        severity: warning
      annotations:
        summary: '{{ $labels.user }} ({{ $labels.user_agent }}) spends {{ $value }} {{ $labels.counter }} on {{ $labels.verb }} {{ $labels.resource }}, over limits[{{ $labels.limit }}] of the budget'
        description: 'ssagen audit --source ./... on the writer''s code names the line behind it and its fix.'
    - alert: WriterConflicts
      # Without a budget: any writer answered 409 steadily.
      expr: sum by (user, user_agent, resource, verb) (rate(ssagen_audit_conflicts_total[10m])) * 60 > 1
      for: 15m
      labels:
        severity: info
      annotations:
        summary: '{{ $labels.user }} gets {{ $value | humanize }} 409 Conflicts a minute on {{ $labels.verb }} {{ $labels.resource }}'
    - alert: AuditWebhookDropping
      # serve sheds load: its counts miss events.
      expr: rate(ssagen_audit_events_dropped_total[5m]) > 0 or rate(ssagen_audit_batches_total{result="shed"}[5m]) > 0
      for: 10m
      labels:
        severity: warning
      annotations:
        summary: 'ssagen audit serve drops audit batches: raise --max-queued, or give it more CPU'
    - alert: AuditWebhookRejecting
      expr: sum by (reason) (rate(ssagen_audit_batches_rejected_total[5m])) > 0
      for: 10m
      labels:
        severity: warning
      annotations:
        summary: 'ssagen audit serve refuses batches ({{ $labels.reason }}): check the API server''s --audit-webhook-version and --audit-webhook-truncate-max-batch-size'
`
