// Command ssagen generates typed server-side-apply code for Kubernetes API
// types. See the README for the commands and their flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/ssagen/ssagen/generator"
	"github.com/ssagen/ssagen/generator/output"
	"github.com/ssagen/ssagen/vet"
	"github.com/ssagen/ssagen/vet/driver"
)

const usage = `ssagen generates typed server-side apply code for Kubernetes API types.

Usage:
  ssagen generate [flags] PACKAGES...   apply configurations (drop-in for applyconfiguration-gen) and EnsureX helpers
  ssagen vet [flags] PACKAGES...        find 409-prone write patterns (also: go vet -vettool=$(which ssagen))
  ssagen audit [flags] FILE...          who sends the 409s and no-op writes of an API server's audit log, and from which line
  ssagen audit serve [flags]            the same counts live, as the API server's audit webhook, in Prometheus metrics
  ssagen kubebuilder install            install the Kubebuilder plugin ssagen.io/v1-alpha

Run 'ssagen generate -h' for the flags.
`

func main() {
	args := os.Args[1:]
	// kubebuilder runs the installed copy as <plugins root>/ssagen.io/v1-alpha/ssagen.io.
	if filepath.Base(os.Args[0]) == "ssagen.io" {
		os.Exit(servePlugin(os.Stdin, os.Stdout, os.Stderr))
	}
	// go vet -vettool=ssagen runs the tool with -V=full, -flags, or a
	// .cfg file: the analysis driver answers those itself.
	if len(args) > 0 && (strings.HasPrefix(args[0], "-V") || args[0] == "-flags" || strings.HasSuffix(args[len(args)-1], ".cfg")) {
		multichecker.Main(vet.Analyzers...)
		return
	}
	if len(args) > 0 && args[0] == "vet" {
		os.Exit(driver.Main(args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(run(args, os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "generate":
		// The command owns its process: most of what a load parses is
		// garbage once its package is checked, and collecting it less
		// often saves about a tenth of a cold run. The generator library
		// changes no process-wide setting.
		defer debug.SetGCPercent(debug.SetGCPercent(400))
		return generate(args[1:], stdout, stderr)
	case "kubebuilder":
		return kubebuilderCmd(args[1:], os.Stdin, stdout, stderr)
	case "audit":
		return auditCmd(args[1:], os.Stdin, stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "ssagen: unknown command %q\n\n%s", args[0], usage)
	return 2
}

func generate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ssagen generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg generator.Config
	var verify, verbose bool
	fs.StringVar(&cfg.OutputDir, "output-dir", "", "folder to write the apply configurations to; without it, each package marked +kubebuilder:ac:generate=true is generated where controller-gen applyconfiguration writes it (<package>/applyconfiguration, or +kubebuilder:ac:output:package)")
	fs.StringVar(&cfg.OutputPkg, "output-pkg", "", "import path of --output-dir (default: derived from the nearest go.mod)")
	fs.StringVar(&cfg.HeaderFile, "go-header-file", "", "file whose text (a license) goes above the generated header")
	fs.StringVar(&cfg.External, "external-applyconfigurations", "", "comma-separated <type package>.<Type>:<apply configuration package> (or <type package>:<apply configuration package>) for types of other modules")
	fs.StringVar(&cfg.BuildTags, "tags", "", "build tags for loading the input packages")
	fs.BoolVar(&cfg.Ensure, "ensure", false, "also generate EnsureX helpers for every kind, in <group version>/ensure (imports controller-runtime)")
	fs.Func("ensure-kinds", "comma-separated kinds of other modules (k8s.io/api/rbac/v1.Role) that get Ensure helpers, in <package>/ensure of the output tree", func(v string) error {
		for _, k := range strings.Split(v, ",") {
			if k = strings.TrimSpace(k); k != "" {
				cfg.EnsureKinds = append(cfg.EnsureKinds, k)
			}
		}
		return nil
	})
	fs.BoolVar(&cfg.AllowDangerousTypes, "allow-dangerous-types", false, "accept float fields in CRD packages, as controller-gen's crd:allowDangerousTypes=true does")
	fs.StringVar(&cfg.Compat, "compat", "", "applyconfiguration-gen: the exported surface applyconfiguration-gen produces (named slices and maps of structs stay raw Go types), for projects that publish their apply configurations")
	fs.BoolVar(&cfg.Strict, "strict", false, "treat warnings about the input as errors")
	fs.BoolVar(&verify, "verify", false, "write nothing; exit 1 with a unified diff when the files on disk are stale")
	fs.BoolVar(&verbose, "v", false, "list the files written or deleted, and the apply configurations found for types of other modules")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: ssagen generate [flags] PACKAGES...\n\nPACKAGES are go list patterns resolved from the current module (dependencies included).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	cfg.Packages = fs.Args()
	cfg.Warnings = stderr
	if verbose {
		cfg.Log = stderr
	}
	sinkFor := func(dir string) output.Sink {
		if verify {
			return output.Verify{Dir: relOut(dir), Out: stdout}
		}
		d := output.Disk{Dir: dir}
		if verbose {
			d.Log = stderr
		}
		return d
	}
	if err := generator.GenerateTrees(cfg, sinkFor); err != nil {
		if errors.Is(err, output.ErrStale) {
			fmt.Fprintln(stderr, "ssagen:", err)
			return 1
		}
		fmt.Fprintln(stderr, "ssagen: "+err.Error())
		return 1
	}
	return 0
}

// relOut is an output folder relative to the working directory, for
// readable diffs.
func relOut(dir string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, dir); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return dir
}
