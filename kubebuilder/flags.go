package kubebuilder

import (
	"fmt"
	"strconv"
	"strings"
)

// metadata is the help text of each subcommand, keyed as Kubebuilder asks
// for it (--init, --api, --webhook, --edit).
var metadata = map[string]Metadata{
	"init": {
		Description: `ssagen.io/v1-alpha adds ssagen to a new go/v4 project: tools.mod pins the
ssagen generator apart from the project's own dependencies, and
'make generate' runs it after controller-gen object, writing typed apply
configurations and EnsureX helpers into pkg/applyconfiguration.`,
		Examples: `  kubebuilder init --domain example.com --repo example.com/op --plugins go/v4,ssagen.io/v1-alpha`,
	},
	"api": {
		Description: `ssagen.io/v1-alpha scaffolds the new kind's reconciler to write through the
generated helpers: it ensures a child built from the spec (a ConfigMap or a
Deployment) with the kind as controller owner, writes status with
EnsureXStatus and ensure.Condition, and watches the child with
OwnedXChanges. Its tests assert what a reconcile costs: the first writes,
an unchanged resync sends no request.`,
		Examples: `  kubebuilder create api --group web --version v1 --kind Site --resource --controller
  kubebuilder create api --group web --version v1 --kind Site --resource --controller --child deployment`,
	},
	"webhook": {
		Description: `ssagen.io/v1-alpha adds nothing to webhooks.`,
	},
	"edit": {
		Description: `ssagen.io/v1-alpha adds ssagen to an existing go/v4 project: tools.mod, and
'make generate' running ssagen (in place of controller-gen's
applyconfiguration generator where 'create api --ssa' put it). The
project's controllers are not rewritten: run ssagen vet ./... to list their
409-prone writes and the helper that replaces each.`,
		Examples: `  kubebuilder edit --plugins ssagen.io/v1-alpha`,
	},
}

// flag is one of the plugin's flags, or one of another plugin's that it
// reads (go/v4's --group, --namespaced, ...) or passes over.
type flag struct {
	Flag
	own bool // declared to Kubebuilder by this plugin
}

var versionFlags = []flag{
	{Flag{"ssagen-version", "string", "", "the ssagen version tools.mod pins (default: the version of this plugin)"}, true},
	{Flag{"ssagen-replace", "string", "", "a folder holding an ssagen checkout, to replace the pinned module with (for developing ssagen)"}, true},
}

// flagSets are, per subcommand, the flags a request's arguments may
// hold: the plugin's own and those of go/v4, which Kubebuilder passes to
// every plugin of the chain.
var flagSets = map[string][]flag{
	"init": flagSet(versionFlags,
		[]string{"domain", "repo", "owner", "license", "license-file", "project-name", "project-version"},
		[]string{"fetch-deps", "multigroup", "namespaced", "skip-go-version-check"}),
	"api": flagSet([]flag{{Flag{"child", "string", "configmap", "what the reconciler ensures from the spec: configmap or deployment"}, true}},
		[]string{"group", "version", "kind", "plural", "controller-name", "external-api-path", "external-api-domain", "external-api-module"},
		[]string{"resource", "controller", "namespaced", "make", "force", "ssa"}),
	"edit": flagSet(versionFlags,
		[]string{"owner", "license", "license-file"},
		[]string{"force", "multigroup", "namespaced"}),
	"webhook": nil,
}

// flagSet is the plugin's own flags and the names of go/v4's.
func flagSet(own []flag, strs, bools []string) []flag {
	out := append([]flag(nil), own...)
	for _, n := range strs {
		out = append(out, flag{Flag: Flag{Name: n, Type: "string"}})
	}
	for _, n := range bools {
		out = append(out, flag{Flag: Flag{Name: n, Type: "bool"}})
	}
	return out
}

// flagsOf is what the plugin declares for a subcommand.
func flagsOf(sub string) []Flag {
	var out []Flag
	for _, f := range flagSets[sub] {
		if f.own {
			out = append(out, f.Flag)
		}
	}
	return out
}

// args are a request's arguments, parsed.
type args map[string]string

// parseArgs reads --name value, --name=value and bare boolean --name.
// Kubebuilder has already checked the arguments against every plugin of
// the chain; a flag no plugin declares only comes from a caller other
// than Kubebuilder, and flags of plugins other than go/v4 are let through
// when the chain has such plugins.
func parseArgs(sub string, raw []string, chain []string) (args, error) {
	known := map[string]flag{}
	for _, f := range flagSets[sub] {
		known[f.Name] = f
	}
	others := false
	for _, k := range chain {
		if k != Key && !strings.HasPrefix(k, "go.kubebuilder.io/") && !strings.HasPrefix(k, "base.go.kubebuilder.io/") && !strings.HasPrefix(k, "kustomize.common.kubebuilder.io/") {
			others = true
		}
	}
	out := args{}
	for i := 0; i < len(raw); i++ {
		a := raw[i]
		if !strings.HasPrefix(a, "--") {
			return nil, fmt.Errorf("argument %q: want --flag or --flag=value", a)
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		f, ok := known[name]
		if !ok {
			if others {
				if !hasValue && i+1 < len(raw) && !strings.HasPrefix(raw[i+1], "--") {
					i++
				}
				continue
			}
			return nil, fmt.Errorf("unknown flag --%s for %s: the plugin's flags are %s", name, commandName(sub), ownFlags(sub))
		}
		if !hasValue {
			if f.Type == "bool" {
				value = "true"
			} else if i+1 < len(raw) {
				i++
				value = raw[i]
			} else {
				return nil, fmt.Errorf("flag --%s needs a value", name)
			}
		}
		if f.Type == "bool" {
			if _, err := strconv.ParseBool(value); err != nil {
				return nil, fmt.Errorf("flag --%s=%s: want true or false", name, value)
			}
		}
		out[name] = value
	}
	for _, f := range flagSets[sub] {
		if _, set := out[f.Name]; !set && f.Default != "" {
			out[f.Name] = f.Default
		}
	}
	return out, nil
}

func commandName(sub string) string {
	if sub == "api" {
		return "create api"
	}
	return sub
}

func ownFlags(sub string) string {
	var names []string
	for _, f := range flagsOf(sub) {
		names = append(names, "--"+f.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
