// Command run starts kube-apiserver and etcd (envtest, KUBEBUILDER_ASSETS),
// runs the example operator through the seed scenarios and prints what it
// cost. `make example` builds the binaries and runs it.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/ssagen/ssagen/examples/controller"
)

func main() {
	env := &envtest.Environment{CRDDirectoryPaths: []string{filepath.Join("examples", "config", "crd")}, ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting envtest (run `make example`, which sets KUBEBUILDER_ASSETS):", err)
		os.Exit(1)
	}
	_, err = controller.Run(context.Background(), cfg, 10, os.Stdout)
	env.Stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
