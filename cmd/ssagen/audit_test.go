package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ssagen/ssagen/audit"
)

const auditLine = `{"apiVersion":"audit.k8s.io/v1","kind":"Event","level":"RequestResponse","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/ns/configmaps","verb":"create","user":{"username":"op"},"userAgent":"op/v1","objectRef":{"resource":"configmaps","namespace":"ns","name":"a","apiVersion":"v1"},"responseStatus":{"code":409},"stageTimestamp":"2026-11-25T10:00:00.000000Z"}`

func TestAuditCommand(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.log")
	bad := filepath.Join(dir, "bad.log")
	os.WriteFile(good, []byte(auditLine+"\n"), 0o644)
	os.WriteFile(bad, []byte(auditLine+"\n{\"kind\":\"Pod\"}\n"+auditLine[:50]), 0o644)
	html := filepath.Join(dir, "report.html")
	budget, loose, badBudget := filepath.Join(dir, "budget.yaml"), filepath.Join(dir, "loose.yaml"), filepath.Join(dir, "bad.yaml")
	os.WriteFile(budget, []byte("limits:\n- writer: op\n  conflicts: 0\n"), 0o644)
	os.WriteFile(loose, []byte("limits:\n- writer: op\n  conflicts: 5\n"), 0o644)
	os.WriteFile(badBudget, []byte("limits:\n- writer: op\n"), 0o644)
	clean := filepath.Join(dir, "clean.json")
	os.WriteFile(clean, nil, 0o644)
	for _, tc := range []struct {
		args      []string
		code      int
		out, errs string
	}{
		{[]string{good}, 0, "op      op/v1  -        configmaps  create  1         1    1.0", ""},
		{[]string{"--json", good}, 0, `"conflicts":1`, ""},
		{[]string{"--html", html, good}, 0, "configmaps", ""},
		{[]string{bad}, 3, "configmaps", "skipped " + bad + ":2: apiVersion \"\" kind \"Pod\""},
		{[]string{bad}, 3, "", bad + ":3: the last line is cut short"},
		{[]string{filepath.Join(dir, "missing.log")}, 1, "", "no such file"},
		{[]string{"--since", "yesterday", good}, 2, "", "want an RFC 3339 time"},
		{nil, 2, "", "Usage: ssagen audit"},
		{[]string{"--budget", budget, good}, 4, "over budget: create configmaps by op (-): 1 409s, over the limit of 0 (limits[0])", ""},
		{[]string{"--budget", loose, good}, 0, "configmaps", ""},
		{[]string{"--budget", badBudget, good}, 2, "", "limits[0] limits nothing"},
		{[]string{"--baseline", clean, good}, 4, "regressed: create configmaps by op (-): 1 wasted requests, 0 in the baseline", ""},
		{[]string{"--markdown", "--budget", budget, good}, 4, "**Over budget** (1):", ""},
	} {
		var stdout, stderr bytes.Buffer
		code := auditCmd(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.out) || !strings.Contains(stderr.String(), tc.errs) {
			t.Errorf("ssagen audit %v: exit %d\n%s%s\nwant exit %d, %q, %q", tc.args, code, stdout.String(), stderr.String(), tc.code, tc.out, tc.errs)
		}
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "<svg") {
		t.Errorf("--html wrote %d bytes: %v", len(b), err)
	}
	if d, _ := parseSince("90m", time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)); !d.Equal(time.Date(2026, 11, 25, 10, 30, 0, 0, time.UTC)) {
		t.Errorf("-since 90m: %v", d)
	}
}

// TestAuditSource: --source joins a costly row to the vet finding behind
// it by the kind the finding carries as data (issue 32): the example
// operator's Role creates that 409 and its Project status updates that
// 409 each name their line, and no row is left unexplained.
func TestAuditSource(t *testing.T) {
	line := func(uri, group, resource, sub, verb string) string {
		return `{"apiVersion":"audit.k8s.io/v1","kind":"Event","level":"RequestResponse","stage":"ResponseComplete","requestURI":"` + uri + `","verb":"` + verb +
			`","user":{"username":"op"},"userAgent":"op/v1","objectRef":{"resource":"` + resource + `","subresource":"` + sub + `","namespace":"ns","name":"a","apiGroup":"` + group +
			`","apiVersion":"v1"},"responseStatus":{"code":409},"stageTimestamp":"2026-11-25T10:00:00.000000Z"}` + "\n"
	}
	log := filepath.Join(t.TempDir(), "audit.log")
	os.WriteFile(log, []byte(line("/apis/rbac.authorization.k8s.io/v1/namespaces/ns/roles", "rbac.authorization.k8s.io", "roles", "", "create")+
		line("/apis/platform.example.com/v1/projects/a/status", "platform.example.com", "projects", "status", "update")), 0o644)
	var stdout, stderr bytes.Buffer
	code := auditCmd([]string{"--source", "../../examples/unfixed", log}, strings.NewReader(""), &stdout, &stderr)
	out := stdout.String()
	if code != 0 || strings.Contains(out, "no finding of ssagen vet") {
		t.Fatalf("ssagen audit --source: exit %d\n%s%s", code, out, stderr.String())
	}
	for _, want := range []string{"controller.go:35:10 create-update", "controller.go:44:9 status-update"} {
		if !strings.Contains(out, want) {
			t.Errorf("ssagen audit --source names no %s:\n%s", want, out)
		}
	}
}

