package load

import (
	"sort"

	"github.com/ssagen/ssagen/generator/model"
)

// markUnreflectable records, on every kind of the run, the JSON paths of
// values structured-merge-diff's reflection cannot read: uint64, which it
// leaves out on purpose (value/valuereflect.go: values past MaxInt64 have
// no form in an API object). Such a kind is generated all the same, as
// controller-gen and applyconfiguration-gen generate it, with the same
// exported API; the code that hands its objects to structured-merge-diff
// — Extract, the type converter, the Ensure runtime — reads them through
// their JSON instead.
//
// Before k8s.io v0.34 NewTypeConverter returns client-go's
// testing.TypeConverter (applyconfiguration-gen's signature), which
// converts by reflection: said once per kind.
func (l *loader) markUnreflectable(u *model.Universe) {
	for _, in := range l.sortedInputs() {
		for _, t := range in.gv.Kinds() {
			t.Root.Unreflectable = unreflectable(t)
			if len(t.Root.Unreflectable) == 0 || !u.SMDv4 || u.NoTypeConverter {
				continue
			}
			l.warns.Add(t.Pos, "upgrade the module's k8s.io modules to v0.34 or later, where NewTypeConverter reads such objects through their JSON",
				"%s holds uint64 values (%s): NewTypeConverter is client-go's testing.TypeConverter below k8s.io v0.34, which panics on such an object when one is set, because structured-merge-diff's reflection has no uint64 (Extract reads it through its JSON)",
				t.Name.Name, model.Abbrev(t.Root.Unreflectable, 3))
		}
	}
}

// unreflectable lists the JSON paths under kind whose Go values
// structured-merge-diff's reflection cannot read, each place once.
func unreflectable(kind *model.Type) []string {
	w := reflectWalk{onPath: map[*model.Type]bool{}, memo: map[*model.Type][]string{}}
	out, _ := w.named(kind)
	sort.Strings(out)
	return out
}

// reflectWalk finds the uint64 values under a type. A type's paths
// (relative to it) are remembered once complete: a walk that met a type
// already on its path left them partial.
type reflectWalk struct {
	onPath map[*model.Type]bool
	memo   map[*model.Type][]string
}

func (w *reflectWalk) ref(r *model.TypeRef) (paths []string, partial bool) {
	switch r.Kind {
	case model.RefBasic:
		if r.Basic == "uint64" {
			return []string{""}, false
		}
	case model.RefPointer:
		return w.ref(r.Elem)
	case model.RefSlice, model.RefMap:
		paths, partial = w.ref(r.Elem)
		return prefixed("[*]", paths), partial
	case model.RefNamed:
		return w.named(r.Named)
	}
	return nil, false
}

func (w *reflectWalk) named(t *model.Type) (paths []string, partial bool) {
	if p, ok := w.memo[t]; ok {
		return p, false
	}
	if w.onPath[t] {
		return nil, true // recursive: its paths are those found above
	}
	w.onPath[t] = true
	defer delete(w.onPath, t)
	switch t.Shape {
	case model.ShapeValue:
		// A type that marshals itself is read through its JSON.
		if t.Basic == "uint64" {
			paths = []string{""}
		}
	case model.ShapeSlice, model.ShapeMap:
		if t.Elem != nil {
			var p []string
			p, partial = w.ref(t.Elem)
			paths = prefixed("[*]", p)
		}
	case model.ShapeStruct:
		for _, f := range t.JSON {
			if f.IsUntyped {
				continue
			}
			p, part := w.ref(f.Type)
			paths = append(paths, prefixed("."+f.JSONName, p)...)
			partial = partial || part
		}
	}
	if !partial {
		w.memo[t] = paths
	}
	return paths, partial
}

func prefixed(prefix string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = prefix + p
	}
	return out
}
