package load

import (
	"go/ast"
	"go/token"
	"strings"

	"sigs.k8s.io/controller-tools/pkg/crd/markers"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"
)

// registry knows the markers ssagen reads. It reuses controller-tools' CRD
// marker definitions, so a marker parses (or fails to) exactly as it does
// for controller-gen. +genclient markers are read by hand as gengo does:
// their free-form arguments (+genclient:method=...) do not fit a registry.
var registry = func() *ctmarkers.Registry {
	reg := &ctmarkers.Registry{}
	if err := markers.Register(reg); err != nil {
		panic(err)
	}
	reg.Define("kubebuilder:object:root", ctmarkers.DescribesType, false)
	// controller-gen applyconfiguration's own markers (controller-tools
	// v0.21+; Kubebuilder's `create api --ssa` scaffolds them).
	reg.Define("kubebuilder:ac:generate", ctmarkers.DescribesPackage, false)
	reg.Define("kubebuilder:ac:generate", ctmarkers.DescribesType, false)
	reg.Define("kubebuilder:ac:output:package", ctmarkers.DescribesPackage, "")
	return reg
}()

// aliases maps marker spellings to the name ssagen reads them by: the
// declarative-validation spellings controller-tools v0.23 defines beside
// the topology and optionality markers, and the X-prefixed validation ones.
var aliases = map[string]string{
	"k8s:listType":   "listType",
	"k8s:listMapKey": "listMapKey",
	"k8s:optional":   "optional",
	"k8s:required":   "required",
	"kubebuilder:validation:XPreserveUnknownFields": "kubebuilder:pruning:PreserveUnknownFields",
	"kubebuilder:validation:XEmbeddedResource":      "kubebuilder:validation:EmbeddedResource",
}

// topology are the aliased spellings that state a merge topology: they
// yield to the plain +listType (see parseMarkers).
var topology = map[string]bool{"k8s:listType": true, "k8s:listMapKey": true}

// markerValues holds the parsed values of one node's markers by name.
type markerValues map[string][]any

func (m markerValues) has(name string) bool { return len(m[name]) > 0 }

func (m markerValues) str(name string) string {
	vs := m[name]
	if len(vs) == 0 {
		return ""
	}
	switch v := vs[len(vs)-1].(type) {
	case string:
		return v
	case markers.ListType:
		return string(v)
	case markers.MapType:
		return string(v)
	case markers.StructType:
		return string(v)
	case markers.ListMapKey:
		return string(v)
	}
	return ""
}

// strs returns a repeatable marker's values in order, each once: an API
// may state a key in two spellings (+listMapKey and +k8s:listMapKey).
func (m markerValues) strs(name string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range m[name] {
		var s string
		switch v := v.(type) {
		case markers.ListMapKey:
			s = string(v)
		case string:
			s = v
		default:
			continue
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func (m markerValues) boolean(name string) bool {
	vs := m[name]
	if len(vs) == 0 {
		return false
	}
	if b, ok := vs[len(vs)-1].(bool); ok {
		return b
	}
	return true // struct-valued markers such as kubebuilder:subresource:status
}

// markerLine is one "+..." comment line and where it starts.
type markerLine struct {
	text string
	pos  token.Pos
}

// markerLines returns the marker lines of the comment groups.
func markerLines(groups ...*ast.CommentGroup) []markerLine {
	var out []markerLine
	for _, g := range groups {
		if g == nil {
			continue
		}
		for _, c := range g.List {
			text := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
			if strings.HasPrefix(text, "+") {
				out = append(out, markerLine{text: text, pos: c.Slash})
			}
		}
	}
	return out
}

// docLines returns the comment lines that are not markers, without "//".
func docLines(g *ast.CommentGroup) []string {
	if g == nil {
		return nil
	}
	var out []string
	for _, c := range g.List {
		if strings.HasPrefix(c.Text, "/*") {
			continue
		}
		text := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
		if strings.HasPrefix(text, "+") {
			continue
		}
		out = append(out, text)
	}
	// Trim blank lines at both ends.
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// hasGenclient reports whether the lines carry +genclient or +genclient:<opt>.
func hasGenclient(lines []markerLine, opt string) bool {
	want := "+genclient"
	if opt != "" {
		want += ":" + opt
	}
	for _, l := range lines {
		if l.text == want || (opt != "" && l.text == want+"=true") {
			return true
		}
	}
	return false
}

// commentBefore returns the comment group that ends on the line before
// line (allowing one blank line), or nil: gengo's "second closest" comment,
// where +genclient markers often sit apart from the type's doc comment.
func commentBefore(fset *token.FileSet, file *ast.File, line int) *ast.CommentGroup {
	for _, g := range file.Comments {
		end := fset.Position(g.End()).Line
		if end == line-1 || end == line-2 {
			return g
		}
	}
	return nil
}

// genclientSubresources returns the subresources named by
// +genclient:method=...,subresource=<name> lines that are not in have:
// applyconfiguration-gen generates an Extract<Kind><Subresource> for each.
func genclientSubresources(lines []markerLine, have []string) []string {
	seen := map[string]bool{}
	for _, h := range have {
		seen[h] = true
	}
	var out []string
	for _, l := range lines {
		args, ok := strings.CutPrefix(l.text, "+genclient:method=")
		if !ok {
			continue
		}
		for _, kv := range strings.Split(args, ",") {
			if sub, ok := strings.CutPrefix(strings.TrimSpace(kv), "subresource="); ok && sub != "" && !seen[sub] {
				seen[sub] = true
				out = append(out, sub)
			}
		}
	}
	return out
}

// Knows reports whether ssagen's marker registry parses the marker name
// for target ("package", "type" or "field", as controller-gen -w prints it).
func Knows(name, target string) bool {
	t := map[string]ctmarkers.TargetType{"package": ctmarkers.DescribesPackage, "type": ctmarkers.DescribesType, "field": ctmarkers.DescribesField}[target]
	return registry.Lookup("+"+name, t) != nil
}
