package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/ssagen/ssagen/kubebuilder"
)

const kubebuilderUsage = `Usage:
  ssagen kubebuilder install [-dir DIR]   put this ssagen where kubebuilder finds the plugin ssagen.io/v1-alpha
  ssagen kubebuilder plugin               answer one kubebuilder plugin request (JSON) from standard input

Then: kubebuilder init --plugins go/v4,ssagen.io/v1-alpha ...
`

// kubebuilderCmd is ssagen kubebuilder.
func kubebuilderCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, kubebuilderUsage)
		return 2
	}
	switch args[0] {
	case "install":
		fs := flag.NewFlagSet("ssagen kubebuilder install", flag.ContinueOnError)
		fs.SetOutput(stderr)
		dir := fs.String("dir", "", "the plugins root (default: $EXTERNAL_PLUGINS_PATH, else where kubebuilder looks on this system)")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
		}
		if fs.NArg() > 0 {
			fmt.Fprintf(stderr, "ssagen kubebuilder install: unexpected argument %q\n", fs.Arg(0))
			return 2
		}
		root := *dir
		if root == "" {
			home, _ := os.UserHomeDir()
			var err error
			if root, err = kubebuilder.PluginsRoot(runtime.GOOS, os.Getenv, home); err != nil {
				fmt.Fprintln(stderr, "ssagen kubebuilder install:", err)
				return 1
			}
		}
		exe, err := os.Executable()
		if err == nil {
			exe, err = kubebuilder.Install(exe, root)
		}
		if err != nil {
			fmt.Fprintln(stderr, "ssagen kubebuilder install:", err)
			return 1
		}
		fmt.Fprintf(stdout, "installed %s as %s\n", kubebuilder.Key, exe)
		if os.Getenv("EXTERNAL_PLUGINS_PATH") != "" && *dir == "" {
			fmt.Fprintln(stdout, "(under $EXTERNAL_PLUGINS_PATH: keep it set when you run kubebuilder)")
		} else if *dir != "" {
			fmt.Fprintf(stdout, "run kubebuilder with EXTERNAL_PLUGINS_PATH=%s\n", root)
		}
		return 0
	case "plugin":
		return servePlugin(stdin, stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, kubebuilderUsage)
		return 0
	}
	fmt.Fprintf(stderr, "ssagen kubebuilder: unknown command %q\n\n%s", args[0], kubebuilderUsage)
	return 2
}

// servePlugin answers kubebuilder: one request on stdin, one response on
// stdout; errors travel in the response.
func servePlugin(stdin io.Reader, stdout, stderr io.Writer) int {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if err := kubebuilder.Serve(stdin, stdout, kubebuilder.Env{Dir: wd, Version: kubebuilder.BuildVersion(), Stderr: stderr}); err != nil {
		fmt.Fprintln(stderr, "ssagen.io:", err)
		return 1
	}
	return 0
}
