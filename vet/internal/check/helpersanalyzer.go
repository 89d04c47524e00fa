package check

import (
	"flag"
	"reflect"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
)

// HelpersAnalyzer resolves the generated helper packages the analysed
// packages may not import yet, for the analyzers that require it. A
// driver that knows the modules it analyses names them with its flags
// before the run (-modules: folders of the modules, comma-separated;
// -pkgs: helper import paths for every module); drivers that know
// nothing of ssagen (go vet -vettool, gopls) leave them empty, and the
// checks find helpers among each package's imports only.
//
// The helpers are found and type-checked once per setting of the flags,
// by this analyzer's first pass, and shared by every pass after it: the
// checks read only the result, never the file system.
var HelpersAnalyzer = &analysis.Analyzer{
	Name:       "ssagenhelpers",
	Doc:        "the generated helper packages ssagen vet's fixes may name (set by ssagen's drivers)",
	ResultType: reflect.TypeFor[*Helpers](),
	Run:        func(*analysis.Pass) (any, error) { return helpersConfig.resolve(), nil },
}

// helpersConfig is HelpersAnalyzer's flags and what they resolved to.
var helpersConfig = &helperFlags{}

func init() {
	HelpersAnalyzer.Flags.Var(listFlag{helpersConfig, &helpersConfig.dirs}, "modules", "folders of the modules whose generated helpers the fixes may name (comma-separated)")
	HelpersAnalyzer.Flags.Var(listFlag{helpersConfig, &helpersConfig.pkgs}, "pkgs", "import paths of further helper packages, for every module (comma-separated)")
}

type helperFlags struct {
	mu         sync.Mutex
	dirs, pkgs []string
	resolved   *Helpers // nil until the first pass after the flags were set
}

// UseHelpers sets what HelpersAnalyzer's flags set — the folders of the
// modules and further helper packages — from lists, so a folder may hold
// any character; what was resolved before is dropped.
func UseHelpers(dirs, pkgs []string) {
	f := helpersConfig
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dirs, f.pkgs, f.resolved = nonEmpty(dirs), nonEmpty(pkgs), nil
}

// nonEmpty is list without its empty and blank elements, trimmed.
func nonEmpty(list []string) []string {
	var out []string
	for _, e := range list {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// resolve returns the helpers the flags name, finding them once (nil
// when the flags name none).
func (f *helperFlags) resolve() *Helpers {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.dirs) == 0 && len(f.pkgs) == 0 {
		return nil
	}
	if f.resolved == nil {
		f.resolved = FindHelpers(f.dirs, f.pkgs)
	}
	return f.resolved
}

// listFlag is a comma-separated flag of helperFlags: setting it drops
// what the previous setting resolved to.
type listFlag struct {
	f    *helperFlags
	list *[]string
}

func (l listFlag) String() string {
	if l.f == nil {
		return ""
	}
	l.f.mu.Lock()
	defer l.f.mu.Unlock()
	return strings.Join(*l.list, ",")
}

func (l listFlag) Set(s string) error {
	l.f.mu.Lock()
	defer l.f.mu.Unlock()
	*l.list = nonEmpty(strings.Split(s, ","))
	l.f.resolved = nil
	return nil
}

var _ flag.Value = listFlag{}
