package load

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/ssagen/ssagen/generator/model"
	"github.com/ssagen/ssagen/generator/schema"
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

// FuzzTypeWalker builds random graphs of named types — recursive structs,
// pointers, slices, maps, and kinds JSON cannot hold — and walks them as an
// input package: the walker, validation, ApplyRef and the schema builder
// must terminate without panicking, and only report errors.
func FuzzTypeWalker(f *testing.F) {
	f.Add([]byte{3, 2, 6, 0, 4, 6, 1, 5, 1, 2, 7, 8})
	f.Add([]byte{1, 1, 6, 0})
	f.Add([]byte{4, 3, 3, 3, 4, 4, 5, 6, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return int(b)
		}
		pkg := types.NewPackage("example.com/fuzz", "fuzz")
		named := make([]*types.Named, next()%4+1)
		for i := range named {
			named[i] = types.NewNamed(types.NewTypeName(token.NoPos, pkg, fmt.Sprintf("T%d", i), nil), nil, nil)
		}
		var mk func(depth int) types.Type
		mk = func(depth int) types.Type {
			if depth > 4 {
				return types.Typ[types.String]
			}
			switch next() % 10 {
			case 0:
				return types.Typ[types.String]
			case 1:
				return types.Typ[types.Int32]
			case 2:
				return types.NewPointer(mk(depth + 1))
			case 3:
				return types.NewSlice(mk(depth + 1))
			case 4:
				return types.NewMap(types.Typ[types.String], mk(depth+1))
			case 5, 6:
				return named[next()%len(named)]
			case 7:
				return types.NewChan(types.SendRecv, types.Typ[types.Int])
			case 8:
				return types.NewInterfaceType(nil, nil)
			default:
				return types.Typ[types.Complex128]
			}
		}
		for _, n := range named {
			var fields []*types.Var
			var tags []string
			for i := 0; i < next()%4; i++ {
				fields = append(fields, types.NewField(token.NoPos, pkg, fmt.Sprintf("F%d", i), mk(0), false))
				tag := fmt.Sprintf(`json:"f%d,omitempty"`, i)
				if next()%5 == 0 {
					tag = `json:"-"`
				}
				tags = append(tags, tag)
			}
			n.SetUnderlying(types.NewStruct(fields, tags))
		}
		l := &loader{
			fset: token.NewFileSet(), types: map[string]*model.Type{}, files: map[string]*ast.File{},
			inputs: map[string]*input{}, checking: map[*model.Type]bool{}, externalErr: map[string]string{},
			typeMarkerCache: map[*ast.TypeSpec]typeMarkerEntry{}, unexported: map[*model.Type][]token.Position{},
		}
		gv := &model.GroupVersion{Group: "fuzz.example.com", CRD: true, Version: "v1", PkgPath: pkg.Path(), OutPkgPath: "example.com/out/v1"}
		l.inputs[pkg.Path()] = &input{pkg: &packages.Package{PkgPath: pkg.Path(), Types: pkg}, gv: gv, specs: map[string]typeDecl{}}
		for _, n := range named {
			l.named(n.Obj())
		}
		l.resolveJSON()
		l.validate()
		for _, typ := range l.types {
			for _, fld := range typ.Fields {
				_ = model.ApplyRef(fld.Type)
			}
		}
		schema.Build(&model.Universe{Types: l.types, GroupVersions: []*model.GroupVersion{gv}})
	})
}
