package bench

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/ssagen/ssagen/audit"
	"github.com/ssagen/ssagen/internal/testenv"
)

// auditVerbs are the audit log's verbs for the requests the benchmark
// counts (an apply is a patch there).
var auditVerbs = map[string]string{"GET": "get", "POST": "create", "PUT": "update", "PATCH": "patch", "APPLY": "patch", "DELETE": "delete"}

// TestAuditAgrees runs the projects scenario for every write pattern on an
// API server writing an audit log, and checks that ssagen audit reports,
// for the controller, exactly what the benchmark counted itself: requests
// by verb and resource (the five child kinds and the Projects' status),
// 409s, and the child writes that changed nothing (the benchmark's are its
// update and patch answers 200 less the resourceVersion changes its
// informers saw).
func TestAuditAgrees(t *testing.T) {
	testenv.Require(t)
	ctrl.SetLogger(logr.Discard())
	children := map[string]bool{"roles": true, "rolebindings": true, "serviceaccounts": true, "clusterroles": true, "clusterrolebindings": true}
	for _, p := range Patterns {
		name := p.Name
		t.Run(name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "audit.log")
			res, err := RunProjects(context.Background(), p, 3, 2, 2, AuditLog(log))
			if err != nil {
				t.Fatal(err)
			}
			want, wantConflicts := map[string]int{}, map[string]int{}
			okWrites, bumps := 0, res.Initial.Bumps+res.Resync.Bumps+res.Change.Bumps
			for k, n := range sum(res.Initial, res.Resync, res.Change).Requests {
				verb, ok := auditVerbs[k.Verb]
				if !ok || !(children[k.Resource] || k.Resource == "projects/status") {
					continue
				}
				want[verb+" "+k.Resource] += n
				if k.Code == 409 {
					wantConflicts[verb+" "+k.Resource] += n
				}
				if (verb == "update" || verb == "patch") && k.Code == 200 && children[k.Resource] {
					okWrites += n
				}
			}
			wantNoops := okWrites - bumps

			var agg audit.Aggregator
			if err := audit.ReadFile(log, agg.Add, func(s audit.Skip) { t.Errorf("skipped %s", s) }); err != nil {
				t.Fatal(err)
			}
			got, gotConflicts := map[string]int{}, map[string]int{}
			gotNoops, undecided, ccu := 0, 0, 0
			for _, r := range agg.Report().Rows {
				resource := r.Resource
				if r.Subresource != "" {
					resource += "/" + r.Subresource
				}
				if r.UserAgent != UserAgent(p) || !(children[resource] || resource == "projects/status") || r.Verb == "list" || r.Verb == "watch" {
					continue
				}
				got[r.Verb+" "+resource] += r.Requests
				if r.Conflicts > 0 {
					gotConflicts[r.Verb+" "+resource] += r.Conflicts
				}
				if children[resource] {
					gotNoops += r.NoopWrites
					undecided += r.Undecided
				}
				ccu += r.CreateConflictUpdate
			}
			if !equal(got, want) {
				t.Errorf("requests: audit %v, benchmark %v", got, want)
			}
			if !equal(gotConflicts, wantConflicts) {
				t.Errorf("409s: audit %v, benchmark %v", gotConflicts, wantConflicts)
			}
			if gotNoops != wantNoops || undecided != 0 {
				t.Errorf("writes that changed nothing: audit %d (%d undecided), benchmark %d (%d update/patch answered 200, %d resourceVersion changes)",
					gotNoops, undecided, wantNoops, okWrites, bumps)
			}
			// Create → AlreadyExists → Update is the create-update pattern:
			// every unchanged resync of every child is one.
			if (name == "create-update") != (ccu > 0) {
				t.Errorf("Create → 409 → Update sequences: %d", ccu)
			}
			// The CI gate: a budget of no 409, no write that changed
			// nothing and no Create → 409 → Update for the controller
			// passes the ensure pattern and fails create-update.
			budget, err := audit.ParseBudget([]byte("limits:\n- writer: " + UserAgent(p) + "\n  conflicts: 0\n  noopWrites: 0\n  createConflictUpdate: 0\n"))
			if err != nil {
				t.Fatal(err)
			}
			over := budget.Check(agg.Report())
			if name == "ensure" && len(over) > 0 || name == "create-update" && len(over) == 0 {
				t.Errorf("over budget: %v", over)
			}
			t.Logf("%s: %d requests, %d 409s, %d writes that changed nothing, %d Create → 409 → Update", name, sumOf(got), sumOf(gotConflicts), gotNoops, ccu)
		})
	}
}

func sumOf(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
