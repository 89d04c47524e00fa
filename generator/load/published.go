package load

import (
	"go/ast"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ssagen/ssagen/generator/model"
)

// followPublishers gives the struct types that a published apply
// configuration holds the apply configuration its publisher gave them.
//
// A type mapped to published apply configurations (client-go's, another
// project's) brings its publisher's choices for everything it holds: client-go's
// MetricSpecApplyConfiguration holds an ObjectMetricSourceApplyConfiguration,
// whatever this run decided for ObjectMetricSource. With
// --compat=applyconfiguration-gen this run keeps the types no flag maps
// raw in its own builders (Kubeflow Trainer's raw corev1.LocalObjectReference),
// while the same type inside a mapped one (EnvFromSource's ConfigMapRef
// embeds it) is an apply configuration: the converters of the mapped
// types must build what the publisher declared.
//
// So the publisher's syntax decides: for each field of a published type
// that holds a struct (through pointers, slices and maps), the field of
// the same JSON name in the published struct names the apply configuration,
// or keeps the struct raw. Where that differs from the type's own
// ApplyConfig, the field is given a copy of the type carrying the
// publisher's (a shadow, which only published types' fields reach), and
// the walk goes on into it, across packages (JobSet's ReplicatedJob holds
// client-go's JobTemplateSpec). Only converters and the schema read the
// fields of published types; builders of the run's own types are as
// before.
func (l *loader) followPublishers() {
	shadows := map[shadowKey]*model.Type{}
	done := map[*model.Type]bool{}
	var queue []*model.Type
	for _, n := range sortedKeys(l.types) {
		if t := l.types[n]; published(t) {
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		var paths []string
		for _, t := range queue {
			paths = append(paths, t.ApplyConfig.Pkg)
		}
		slices.Sort(paths)
		loaded, err := l.set.applyConfigs(slices.Compact(paths), false)
		if err != nil {
			return // resolveExternal loaded these packages already: the error is reported there
		}
		var next []*model.Type
		for _, t := range queue {
			if done[t] {
				continue
			}
			done[t] = true
			p := loaded[t.ApplyConfig.Pkg]
			if p == nil {
				continue
			}
			st, file := l.publishedStruct(p.GoFiles, t.ApplyConfig.Name)
			if st == nil {
				continue
			}
			fields, changed := t.Fields, false
			for i, f := range t.Fields {
				u := heldStruct(f.Type)
				if u == nil {
					continue
				}
				ac := publisherChoice(st, file.imports, t.ApplyConfig.Pkg, f, u)
				switch {
				case ac == nil:
				case u.ApplyConfig != nil && *u.ApplyConfig == *ac && !u.Generated():
					next = append(next, u)
				default:
					s := shadows[shadowKey{u, *ac}]
					if s == nil {
						c := *u
						c.ApplyConfig, c.GV, c.From, c.FromObject = ac, nil, "", ""
						c.Fields = append([]*model.Field(nil), u.Fields...)
						s = &c
						shadows[shadowKey{u, *ac}] = s
					}
					next = append(next, s)
					if !changed {
						fields, changed = append([]*model.Field(nil), t.Fields...), true
					}
					g := *f
					g.Type = replaceNamed(f.Type, u, s)
					fields[i] = &g
				}
			}
			if changed {
				t.Fields = fields
				t.JSON, _ = model.ResolveJSON(t)
			}
		}
		queue = next
	}
}

type shadowKey struct {
	t  *model.Type
	ac model.TypeName
}

// published reports whether t is a struct whose apply configuration comes
// from elsewhere.
func published(t *model.Type) bool {
	return t.ApplyConfig != nil && !t.Generated() && len(t.Fields) > 0
}

// heldStruct is the struct type with fields that r holds through
// pointers, slices and maps, or nil (a value, a named collection).
func heldStruct(r *model.TypeRef) *model.Type {
	for r != nil {
		switch r.Kind {
		case model.RefPointer, model.RefSlice, model.RefMap:
			r = r.Elem
		case model.RefNamed:
			if r.Named.Shape == model.ShapeStruct && len(r.Named.Fields) > 0 {
				return r.Named
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}

// replaceNamed copies r with s in u's place.
func replaceNamed(r *model.TypeRef, u, s *model.Type) *model.TypeRef {
	c := *r
	if c.Kind == model.RefNamed && c.Named == u {
		c.Named = s
	} else if c.Elem != nil {
		c.Elem = replaceNamed(c.Elem, u, s)
	}
	return &c
}

// publishedStruct finds the struct declaration of name among a package's
// files, the file applyconfiguration-gen names after it first.
func (l *loader) publishedStruct(files []string, name string) (*ast.StructType, fileDecls) {
	guess := strings.ToLower(strings.TrimSuffix(name, "ApplyConfiguration")) + ".go"
	for _, pass := range []bool{true, false} {
		for _, f := range files {
			if (filepath.Base(f) == guess) != pass {
				continue
			}
			d := l.parsedDecls(f)
			if st, ok := d.structs[name]; ok {
				return st, d
			}
		}
	}
	return nil, fileDecls{}
}

// publisherChoice is the apply configuration that st, the published apply
// configuration of a type declared in pkg, holds for field f (whose struct
// is u), or nil where it holds u raw or not at all.
func publisherChoice(st *ast.StructType, imports map[string]string, pkg string, f *model.Field, u *model.Type) *model.TypeName {
	want := u.Name.Name + "ApplyConfiguration"
	for _, pf := range st.Fields.List {
		name, inline := jsonName(pf)
		if inline != (f.Embedded && f.Inline) || !inline && name != f.JSONName {
			continue
		}
		ac := namedIn(pf.Type, imports, pkg)
		if ac != nil && ac.Name == want {
			return ac
		}
		if !inline {
			return nil
		}
	}
	return nil
}

// namedIn is the named type an expression holds through pointers, slices
// and maps, resolved against a file's imports, or nil.
func namedIn(e ast.Expr, imports map[string]string, pkg string) *model.TypeName {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ArrayType:
			e = x.Elt
		case *ast.MapType:
			e = x.Value
		case *ast.Ident:
			return &model.TypeName{Pkg: pkg, Name: x.Name}
		case *ast.SelectorExpr:
			id, ok := x.X.(*ast.Ident)
			if !ok || imports[id.Name] == "" {
				return nil
			}
			return &model.TypeName{Pkg: imports[id.Name], Name: x.Sel.Name}
		default:
			return nil
		}
	}
}
