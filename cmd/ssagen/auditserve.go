package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ssagen/ssagen/audit"
)

const auditServeUsage = `Usage: ssagen audit serve [flags]

Receives the API server's audit events as its webhook backend
(--audit-webhook-config-file; batch mode, audit.k8s.io/v1) and counts
them as ssagen audit counts a log: 409s, writes that changed nothing,
Create -> 409 -> Update sequences and requests, per writer x resource x verb.

  POST /audit        the webhook (--print-webhook-config writes its kubeconfig)
  GET  /metrics      Prometheus metrics (ssagen_audit_*; docs/audit.md)
  GET  /             the page: a chart per writer and the table
  GET  /report.json  the report, as ssagen audit --json writes it (a --baseline)
  GET  /healthz

It never holds the API server up: a batch is answered as soon as it is
queued, and dropped (counted, still answered 200) when the queue is full.
Bad batches get a 4xx with the reason. Counts start over at a restart.

Flags:
`

func auditServeCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ssagen audit serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", ":8443", "the address to listen on")
	certFile := fs.String("tls-cert-file", "", "serve HTTPS with this certificate (and --tls-private-key-file)")
	keyFile := fs.String("tls-private-key-file", "", "the certificate's key")
	budgetFile := fs.String("budget", "", "a budget file (as ssagen audit --budget): exported as ssagen_audit_over_budget over --budget-window")
	budgetWindow := fs.Duration("budget-window", audit.DefaultBudgetWindow, "the span the budget counts")
	maxBody := fs.Int64("max-body", audit.DefaultMaxBodyBytes, "the largest batch accepted, in bytes (413 past it)")
	maxQueued := fs.Int("max-queued", audit.DefaultMaxQueued, "events received and not yet counted; a batch past it is dropped and counted")
	maxObjects := fs.Int("max-objects", audit.DefaultMaxObjects, "objects whose last resourceVersion is kept (the least recently written is forgotten past it)")
	maxRows := fs.Int("max-rows", audit.DefaultMaxRows, "rows (writer x resource x verb) kept; past it new writers are counted together")
	hold := fs.Duration("hold", audit.DefaultHold, "how long events wait before they are counted, so that concurrent batches are counted in order")
	printConfig := fs.String("print-webhook-config", "", "print the API server's webhook kubeconfig for this URL of serve (http://host:8443/audit) and exit")
	caFile := fs.String("webhook-ca", "", "with --print-webhook-config, the CA of serve's certificate")
	fs.Usage = func() {
		fmt.Fprint(stderr, auditServeUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ssagen audit serve: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if *printConfig != "" {
		fmt.Fprint(stdout, audit.WebhookConfig(*printConfig, *caFile))
		return 0
	}
	if (*certFile == "") != (*keyFile == "") {
		fmt.Fprintln(stderr, "ssagen audit serve: --tls-cert-file and --tls-private-key-file go together")
		return 2
	}
	opt := audit.ServeOptions{MaxBodyBytes: *maxBody, MaxQueued: *maxQueued, MaxObjects: *maxObjects, MaxRows: *maxRows, Hold: *hold, BudgetWindow: *budgetWindow}
	if *budgetFile != "" {
		data, err := os.ReadFile(*budgetFile)
		if err == nil {
			opt.Budget, err = audit.ParseBudget(data)
		}
		if err != nil {
			fmt.Fprintf(stderr, "ssagen audit serve: --budget %s: %v\n", *budgetFile, err)
			return 2
		}
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(stderr, "ssagen audit serve: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serveAudit(ctx, ln, audit.NewServer(opt), *certFile, *keyFile, stderr)
}

// serveAudit serves until ctx is done, then stops taking batches and
// counts the ones taken.
func serveAudit(ctx context.Context, ln net.Listener, s *audit.Server, certFile, keyFile string, stderr io.Writer) int {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		ErrorLog: log.New(stderr, "ssagen audit serve: ", 0)}
	counted := make(chan struct{})
	runCtx, stopRun := context.WithCancel(context.Background())
	go func() { s.Run(runCtx); close(counted) }()
	served := make(chan error, 1)
	go func() {
		if certFile != "" {
			served <- srv.ServeTLS(ln, certFile, keyFile)
		} else {
			served <- srv.Serve(ln)
		}
	}()
	fmt.Fprintf(stderr, "ssagen audit serve: listening on %s (webhook at /audit, metrics at /metrics)\n", ln.Addr())
	code := 0
	select {
	case err := <-served:
		fmt.Fprintf(stderr, "ssagen audit serve: %v\n", err)
		code = 1
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		srv.Shutdown(shut)
		cancel()
	}
	stopRun()
	<-counted
	return code
}
