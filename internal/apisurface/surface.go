// Package apisurface lists a Go package's exported API as strings, one per
// declaration, so two packages' surfaces can be compared as sets: the
// conformance tests compare ssagen's apply configurations with
// applyconfiguration-gen's, the adoption tests with controller-gen's.
package apisurface

import (
	"fmt"
	"go/types"
	"regexp"
)

// Converter matches the entry of one of ssagen's converters
// (zz_generated.convert.go: From<Type>, StatusFrom<Kind>,
// From<Kind>Embedded, each taking in *T): ssagen's own addition to the
// apply configurations it generates, which a comparison with a published
// package leaves aside.
var Converter = regexp.MustCompile(`^func (Status)?From[A-Za-z0-9_]*func\(in \*`)

// Of lists pkg's exported types, fields (with tags), methods of T and *T,
// functions, variables and constants. mapPath renames package paths in the
// types it prints, so that a generated package and the published one it
// mirrors print alike.
func Of(pkg *types.Package, mapPath func(string) string) map[string]bool {
	qual := func(p *types.Package) string { return mapPath(p.Path()) }
	out := map[string]bool{}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Func:
			out["func "+name+types.TypeString(obj.Type(), qual)] = true
		case *types.TypeName:
			out["type "+name] = true
			if st, ok := obj.Type().Underlying().(*types.Struct); ok {
				for i := 0; i < st.NumFields(); i++ {
					f := st.Field(i)
					out[fmt.Sprintf("field %s.%s %s `%s`", name, f.Name(), types.TypeString(f.Type(), qual), st.Tag(i))] = true
				}
			}
			for _, recv := range []types.Type{obj.Type(), types.NewPointer(obj.Type())} {
				ms := types.NewMethodSet(recv)
				for i := 0; i < ms.Len(); i++ {
					m := ms.At(i).Obj()
					if !m.Exported() {
						continue
					}
					out[fmt.Sprintf("method (%s).%s%s", types.TypeString(recv, qual), m.Name(), types.TypeString(m.Type(), qual))] = true
				}
			}
		case *types.Var, *types.Const:
			out["value "+name+" "+types.TypeString(obj.Type(), qual)] = true
		}
	}
	return out
}
