// Package vettest is what the analyzers' tests share: the fixtures'
// GOPATH root, vet/testdata, one package per analyzer below src/.
package vettest

import (
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
)

// TestData is the absolute path of vet/testdata.
func TestData() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata")
}

// Run checks a's diagnostics on the fixture package pkg against its
// `// want` comments.
func Run(t *testing.T, a *analysis.Analyzer, pkg string) []*analysistest.Result {
	t.Helper()
	return analysistest.Run(t, TestData(), a, pkg)
}

// RunWithSuggestedFixes is Run, also comparing the fixed files with their
// .golden files.
func RunWithSuggestedFixes(t *testing.T, a *analysis.Analyzer, pkg string) []*analysistest.Result {
	t.Helper()
	if *update {
		results := analysistest.Run(t, TestData(), a, pkg)
		writeGoldens(t, results)
		return results
	}
	return analysistest.RunWithSuggestedFixes(t, TestData(), a, pkg)
}
