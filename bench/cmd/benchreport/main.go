// Command benchreport runs the write-pattern benchmarks on envtest and
// writes docs/benchmarks.md with its charts. `make bench` runs it.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/ssagen/ssagen/bench"
)

func main() {
	out := flag.String("out", "../docs/benchmarks.md", "the Markdown report to write")
	charts := flag.String("charts", "../docs/benchmarks", "the folder for the report's SVG charts")
	smoke := flag.Bool("smoke", false, "run the small configuration CI uses")
	micro := flag.String("micro", "", "`go test -bench` output of the ensure micro-benchmarks")
	stat := flag.String("benchstat", "", "benchstat's comparison of that output")
	command := flag.String("command", "make bench", "the command named in the report")
	save := flag.String("save", "../.cache/bench/results.json", "where to keep the measured results (\"\": nowhere)")
	from := flag.String("from", "", "render the report from results saved by an earlier run instead of measuring")
	removal := flag.Bool("removal", false, "with -from: measure the removal scenario again and keep the rest of the saved results")
	fleet := flag.String("fleet", "", "the rows ensure/mcensure's TestScale wrote to $SSAGEN_FLEET_OUT")
	flag.Parse()
	ctrl.SetLogger(logr.Discard())

	cfg := bench.Full
	if *smoke {
		cfg = bench.Smoke
	}
	var res *bench.Results
	if *from != "" {
		b, err := os.ReadFile(*from)
		if err != nil {
			fail(err)
		}
		res = &bench.Results{}
		if err := json.Unmarshal(b, res); err != nil {
			fail(fmt.Errorf("%s: %w", *from, err))
		}
	} else {
		var err error
		if res, err = bench.Run(context.Background(), cfg, os.Stderr); err != nil {
			fail(err)
		}
	}
	if *removal {
		if *from == "" {
			fail(fmt.Errorf("-removal needs -from"))
		}
		if err := bench.RunRemovals(context.Background(), res.Config, res, os.Stderr); err != nil {
			fail(err)
		}
	}
	if *micro != "" { // also with -from: new micro-benchmark figures beside saved patterns
		raw, err := os.ReadFile(*micro)
		if err != nil {
			fail(err)
		}
		res.MicroRaw = string(raw)
		res.Micro = res.MicroRaw
		if *stat != "" {
			s, err := os.ReadFile(*stat)
			if err != nil {
				fail(err)
			}
			res.Micro = string(s)
		}
	}
	if *fleet != "" { // also with -from
		b, err := os.ReadFile(*fleet)
		if err != nil {
			fail(err)
		}
		if err := json.Unmarshal(b, &res.Fleet); err != nil {
			fail(fmt.Errorf("%s: %w", *fleet, err))
		}
	}
	if *save != "" && (*from == "" || *micro != "" || *removal || *fleet != "") {
		b, err := json.MarshalIndent(res, "", " ")
		if err != nil {
			fail(err)
		}
		if err := os.MkdirAll(filepath.Dir(*save), 0o755); err != nil {
			fail(err)
		}
		if err := os.WriteFile(*save, b, 0o644); err != nil {
			fail(err)
		}
	}
	if err := bench.Report(res, machine(), *command, *out, *charts); err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "wrote %s and its charts in %s\n", *out, *charts)
	for _, t := range bench.Targets(res) {
		fmt.Fprintf(os.Stderr, "target %v: %s: %s\n", t.Met, t.Name, t.Value)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchreport:", err)
	os.Exit(1)
}

// machine describes this machine and the binaries the run used.
func machine() bench.Machine {
	m := bench.Machine{Cores: runtime.NumCPU(), Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	m.CPU = procField("/proc/cpuinfo", "model name")
	if kb, err := strconv.Atoi(strings.Fields(procField("/proc/meminfo", "MemTotal") + " 0")[0]); err == nil && kb > 0 {
		m.Memory = fmt.Sprintf("%.0f GiB RAM", float64(kb)/(1<<20))
	}
	if rel, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.OS += ", Linux " + strings.TrimSpace(string(rel))
	}
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	// Built from source without the release's ldflags, kube-apiserver
	// reports v0.0.0-master; hack/envtest-assets.sh names the folder
	// after the version it built.
	m.APIServer = filepath.Base(assets)
	m.Etcd = version(filepath.Join(assets, "etcd"), "--version")
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "sigs.k8s.io/controller-runtime" {
				m.ControllerRuntime = d.Version
			}
		}
	}
	return m
}

func procField(file, key string) string {
	f, err := os.Open(file)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// version is the version a binary prints: "v1.36.3" out of "Kubernetes
// v1.36.3", "3.6.7" out of "etcd Version: 3.6.7".
func version(bin string, args ...string) string {
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		return "unknown"
	}
	first := strings.SplitN(strings.TrimSpace(string(out)), "\n", 2)[0]
	f := strings.Fields(first)
	if len(f) == 0 {
		return "unknown"
	}
	return f[len(f)-1]
}
