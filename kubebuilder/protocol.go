// Package kubebuilder is ssagen.io/v1-alpha, a Kubebuilder external plugin:
// `kubebuilder init`, `create api` and `edit` with the plugin in the chain
// give a go/v4 project a tool module pinning ssagen, a generate step that
// runs it, and reconcilers that write their children through the
// generated EnsureX helpers.
//
// Kubebuilder runs the plugin as an executable named ssagen.io under
// <plugins root>/ssagen.io/v1-alpha/, sends one PluginRequest as JSON on
// its standard input and reads one PluginResponse from its standard output
// (sigs.k8s.io/kubebuilder/v4/pkg/plugin/external, apiVersion v1alpha1).
// The files the plugin returns in the response's universe are written by
// Kubebuilder. The plugin writes a file itself in one case: the generator
// reads the API packages from disk, so when go/v4's
// +kubebuilder:ac:generate=false has to leave the types file of a kind with
// a scaffolded reconciler, create api writes that file before generating
// (and returns it too), and puts the old content back if it fails.
//
// The protocol's types are declared here, not imported: they are a few
// JSON fields, and importing Kubebuilder would put its dependencies into
// every ssagen user's tool module.
package kubebuilder

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// APIVersion is the version of the protocol this plugin speaks.
const APIVersion = "v1alpha1"

// Key is the plugin's key in a project's layout and in --plugins.
const Key = "ssagen.io/v1-alpha"

// Request is external.PluginRequest.
type Request struct {
	APIVersion  string            `json:"apiVersion"`
	Args        []string          `json:"args"`
	Command     string            `json:"command"`
	Universe    map[string]string `json:"universe"`
	PluginChain []string          `json:"pluginChain,omitempty"`
	Config      map[string]any    `json:"config,omitempty"`
}

// Response is external.PluginResponse.
type Response struct {
	APIVersion string            `json:"apiVersion"`
	Command    string            `json:"command"`
	Metadata   Metadata          `json:"metadata"`
	Universe   map[string]string `json:"universe"`
	Error      bool              `json:"error,omitempty"`
	ErrorMsgs  []string          `json:"errorMsgs,omitempty"`
	Flags      []Flag            `json:"flags,omitempty"`
}

// Metadata is plugin.SubcommandMetadata: the help text of a subcommand.
type Metadata struct {
	Description string `json:"description,omitempty"`
	Examples    string `json:"examples,omitempty"`
}

// Flag is external.Flag. Its fields have no JSON tags upstream, so they
// travel under their Go names.
type Flag struct {
	Name    string
	Type    string
	Default string
	Usage   string
}

// Serve answers one request read from r on w. Every failure, including a
// request it cannot read, is answered as a response with its error
// messages, which Kubebuilder prints; the returned error only reports a
// response that could not be written.
func Serve(r io.Reader, w io.Writer, env Env) error {
	var req Request
	var res Response
	if err := json.NewDecoder(r).Decode(&req); err != nil {
		res = failed("", fmt.Errorf("reading the plugin request from standard input: %v (ssagen.io is run by kubebuilder, which sends a JSON PluginRequest)", err))
	} else {
		res = handle(&req, env)
	}
	res.APIVersion = APIVersion
	if res.Universe == nil {
		res.Universe = map[string]string{}
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func failed(command string, errs ...error) Response {
	res := Response{Command: command, Error: true}
	for _, err := range errs {
		res.ErrorMsgs = append(res.ErrorMsgs, Key+": "+err.Error())
	}
	return res
}

// handle dispatches a request to its command.
func handle(req *Request, env Env) Response {
	if req.APIVersion != APIVersion {
		return failed(req.Command, fmt.Errorf("request apiVersion %q: this plugin speaks %s (kubebuilder v4.16 and later)", req.APIVersion, APIVersion))
	}
	switch req.Command {
	case "metadata":
		sub, err := subcommandArg(req.Args)
		if err != nil {
			return failed(req.Command, err)
		}
		return Response{Command: req.Command, Metadata: metadata[sub]}
	case "flags":
		sub, err := subcommandArg(req.Args)
		if err != nil {
			return failed(req.Command, err)
		}
		return Response{Command: req.Command, Flags: flagsOf(sub)}
	case "init", "create api", "edit":
		files, err := scaffold(req, env)
		if err != nil {
			return failed(req.Command, err)
		}
		return Response{Command: req.Command, Universe: files}
	case "create webhook":
		// A webhook writes no children: the chain's go/v4 scaffolds it,
		// and this plugin has nothing to add.
		return Response{Command: req.Command}
	}
	return failed(req.Command, fmt.Errorf("unknown command %q: the plugin answers metadata, flags, init, create api, create webhook and edit", req.Command))
}

// subcommandArg reads the "--api", "--init", ... argument of a metadata
// or flags request.
func subcommandArg(args []string) (string, error) {
	if len(args) == 1 {
		sub := strings.TrimPrefix(args[0], "--")
		if _, ok := metadata[sub]; ok {
			return sub, nil
		}
	}
	return "", fmt.Errorf("arguments %q: want one of --init, --api, --webhook, --edit", args)
}
