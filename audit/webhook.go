package audit

import (
	"fmt"
	"strconv"
)

// WebhookConfig is the kubeconfig the API server's
// --audit-webhook-config-file reads: one cluster, the URL of ssagen audit
// serve's /audit endpoint. An https URL needs the CA that signed serve's
// certificate (certificate-authority); "" leaves it out, for http.
func WebhookConfig(url, certificateAuthority string) string {
	ca := ""
	if certificateAuthority != "" {
		ca = "\n    certificate-authority: " + strconv.Quote(certificateAuthority)
	}
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: ssagen-audit
  cluster:
    server: %s%s
contexts:
- name: ssagen-audit
  context:
    cluster: ssagen-audit
    user: api-server
users:
- name: api-server
current-context: ssagen-audit
`, strconv.Quote(url), ca)
}
