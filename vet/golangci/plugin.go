// Package golangci registers ssagen vet's analyzers as a golangci-lint
// module plugin (see docs/vet.md for .custom-gcl.yml and .golangci.yml).
package golangci

import (
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

func (plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) { return vet.Analyzers, nil }

// GetLoadMode asks for type information: the analyzers match calls by type.
func (plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
