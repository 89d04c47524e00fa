package conformance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v2"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
)

// TestSchemaMatchesOpenAPI compares the merge schema ssagen derives from Go
// types and markers with the one applyconfiguration-gen derived from the
// OpenAPI document, per corpus: every type both define must merge the
// same way.
func TestSchemaMatchesOpenAPI(t *testing.T) {
	for _, c := range []struct {
		ours, theirs string
		min          int
	}{
		{"kube", "k8s.io/client-go/applyconfigurations/internal", 900},
		{"apiextensions", "k8s.io/apiextensions-apiserver/pkg/client/applyconfiguration/internal", 20},
		{"aggregator", "k8s.io/kube-aggregator/pkg/client/applyconfiguration/internal", 8},
	} {
		t.Run(c.theirs, func(t *testing.T) {
			ours := schemaFromFile(t, filepath.Join(c.ours, "internal", "internal.go"))
			dir, err := exec.Command("go", "list", "-f", "{{.Dir}}", c.theirs).Output()
			if err != nil {
				t.Fatal(err)
			}
			theirs := schemaFromFile(t, filepath.Join(strings.TrimSpace(string(dir)), "internal.go"))
			theirDefs := map[string]smdschema.TypeDef{}
			for _, d := range theirs.Types {
				theirDefs[d.Name] = d
			}
			compared := 0
			for _, d := range ours.Types {
				td, ok := theirDefs[d.Name]
				if !ok {
					continue
				}
				compared++
				if a, b := atomString(d.Atom), atomString(td.Atom); a != b {
					t.Errorf("%s merges differently:\nssagen:    %s\npublished: %s", d.Name, a, b)
				}
			}
			if compared < c.min {
				t.Fatalf("compared only %d types", compared)
			}
			t.Logf("%d type definitions compared with the published schema", compared)
		})
	}
}

func schemaFromFile(t *testing.T, path string) *smdschema.Schema {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	start := strings.Index(s, "YAMLObject(`")
	end := strings.LastIndex(s, "`)")
	if start < 0 || end < start {
		t.Fatalf("%s: no schema found", path)
	}
	var out smdschema.Schema
	if err := yaml.Unmarshal([]byte(s[start+len("YAMLObject(`"):end]), &out); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &out
}

// atomString renders what matters for merging: fields, element types,
// relationships and keys; defaults and ordering do not matter.
func atomString(a smdschema.Atom) string {
	var parts []string
	if a.Scalar != nil {
		parts = append(parts, "scalar:"+string(*a.Scalar))
	}
	if a.List != nil {
		rel := a.List.ElementRelationship
		if rel == "" {
			rel = smdschema.Atomic
		}
		parts = append(parts, fmt.Sprintf("list(%s keys=%v of %s)", rel, a.List.Keys, refString(a.List.ElementType)))
	}
	if a.Map != nil {
		rel := a.Map.ElementRelationship
		if rel == "" {
			rel = smdschema.Separable
		}
		var fields []string
		for _, f := range a.Map.Fields {
			fields = append(fields, f.Name+"="+refString(f.Type))
		}
		sort.Strings(fields)
		elem := ""
		if a.Map.ElementType.NamedType != nil || a.Map.ElementType.Inlined != (smdschema.Atom{}) {
			elem = " elem " + refString(a.Map.ElementType)
		}
		parts = append(parts, fmt.Sprintf("map(%s {%s}%s)", rel, strings.Join(fields, ", "), elem))
	}
	return strings.Join(parts, " ")
}

func refString(r smdschema.TypeRef) string {
	if r.NamedType != nil {
		return *r.NamedType
	}
	s := atomString(r.Inlined)
	if r.ElementRelationship != nil {
		s += " rel=" + string(*r.ElementRelationship)
	}
	return s
}