// TestAuditServeCommand: flags, the webhook kubeconfig, and a server that
// counts what it was posted and stops cleanly when told.
func TestAuditServeCommand(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		code      int
		out, errs string
	}{
		{[]string{"serve", "--print-webhook-config", "http://10.0.0.1:8443/audit"}, 0, `server: "http://10.0.0.1:8443/audit"`, ""},
		{[]string{"serve", "--tls-cert-file", "x.crt"}, 2, "", "--tls-cert-file and --tls-private-key-file go together"},
		{[]string{"serve", "extra"}, 2, "", "unexpected arguments"},
		{[]string{"serve", "--budget", "missing.yaml"}, 2, "", "--budget missing.yaml"},
		{[]string{"serve", "--listen", "256.0.0.1:1"}, 1, "", "ssagen audit serve:"},
	} {
		var stdout, stderr bytes.Buffer
		code := auditCmd(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.out) || !strings.Contains(stderr.String(), tc.errs) {
			t.Errorf("ssagen audit %v: exit %d\n%s%s\nwant exit %d, %q, %q", tc.args, code, stdout.String(), stderr.String(), tc.code, tc.out, tc.errs)
		}
	}

	s, addr, stop := startServe(t, "", "")
	resp, err := http.Post("http://"+addr+"/audit", "application/json", strings.NewReader(auditBatch))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if code, stderr := stop(); code != 0 || resp.StatusCode != http.StatusOK {
		t.Fatalf("serve: exit %d, post %d\n%s", code, resp.StatusCode, stderr)
	}
	// What was taken before the stop is counted, held or not.
	if rep := s.Report(); len(rep.Rows) != 1 || rep.Rows[0].Conflicts != 1 {
		t.Errorf("counted %+v", rep.Rows)
	}
}

// TestAuditServeTLS: serve over HTTPS with --tls-cert-file and
// --tls-private-key-file, as an API server's webhook reaches it in a
// cluster; the kubeconfig --print-webhook-config writes names the CA.
func TestAuditServeTLS(t *testing.T) {
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ssagen-audit"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)

	s, addr, stop := startServe(t, certFile, keyFile)
	pool := x509.NewCertPool()
	cert, _ := x509.ParseCertificate(der)
	pool.AddCert(cert)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	url := "https://" + addr + "/audit"
	resp, err := hc.Post(url, "application/json", strings.NewReader(auditBatch))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := http.Post(url, "application/json", strings.NewReader("{}")); err == nil {
		t.Errorf("a client that does not trust the CA was served")
	}
	if code, stderr := stop(); code != 0 || resp.StatusCode != http.StatusOK {
		t.Fatalf("serve over TLS: exit %d, post %d\n%s", code, resp.StatusCode, stderr)
	}
	if rep := s.Report(); len(rep.Rows) != 1 || rep.Rows[0].Conflicts != 1 {
		t.Errorf("counted %+v", rep.Rows)
	}
	var out, stderr bytes.Buffer
	if code := auditCmd([]string{"serve", "--print-webhook-config", url, "--webhook-ca", certFile}, nil, &out, &stderr); code != 0 ||
		!strings.Contains(out.String(), `certificate-authority: "`+certFile+`"`) || !strings.Contains(out.String(), `server: "`+url+`"`) {
		t.Errorf("--print-webhook-config with a CA:\n%s", out.String())
	}
}

// auditBatch is a webhook batch of auditLine.
const auditBatch = `{"apiVersion":"audit.k8s.io/v1","kind":"EventList","items":[` + auditLine + `]}`

// startServe runs serveAudit on a free local port (HTTPS with a
// certificate); stop stops it as SIGTERM does and returns its exit code
// and what it wrote on standard error.
func startServe(t *testing.T, certFile, keyFile string) (s *audit.Server, addr string, stop func() (int, string)) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s = audit.NewServer(audit.ServeOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	var stderr bytes.Buffer
	done := make(chan int)
	go func() { done <- serveAudit(ctx, ln, s, certFile, keyFile, &stderr) }()
	return s, ln.Addr().String(), func() (int, string) {
		cancel()
		code := <-done
		return code, stderr.String()
	}
}
