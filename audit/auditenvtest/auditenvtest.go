// Package auditenvtest has an envtest API server write the audit events
// ssagen audit reads: to a log file, to ssagen audit serve as its
// webhook, or both. It is the recipe of docs/audit.md for operators whose
// e2e or integration tests run on envtest:
//
//	env := &envtest.Environment{CRDDirectoryPaths: ...}
//	logPath, err := auditenvtest.Configure(env, auditenvtest.Options{Dir: t.TempDir()})
//	cfg, err := env.Start()
//	... the tests ...
//	env.Stop() // flushes the log
//	// ssagen audit --budget .ssagen-budget.yaml --source ./... <logPath>
package auditenvtest

import (
	"cmp"
	"os"
	"path/filepath"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/ssagen/ssagen/audit"
)

// Options say where the events go.
type Options struct {
	// Dir holds the policy, the log and the webhook's kubeconfig.
	Dir string
	// Policy is the audit policy; audit.Policy (the smallest that gives
	// every number of the report) when empty.
	Policy string
	// NoLog leaves the log backend off (the webhook alone).
	NoLog bool
	// WebhookURL is ssagen audit serve's /audit endpoint; empty, no
	// webhook. The webhook runs in batch mode, as in a cluster.
	WebhookURL string
	// BatchMaxWait is the longest the API server holds a webhook batch
	// (its --audit-webhook-batch-max-wait); 1s when zero, so that a test
	// sees its events soon.
	BatchMaxWait time.Duration
}

// Configure sets env's API server flags for the audit backends of o,
// before env.Start, and returns the log's path ("" with NoLog).
func Configure(env *envtest.Environment, o Options) (logPath string, err error) {
	policy := filepath.Join(o.Dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(cmp.Or(o.Policy, audit.Policy)), 0o644); err != nil {
		return "", err
	}
	args := env.ControlPlane.GetAPIServer().Configure()
	args.Set("audit-policy-file", policy)
	if !o.NoLog {
		logPath = filepath.Join(o.Dir, "audit.log")
		args.Set("audit-log-path", logPath).Set("audit-log-format", "json")
	}
	if o.WebhookURL != "" {
		kubeconfig := filepath.Join(o.Dir, "audit-webhook.kubeconfig")
		if err := os.WriteFile(kubeconfig, []byte(audit.WebhookConfig(o.WebhookURL, "")), 0o600); err != nil {
			return "", err
		}
		args.Set("audit-webhook-config-file", kubeconfig).
			Set("audit-webhook-mode", "batch").
			Set("audit-webhook-batch-max-wait", cmp.Or(o.BatchMaxWait, time.Second).String())
	}
	return logPath, nil
}
