package load

import (
	"go/ast"
	"go/token"
	"strings"
	"testing"

	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"
)

// FuzzMarkers feeds arbitrary comment lines through marker association and
// parsing: malformed markers must become positioned errors, never panics.
func FuzzMarkers(f *testing.F) {
	for _, s := range []string{
		"+listType=map", "+listMapKey=name", "+listType=", "+kubebuilder:resource:scope=Cluster,path=x",
		"+kubebuilder:validation:MaxLength=abc", "+genclient:method=GetScale,verb=get,subresource=scale",
		"+mapType=atomic", "+kubebuilder:object:root=true", "+optional", "+groupName=", "+kubebuilder:validation:Enum={a,b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if strings.ContainsAny(text, "\n\r") {
			return
		}
		l := &loader{fset: token.NewFileSet()}
		g := &ast.CommentGroup{List: []*ast.Comment{{Slash: 1, Text: "// " + text}}}
		lines := markerLines(g)
		for _, target := range []ctmarkers.TargetType{ctmarkers.DescribesPackage, ctmarkers.DescribesType, ctmarkers.DescribesField} {
			vals := l.parseMarkers(lines, target)
			_ = vals.str("listType")
			_ = vals.strs("listMapKey")
			_ = vals.boolean("kubebuilder:object:root")
		}
		_ = genclientSubresources(lines, nil)
		_ = docLines(g)
	})
}

// FuzzParseExternal checks --external-applyconfigurations parsing: it
// either errors or yields mappings with all parts set.
func FuzzParseExternal(f *testing.F) {
	f.Add("k8s.io/api/apps/v1.Deployment:k8s.io/client-go/applyconfigurations/apps/v1")
	f.Add("example.com/api/v1:example.com/ac/v1,example.com/x.Y:example.com/z")
	f.Add(":,:x,y:")
	f.Fuzz(func(t *testing.T, s string) {
		ms, err := ParseExternal(s)
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.TypePkg == "" || m.ApplyPkg == "" {
				t.Fatalf("%q gave an incomplete mapping %+v", s, m)
			}
		}
	})
}
