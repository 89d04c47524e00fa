package ensure

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// Diff is what an apply would change, by field path
// (.spec.ports[name="http"].port): fields it would add, fields whose value
// would change, fields it would remove (pruned: this manager set them
// before and no longer does). Text is the same, one line per field, for
// logs: "+ path: value", "~ path: old -> new", "- path: old".
type Diff struct {
	Added, Changed, Removed []string
	Text                    string
}

// Empty reports whether the apply would change nothing.
func (d *Diff) Empty() bool { return len(d.Added)+len(d.Changed)+len(d.Removed) == 0 }

// Preview makes the call a dry run: nothing is written, and d receives what
// the apply would change. It costs one dry-run apply, and none when the
// skip cache or the live object shows the intent already applied (d is
// then empty). The result is what the apply would do (Created, Configured,
// Unchanged, Skipped). A migration from Update, which a real apply would
// do first, is not previewed. Nothing is remembered either — neither what
// the live object showed nor an *ImmutableError the dry run got — so the
// real apply afterwards is sent (or skipped) as it would have been
// without the Preview.
func Preview(d *Diff) ApplyOption { return applyFunc(func(o *options) { o.preview = d }) }

// volatile are paths every write changes: no part of a preview.
var volatile = fieldpath.NewSet(
	fieldpath.MakePathOrDie("metadata", "resourceVersion"),
	fieldpath.MakePathOrDie("metadata", "generation"),
	fieldpath.MakePathOrDie("metadata", "managedFields"),
	fieldpath.MakePathOrDie("metadata", "creationTimestamp"),
	fieldpath.MakePathOrDie("metadata", "uid"),
)

// diff compares the live object (nil: none yet) with the dry run's answer.
func diff(t *typed.ParseableType, live, answer client.Object) (Diff, error) {
	pt := schemaOr(t)
	after, err := typedOf(pt, answer)
	if err != nil {
		return Diff{}, err
	}
	before, err := typedOf(pt, live)
	if err != nil {
		return Diff{}, err
	}
	cmp, err := before.Compare(after)
	if err != nil {
		return Diff{}, fmt.Errorf("ensure: preview: %w", err)
	}
	var d Diff
	var lines []string
	each := func(s *fieldpath.Set, f func(fieldpath.Path)) {
		s.Leaves().Iterate(func(p fieldpath.Path) {
			for i := 1; i <= len(p); i++ {
				if volatile.Has(p[:i]) {
					return
				}
			}
			f(p)
		})
	}
	each(cmp.Added, func(p fieldpath.Path) {
		d.Added = append(d.Added, p.String())
		lines = append(lines, "+ "+p.String()+": "+show(after.AsValue(), p))
	})
	each(cmp.Modified, func(p fieldpath.Path) {
		d.Changed = append(d.Changed, p.String())
		lines = append(lines, "~ "+p.String()+": "+show(before.AsValue(), p)+" -> "+show(after.AsValue(), p))
	})
	each(cmp.Removed, func(p fieldpath.Path) {
		d.Removed = append(d.Removed, p.String())
		lines = append(lines, "- "+p.String()+": "+show(before.AsValue(), p))
	})
	sort.Strings(d.Added)
	sort.Strings(d.Changed)
	sort.Strings(d.Removed)
	sort.Slice(lines, func(i, j int) bool { return lines[i][2:] < lines[j][2:] })
	d.Text = strings.Join(lines, "\n")
	return d, nil
}

// localMerge is what an apply of intent would make of live (nil: none),
// merged by the kind's schema without a server: no defaulting, and no
// pruning of fields this manager stopped setting.
func localMerge(t *typed.ParseableType, live client.Object, intent *unstructured.Unstructured) (client.Object, error) {
	pt := schemaOr(t)
	base, err := typedOf(pt, live)
	if err != nil {
		return nil, err
	}
	in, err := typedOf(pt, intent)
	if err != nil {
		return nil, err
	}
	merged, err := base.Merge(in)
	if err != nil {
		return nil, fmt.Errorf("ensure: preview: %w", err)
	}
	m, ok := merged.AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, fmt.Errorf("ensure: preview: the merged object is not an object")
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// schemaOr is the kind's schema, or a deduced one when Ensure has none.
func schemaOr(t *typed.ParseableType) typed.ParseableType {
	if t != nil {
		return *t
	}
	return typed.DeducedParseableType
}

// show prints the value at p in v as JSON.
func show(v value.Value, p fieldpath.Path) string {
	for _, pe := range p {
		next, ok := step(v, pe)
		if !ok {
			return "?"
		}
		v = next
	}
	b, err := value.ToJSON(v)
	if err != nil {
		return "?"
	}
	return string(b)
}

// step follows one path element into v.
func step(v value.Value, pe fieldpath.PathElement) (value.Value, bool) {
	switch {
	case pe.FieldName != nil:
		if v == nil || !v.IsMap() {
			return nil, false
		}
		return v.AsMap().Get(*pe.FieldName)
	case v == nil || !v.IsList():
		return nil, false
	case pe.Index != nil:
		l := v.AsList()
		if *pe.Index < 0 || *pe.Index >= l.Length() {
			return nil, false
		}
		return l.At(*pe.Index), true
	}
	l := v.AsList()
	for i := 0; i < l.Length(); i++ {
		item := l.At(i)
		switch {
		case pe.Value != nil:
			if value.Equals(item, *pe.Value) {
				return item, true
			}
		case pe.Key != nil && item.IsMap():
			m, match := item.AsMap(), true
			for _, k := range *pe.Key {
				got, ok := m.Get(k.Name)
				match = match && ok && value.Equals(got, k.Value)
			}
			if match {
				return item, true
			}
		}
	}
	return nil, false
}
