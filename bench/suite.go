package bench

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Config sizes a benchmark run.
type Config struct {
	// Projects are the P values of the "projects" scenario.
	Projects []int
	// Resyncs is K, the unchanged resyncs per P.
	Resyncs int
	// Proxies and Sandboxes are the sizes of the other two scenarios.
	Proxies, Sandboxes int
	// Workers is every controller's MaxConcurrentReconciles.
	Workers int
	// Patterns to run (nil: all).
	Patterns []Pattern `json:"-"`
}

// Full is what `make bench` runs.
var Full = Config{Projects: []int{10, 100, 1000}, Resyncs: 3, Proxies: 20, Sandboxes: 10, Workers: 4}

// Smoke is the small run CI makes to check the report is produced.
var Smoke = Config{Projects: []int{5}, Resyncs: 1, Proxies: 2, Sandboxes: 2, Workers: 2}

// Results is everything a run measured.
type Results struct {
	Config   Config
	Projects []*ProjectsResult
	Proxy    []*ProxyResult
	Sandbox  []*SandboxResult
	Removal  []*RemovalResult
	// Micro is benchstat's comparison of the per-call micro-benchmarks
	// ("" when they were not run).
	Micro string
	// MicroRaw is the `go test -bench` output benchstat read.
	MicroRaw string
	// Fleet is ensure/mcensure's TestScale, one row per fleet size (nil
	// when it was not run).
	Fleet []FleetRow
	// Took is the run's wall time.
	Took time.Duration
}

// FleetRow is one fleet size of ensure/mcensure's TestScale, as it
// writes them to $SSAGEN_FLEET_OUT: heap per engaged cluster, per
// remembered object (with the fake API server's stored copy), freed per
// cluster on disengage; requests of an unchanged resync of every child;
// engage and disengage time per cluster.
type FleetRow struct {
	Clusters       int
	PerCluster     float64
	PerObject      float64
	Freed          float64
	ResyncRequests int
	Engage         time.Duration
	Disengage      time.Duration
}

// Run runs every scenario for every pattern, logging progress to log.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Results, error) {
	patterns := cfg.Patterns
	if patterns == nil {
		patterns = Patterns
	}
	start := time.Now()
	res := &Results{Config: cfg}
	for _, p := range patterns {
		for _, n := range cfg.Projects {
			t := time.Now()
			r, err := RunProjects(ctx, p, n, cfg.Resyncs, cfg.Workers)
			if err != nil {
				return nil, fmt.Errorf("projects P=%d, %s: %w", n, p.Name, err)
			}
			fmt.Fprintf(log, "projects P=%-4d %-16s resync %s (%s)\n", n, p.Name, r.Resync.Requests.ByVerbCode(NotWatch), time.Since(t).Round(time.Second))
			res.Projects = append(res.Projects, r)
		}
		t := time.Now()
		pr, err := RunProxy(ctx, p, cfg.Proxies, cfg.Workers)
		if err != nil {
			return nil, fmt.Errorf("proxy, %s: %w", p.Name, err)
		}
		fmt.Fprintf(log, "proxy  N=%-4d %-16s %s (%s)\n", cfg.Proxies, p.Name, pr.Measure.Requests.ByVerbCode(NotWatch), time.Since(t).Round(time.Second))
		res.Proxy = append(res.Proxy, pr)
		t = time.Now()
		sr, err := RunSandbox(ctx, p, cfg.Sandboxes, cfg.Workers)
		if err != nil {
			return nil, fmt.Errorf("sandbox, %s: %w", p.Name, err)
		}
		fmt.Fprintf(log, "sandbox N=%-3d %-16s %s (%s)\n", cfg.Sandboxes, p.Name, sr.Start.Requests.ByVerbCode(NotWatch), time.Since(t).Round(time.Second))
		res.Sandbox = append(res.Sandbox, sr)
	}
	if err := RunRemovals(ctx, cfg, res, log); err != nil {
		return nil, err
	}
	res.Took = time.Since(start)
	return res, nil
}

// RunRemovals runs the removal methods on the "projects" scenario at every
// P, replacing res.Removal.
func RunRemovals(ctx context.Context, cfg Config, res *Results, log io.Writer) error {
	res.Removal = nil
	for _, m := range Removals {
		for _, n := range cfg.Projects {
			t := time.Now()
			r, err := RunRemoval(ctx, m, n, cfg.Workers)
			if err != nil {
				return fmt.Errorf("removal P=%d, %s: %w", n, m.Name, err)
			}
			fmt.Fprintf(log, "removal P=%-4d %-16s drop %s; delete %s; %d leaked (%s)\n", n, m.Name,
				r.Drop.Requests.ByVerbCode(NotWatch), r.Delete.Requests.ByVerbCode(NotWatch), r.Leaked, time.Since(t).Round(time.Second))
			res.Removal = append(res.Removal, r)
		}
	}
	return nil
}
