package kubebuilder

import (
	"errors"
	"regexp"
	"slices"
	"strings"
)

// The lines the plugin adds to a go/v4 Makefile. SSAGEN_FLAGS is where
// the output goes: pkg/applyconfiguration for a project that had no apply
// configurations, nothing (controller-gen's layout, <package>/applyconfiguration)
// for one whose Makefile ran controller-gen applyconfiguration, so that
// the imports of its code stay valid.
const (
	makefileVars = `# ssagen (ssagen.io/v1-alpha): typed apply configurations and EnsureX helpers.
# SSAGEN_ENSURE_KINDS are the kinds of other modules the controllers ensure.
SSAGEN ?= go tool -modfile=tools.mod ssagen
SSAGEN_ENSURE_KINDS ?=
SSAGEN_FLAGS ?=%s

`
	makefileStep  = "\ttest ! -d api || $(SSAGEN) generate --ensure $(if $(SSAGEN_ENSURE_KINDS),--ensure-kinds $(SSAGEN_ENSURE_KINDS)) $(SSAGEN_FLAGS) ./api/...\n"
	outputDirFlag = "--output-dir pkg/applyconfiguration"
	// compatFlag keeps controller-gen's exported surface, so that code
	// written against its apply configurations still compiles.
	compatFlag = "--compat=applyconfiguration-gen"
)

// acGenerator is controller-gen's applyconfiguration generator on a
// command line, as create api --ssa writes it.
var acGenerator = regexp.MustCompile(` applyconfiguration(:[^ ]*)?`)

// editMakefile adds the ssagen step to the generate target and takes
// controller-gen's applyconfiguration generator out of the manifests
// target, which ssagen replaces.
func editMakefile(s string) (string, error) {
	lines := strings.SplitAfter(s, "\n")
	layout := false
	for i, l := range lines {
		if strings.Contains(l, "$(CONTROLLER_GEN)") && acGenerator.MatchString(l) {
			lines[i] = acGenerator.ReplaceAllString(l, "")
			layout = true
			if i > 0 {
				lines[i-1] = strings.Replace(lines[i-1], " and ApplyConfiguration types.", ".", 1)
			}
		}
	}
	s = strings.Join(lines, "")
	if strings.Contains(s, "$(SSAGEN) generate") {
		return s, nil
	}
	lines = strings.SplitAfter(s, "\n")
	target := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "generate:") })
	if target < 0 {
		return "", errors.New("Makefile: no generate target: the go/v4 Makefile's generate target is where ssagen runs; add one (generate: ...) and run the plugin again")
	}
	end := target + 1
	for end < len(lines) && strings.HasPrefix(lines[end], "\t") {
		end++
	}
	start := target
	if start > 0 && strings.HasPrefix(lines[start-1], ".PHONY: generate") {
		start--
	}
	flags := " " + outputDirFlag
	if layout {
		flags = " " + compatFlag
	}
	var b strings.Builder
	b.WriteString(strings.Join(lines[:start], ""))
	b.WriteString(strings.Replace(makefileVars, "%s", flags, 1))
	b.WriteString(strings.Join(lines[start:end], ""))
	b.WriteString(makefileStep)
	b.WriteString(strings.Join(lines[end:], ""))
	return b.String(), nil
}

var ensureKindsLine = regexp.MustCompile(`(?m)^SSAGEN_ENSURE_KINDS \?=(.*)$`)

// addEnsureKind adds a kind of another module to SSAGEN_ENSURE_KINDS.
func addEnsureKind(makefile, kind string) (string, error) {
	m := ensureKindsLine.FindStringSubmatchIndex(makefile)
	if m == nil {
		return "", errors.New("Makefile: no SSAGEN_ENSURE_KINDS line: run kubebuilder edit --plugins " + Key + " first")
	}
	kinds := ensureKinds(makefile)
	if slices.Contains(kinds, kind) {
		return makefile, nil
	}
	kinds = append(kinds, kind)
	slices.Sort(kinds)
	return makefile[:m[0]] + "SSAGEN_ENSURE_KINDS ?= " + strings.Join(kinds, ",") + makefile[m[1]:], nil
}

