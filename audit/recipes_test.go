package audit_test

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/ssagen/ssagen/audit"
)

// examples are the recipe files of examples/audit, each the text the
// package gives (SSAGEN_UPDATE=1 writes them).
var examples = map[string]string{
	"audit-policy.yaml":   audit.Policy,
	"kind-config.yaml":    audit.KindConfig("./audit-policy.yaml"),
	"prometheusrule.yaml": audit.PrometheusRule,
	"webhook.kubeconfig":  audit.WebhookConfig("http://127.0.0.1:8443/audit", ""),
	"budget.yaml":         exampleBudget,
}

const exampleBudget = `# What an operator's e2e run may spend (ssagen audit --budget, docs/audit.md).
limits:
# The manager's service account: no 409, no Create → 409 → Update, and few
# writes that changed nothing (an apply sent while its cache lags its own
# last write is one).
- writer: "system:serviceaccount:*-system:*-controller-manager"
  conflicts: 0
  createConflictUpdate: 0
  noopWrites: 5
# And a ceiling on its requests per resource and verb.
- writer: "system:serviceaccount:*-system:*-controller-manager"
  requests: 500
`

func TestRecipeFiles(t *testing.T) {
	for name, want := range examples {
		path := filepath.Join("..", "examples", "audit", name)
		if os.Getenv("SSAGEN_UPDATE") != "" {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("%s differs from what package audit gives (SSAGEN_UPDATE=1 go test ./audit -run TestRecipeFiles): %v", path, err)
		}
		var v any
		if err := yaml.UnmarshalStrict([]byte(want), &v); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := audit.ParseBudget([]byte(exampleBudget)); err != nil {
		t.Errorf("budget.yaml: %v", err)
	}
}

// TestPrometheusRuleNamesServesMetrics: every metric the rules read is
// one ssagen audit serve exports.
func TestPrometheusRuleNamesServesMetrics(t *testing.T) {
	var rule struct {
		Spec struct {
			Groups []struct {
				Rules []struct {
					Alert, Expr string
				}
			}
		}
	}
	if err := yaml.Unmarshal([]byte(audit.PrometheusRule), &rule); err != nil {
		t.Fatal(err)
	}
	budget, err := audit.ParseBudget([]byte("limits:\n- conflicts: 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := audit.NewServer(audit.ServeOptions{Budget: budget})
	metrics := scrape(t, s, `{"apiVersion":"audit.k8s.io/v1","kind":"EventList","items":[`+
		`{"stage":"ResponseComplete","verb":"create","user":{"username":"op"},"objectRef":{"resource":"configmaps","name":"a"},"responseStatus":{"code":409}}]}`)
	names := regexp.MustCompile(`ssagen_audit_[a-z_]+`)
	n := 0
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			for _, name := range names.FindAllString(r.Expr, -1) {
				n++
				if !strings.Contains(metrics, "\n"+name+"{") && !strings.Contains(metrics, "\n"+name+" ") {
					t.Errorf("alert %s reads %s, which serve does not export", r.Alert, name)
				}
			}
		}
	}
	if n < 5 {
		t.Errorf("the rules read %d metrics", n)
	}
}

func scrape(t *testing.T, s *audit.Server, batch string) string {
	t.Helper()
	h := s.Handler()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/audit", strings.NewReader(batch)))
	if rec.Code != 200 {
		t.Fatalf("post: %d %s", rec.Code, rec.Body)
	}
	s.Flush()
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return "\n" + rec.Body.String()
}
