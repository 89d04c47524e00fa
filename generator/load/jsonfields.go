package load

import (
	"sort"
	"strings"

	"github.com/ssagen/ssagen/generator/model"
)

// resolveJSON settles, once for every struct type, which fields
// encoding/json writes (model.ResolveJSON). Two fields of an input type
// that hide each other are an error at both declarations: the builder
// would set a field that is never sent.
func (l *loader) resolveJSON() {
	for _, n := range sortedKeys(l.types) {
		t := l.types[n]
		if t.Shape != model.ShapeStruct {
			continue
		}
		var ambiguous [][]model.JSONField
		t.JSON, ambiguous = model.ResolveJSON(t)
		if t.GV == nil {
			continue
		}
		for _, tied := range ambiguous {
			var where []string
			for _, f := range tied {
				where = append(where, fieldPath(f)+" at "+shortPos(f.Pos))
			}
			for _, f := range tied {
				l.typeErrOf(t, f.Pos, "rename one of them with a json tag, or tag one so that it dominates: encoding/json drops both",
					"%s: JSON field %q is declared %d times at the same depth, so encoding/json writes none of them: %s",
					t.Name.Name, f.JSONName, len(tied), strings.Join(where, ", "))
			}
		}
	}
}

// fieldPath names a JSON field by the Go fields leading to it (Inner.Name).
func fieldPath(f model.JSONField) string {
	parts := make([]string, 0, len(f.Via)+1)
	for _, v := range f.Via {
		parts = append(parts, v.GoName)
	}
	return strings.Join(append(parts, f.GoName), ".")
}

// warnPatchTags warns where a CRD package states list semantics with
// patch tags only: controller-gen ignores them, so the CRD's list is
// atomic (model.Field.Merge), whatever the author meant.
func (l *loader) warnPatchTags() {
	for _, in := range l.sortedInputs() {
		if !in.gv.CRD {
			continue
		}
		for _, t := range in.gv.Types {
			for _, f := range t.Fields {
				if f.PatchMerge && f.ListType == model.ListUnset {
					l.warns.Add(f.Pos, "add +listType=map and +listMapKey="+orName(f.PatchMergeKey)+" (or +listType=atomic) to say what you mean",
						"%s.%s has patchStrategy:\"merge\" but no +listType: controller-gen ignores patch tags, so the CRD makes the list atomic, and so does ssagen", t.Name.Name, f.GoName)
				}
			}
		}
	}
}

func orName(key string) string {
	if key == "" {
		return "<key>"
	}
	return key
}

// sortedKeys returns a map's keys in order: every walk over a map that
// reports errors or builds output goes in this order, so runs are stable.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