// ensureKinds lists the Makefile's SSAGEN_ENSURE_KINDS.
func ensureKinds(makefile string) []string {
	m := ensureKindsLine.FindStringSubmatch(makefile)
	if m == nil {
		return nil
	}
	var out []string
	for _, k := range strings.Split(m[1], ",") {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// outputToDir reads SSAGEN_FLAGS: whether the project's output is one
// tree in pkg/applyconfiguration or controller-gen's layout.
func outputToDir(makefile string) bool {
	return strings.Contains(makefile, "SSAGEN_FLAGS ?= "+outputDirFlag)
}

// compat reads SSAGEN_FLAGS: whether the output keeps controller-gen's
// exported surface.
func compat(makefile string) bool {
	return strings.Contains(makefile, "SSAGEN_FLAGS ?= "+compatFlag)
}

// addGolangciPlugin lists ssagen's golangci-lint module plugin in
// .custom-gcl.yml, which go/v4's make lint builds into its golangci-lint.
func addGolangciPlugin(s, version, replace, buildVersion string) string {
	if strings.Contains(s, "github.com/ssagen/ssagen/vet/golangci") || !strings.Contains(s, "plugins:") {
		return s
	}
	entry := "  # ssagenvet: 409-prone writes, and the server-side apply helper that replaces each\n" +
		"  - module: \"" + generatorModule + "\"\n" +
		"    import: \"" + generatorModule + "/vet/golangci\"\n"
	switch {
	case replace != "":
		entry += "    path: \"" + replace + "\"\n"
	case version != "":
		entry += "    version: " + version + "\n"
	default:
		entry += "    version: " + buildVersion + "\n"
	}
	i := strings.Index(s, "plugins:\n")
	if i < 0 {
		return s
	}
	i += len("plugins:\n")
	return s[:i] + entry + s[i:]
}

// enableGolangciLinter turns ssagenvet on in .golangci.yml.
func enableGolangciLinter(s string) string {
	if strings.Contains(s, "ssagenvet") {
		return s
	}
	const enable = "  enable:\n"
	const custom = "    custom:\n"
	i, j := strings.Index(s, enable), strings.Index(s, custom)
	if i < 0 || j < 0 || j < i {
		return s
	}
	settings := "      ssagenvet:\n        type: \"module\"\n        description: 409-prone writes, and the server-side apply helper that replaces each.\n"
	j += len(custom)
	s = s[:j] + settings + s[j:]
	i += len(enable)
	return s[:i] + "    - ssagenvet\n" + s[i:]
}

const readmeSection = `
## Server-side apply with ssagen

This project writes the objects it owns with server-side apply through
helpers [ssagen](https://github.com/ssagen/ssagen) generates from the API
types (plugin ` + "`" + Key + "`" + `):

- ` + "`make generate`" + ` runs ssagen after controller-gen: typed apply configurations
  and, per kind, ` + "`EnsureX`" + ` (apply with the owner as controller, no request
  when nothing changed), ` + "`EnsureXStatus`" + ` and the ` + "`OwnedXChanges`" + ` predicate.
  Kinds of other modules the controllers ensure are listed in the Makefile's
  ` + "`SSAGEN_ENSURE_KINDS`" + `.
- ssagen is pinned in ` + "`tools.mod`" + `, apart from the project's dependencies:
  ` + "`go tool -modfile=tools.mod ssagen -h`" + `; upgrade with
  ` + "`go get -tool -modfile=tools.mod github.com/ssagen/ssagen/cmd/ssagen@latest`" + `.
- ` + "`go tool -modfile=tools.mod ssagen vet ./...`" + ` lists writes prone to 409
  Conflicts (Create → AlreadyExists → Update, CreateOrUpdate, status Update)
  and the helper that replaces each; ` + "`make lint`" + ` runs the same checks.
`

// addReadme appends the section once.
func addReadme(s string) string {
	if strings.Contains(s, "## Server-side apply with ssagen") {
		return s
	}
	return strings.TrimRight(s, "\n") + "\n" + readmeSection
}
