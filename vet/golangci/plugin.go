// Package golangci registers ssagen vet's analyzers as a golangci-lint
// module plugin (see docs/vet.md for .custom-gcl.yml and .golangci.yml).
package golangci

import (
	"os"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/ssagen/ssagen/vet"
)

func init() {
	register.Plugin("ssagenvet", New)
}

// New returns the plugin; it takes no settings.
func New(any) (register.LinterPlugin, error) { return plugin{}, nil }

type plugin struct{}

// BuildAnalyzers hands golangci-lint ssagen vet's analyzers, once per
// run, and names the module it runs in as the one whose generated helpers
// the fixes may name (vet.UseHelpers): they are found once, by the first
// pass that asks, and the passes read only their package.
func (plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	vet.UseHelpers([]string{wd}, nil)
	return vet.Analyzers, nil
}

// GetLoadMode asks for type information: the analyzers match calls by type.
func (plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
