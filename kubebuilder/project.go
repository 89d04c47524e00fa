package kubebuilder

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// project is what the plugin reads of the PROJECT file.
type project struct {
	Name       string // projectName
	Repo       string
	Domain     string
	Layout     []string
	MultiGroup bool
	Resources  []resource
}

// resource is one entry of the PROJECT file's resources.
type resource struct {
	Group, Version, Kind string
	Domain               string
	Path                 string // the API package's import path
	Namespaced           bool
	HasAPI               bool // the kind is this project's own
	Controller           bool
	SSA                  bool
}

// groupDomain is the kind's API group: group.domain, or the domain alone
// for an empty group (core-like kinds).
func (r resource) groupDomain() string {
	switch {
	case r.Group == "":
		return r.Domain
	case r.Domain == "":
		return r.Group
	}
	return r.Group + "." + r.Domain
}

var errNoProject = errors.New("PROJECT: no Kubebuilder project here: run kubebuilder init first, in the folder that holds PROJECT")

// readProject reads the request's config, which Kubebuilder fills from
// PROJECT, and checks that the project is laid out by go/v4.
func readProject(req *Request) (*project, error) {
	if len(req.Config) == 0 {
		if _, ok := req.Universe["PROJECT"]; !ok {
			return nil, errNoProject
		}
		return nil, errors.New("PROJECT: kubebuilder sent no project configuration: use kubebuilder v4.16 or later")
	}
	p := &project{}
	p.Name, _ = req.Config["projectName"].(string)
	p.Repo, _ = req.Config["repo"].(string)
	p.Domain, _ = req.Config["domain"].(string)
	p.MultiGroup, _ = req.Config["multigroup"].(bool)
	for _, l := range asSlice(req.Config["layout"]) {
		if s, ok := l.(string); ok {
			p.Layout = append(p.Layout, s)
		}
	}
	if !slices.Contains(p.Layout, "go.kubebuilder.io/v4") {
		return nil, fmt.Errorf("PROJECT: layout %s: ssagen.io/v1-alpha works with go.kubebuilder.io/v4 projects only (init with --plugins go/v4,%s)", strings.Join(p.Layout, ","), Key)
	}
	if p.Repo == "" {
		return nil, errors.New("PROJECT: no repo: the project's Go module path is needed to import the generated helpers")
	}
	for _, item := range asSlice(req.Config["resources"]) {
		m, _ := item.(map[string]any)
		r := resource{}
		r.Group, _ = m["group"].(string)
		r.Version, _ = m["version"].(string)
		r.Kind, _ = m["kind"].(string)
		r.Domain, _ = m["domain"].(string)
		r.Path, _ = m["path"].(string)
		r.Controller, _ = m["controller"].(bool)
		if api, ok := m["api"].(map[string]any); ok {
			r.HasAPI = true
			r.Namespaced, _ = api["namespaced"].(bool)
			r.SSA, _ = api["ssa"].(bool)
		}
		p.Resources = append(p.Resources, r)
	}
	return p, nil
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// dir is the folder of the kind's API package in the project (slash-separated).
func (r resource) dir(repo string) string {
	return strings.TrimPrefix(strings.TrimPrefix(r.Path, repo), "/")
}

// find returns the resource of a group, version and kind.
func (p *project) find(group, version, kind string) (resource, bool) {
	for _, r := range p.Resources {
		if r.Group == group && r.Version == version && r.Kind == kind {
			return r, true
		}
	}
	return resource{}, false
}
