package soak

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Fields maps a leaf field's path to its value. Paths are dotted; list-map
// items and set values are in brackets: "data.k", "metadata.labels.app",
// "spec.listeners[http].port", "spec.listeners[http].hostnames[a.example.com]"
// (a set value has the value ""), "metadata.ownerReferences[<uid>]".
type Fields map[string]string

// Webhook is the pseudo-manager of fields a mutating webhook defaults: the
// API server attributes them to no one (managedFields are computed before
// admission), so they are checked by value only.
const Webhook = "(webhook)"

// field is one leaf of an object: its value and the managers that own it.
type field struct {
	value  string
	owners map[string]bool
}

// Object is what the model expects of one child: whether it exists, and
// each leaf with its value and owners, following server-side apply's rules
// (a changed value belongs to whoever changed it; a forced apply takes a
// field from everyone; an apply that leaves a field out gives it up, and a
// field nobody owns is removed).
type Object struct {
	Exists bool
	fields map[string]*field
}

// NewObject is a child that does not exist yet.
func NewObject() *Object { return &Object{fields: map[string]*field{}} }

// Create makes the object exist with fs, all owned by manager (a Create is
// an Update of every field it sets).
func (o *Object) Create(manager string, fs Fields) {
	o.Exists = true
	o.fields = map[string]*field{}
	for p, v := range fs {
		o.fields[p] = &field{value: v, owners: map[string]bool{manager: true}}
	}
}

// Delete removes the object and everything in it.
func (o *Object) Delete() {
	o.Exists = false
	o.fields = map[string]*field{}
}

// Apply is a forced server-side apply of fs by manager. It reports whether
// the object changed: a value, a field added or removed, or ownership
// (what makes the API server write a new resourceVersion). An apply to an
// object that does not exist creates it.
func (o *Object) Apply(manager string, fs Fields) bool {
	changed := !o.Exists
	o.Exists = true
	for p, v := range fs {
		f := o.fields[p]
		switch {
		case f == nil:
			o.fields[p] = &field{value: v, owners: map[string]bool{manager: true}}
			changed = true
		case f.value != v:
			f.value, f.owners = v, map[string]bool{manager: true}
			changed = true
		case !f.owners[manager]:
			f.owners[manager] = true
			changed = true
		}
	}
	for p, f := range o.fields {
		if _, kept := fs[p]; kept || !f.owners[manager] {
			continue
		}
		delete(f.owners, manager)
		changed = true
		if len(f.owners) == 0 {
			delete(o.fields, p)
		}
	}
	return changed
}

// WouldChange reports whether Apply(manager, fs) would change the object,
// without changing it.
func (o *Object) WouldChange(manager string, fs Fields) bool {
	return o.clone().Apply(manager, fs)
}

// Update is a write by manager with the Update operation (a PUT, a patch):
// every value it changes becomes manager's alone; a nil value removes the
// field. It reports the fields it took from other owners.
func (o *Object) Update(manager string, changes map[string]*string) (taken []string) {
	for p, v := range changes {
		f := o.fields[p]
		if v == nil {
			if f != nil {
				taken = append(taken, p)
				delete(o.fields, p)
			}
			continue
		}
		if f != nil && f.value == *v {
			continue // an unchanged value is not claimed
		}
		if f != nil {
			taken = append(taken, p)
		}
		o.fields[p] = &field{value: *v, owners: map[string]bool{manager: true}}
	}
	slices.Sort(taken)
	return taken
}

// Default sets a field the way a mutating webhook does: when it is absent.
func (o *Object) Default(path, value string) {
	if _, ok := o.fields[path]; !ok {
		o.fields[path] = &field{value: value, owners: map[string]bool{Webhook: true}}
	}
}

// Values is the object as the model expects it, leaf by leaf.
func (o *Object) Values() Fields {
	out := Fields{}
	for p, f := range o.fields {
		out[p] = f.value
	}
	return out
}

// Owners is the sorted list of managers of the field at path.
func (o *Object) Owners(path string) []string {
	f := o.fields[path]
	if f == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(f.owners))
}

// OwnedBy is the set of paths manager owns.
func (o *Object) OwnedBy(manager string) []string {
	var out []string
	for p, f := range o.fields {
		if f.owners[manager] {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// Managers are the managers owning at least one field, the webhook excluded.
func (o *Object) Managers() []string {
	set := map[string]bool{}
	for _, f := range o.fields {
		for m := range f.owners {
			if m != Webhook {
				set[m] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

func (o *Object) clone() *Object {
	c := &Object{Exists: o.Exists, fields: make(map[string]*field, len(o.fields))}
	for p, f := range o.fields {
		c.fields[p] = &field{value: f.value, owners: maps.Clone(f.owners)}
	}
	return c
}

// Diff lists how have differs from want, one line per field, sorted.
func Diff(want, have Fields) []string {
	var out []string
	for p, w := range want {
		h, ok := have[p]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: missing, want %q", p, w))
		case h != w:
			out = append(out, fmt.Sprintf("%s: %q, want %q", p, h, w))
		}
	}
	for p, h := range have {
		if _, ok := want[p]; !ok {
			out = append(out, fmt.Sprintf("%s: %q, want no such field", p, h))
		}
	}
	slices.Sort(out)
	return out
}

// Atomic are the lists of the model's kinds that are atomic: their owner
// owns every item.
var Atomic = []string{"status.addresses"}

// Covers reports whether a path of a managedFields entry (owned) names the
// model's path p: the same leaf, a child of it (a field of an owner
// reference), or an atomic list that holds it. A granular map or list
// that an entry names with no children left (the API server keeps
// "f:labels":{} after another writer took every label) covers nothing.
func Covers(owned, p string) bool {
	if owned == p || strings.HasPrefix(owned, p+".") {
		return true
	}
	return slices.Contains(Atomic, owned) && strings.HasPrefix(p, owned+"[")
}
