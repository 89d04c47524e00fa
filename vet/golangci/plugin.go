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

// BuildAnalyzers builds the analyzers once per golangci-lint run, with the
// generated helpers of the module it runs in, found before any pass: the
// passes read only their package, as golangci-lint's cache expects.
func (plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return vet.New(vet.FindHelpers([]string{wd}, nil)), nil
}

// GetLoadMode asks for type information: the analyzers match calls by type.
func (plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
