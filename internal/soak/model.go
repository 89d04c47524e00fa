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

// Apply is a forced server-side apply of fs by manager, to the object or
// to its status (fs's paths say which: "status." ones are the status
// subresource's; an apply to one endpoint never gives up fields of the
// other). It reports whether the object changed: a value, a field added
// or removed, or ownership (what makes the API server write a new
// resourceVersion). An apply to an object that does not exist creates it.
func (o *Object) Apply(manager string, fs Fields) bool {
	changed := !o.Exists
	o.Exists = true
	status := false
	for p := range fs {
		status = status || isStatus(p)
	}
	for _, list := range Atomic {
		if o.applyAtomic(manager, list, fs) {
			changed = true
		}
	}
	for p, v := range fs {
		if atomicItem(p) {
			continue
		}
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
		if _, kept := fs[p]; kept || !f.owners[manager] || isStatus(p) != status {
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

// Rewrite is a mutating webhook's rewrite of the value at path during a
// write: the value changes, its owners stay (the API server attributes
// admission's changes to no one).
func (o *Object) Rewrite(path, value string) {
	if f := o.fields[path]; f != nil {
		f.value = value
	}
}

// applyAtomic applies the items fs holds of the atomic list: the same
// items are shared with their owners, other items replace the whole list.
// With no item in fs, the list is left to the generic loop (a manager
// giving it up).
func (o *Object) applyAtomic(manager, list string, fs Fields) bool {
	var want, have []string
	for p := range fs {
		if strings.HasPrefix(p, list+"[") {
			want = append(want, p)
		}
	}
	if len(want) == 0 {
		return false
	}
	for p := range o.fields {
		if strings.HasPrefix(p, list+"[") {
			have = append(have, p)
		}
	}
	slices.Sort(want)
	slices.Sort(have)
	if slices.Equal(want, have) {
		changed := false
		for _, p := range have {
			if f := o.fields[p]; !f.owners[manager] {
				f.owners[manager] = true
				changed = true
			}
		}
		return changed
	}
	for _, p := range have {
		delete(o.fields, p)
	}
	for _, p := range want {
		o.fields[p] = &field{value: fs[p], owners: map[string]bool{manager: true}}
	}
	return true
}

// isStatus reports a path of the status subresource.
func isStatus(p string) bool { return strings.HasPrefix(p, "status.") }

// atomicItem reports a path inside an atomic list.
func atomicItem(p string) bool {
	return slices.ContainsFunc(Atomic, func(list string) bool { return strings.HasPrefix(p, list+"[") })
}

// BeforeFirstApply is the manager the API server gives every field of the
// object (not of its status) when it is applied with no managedFields.
const BeforeFirstApply = "before-first-apply"

// Reset is what the API server leaves after it drops every managedFields
// entry (kubernetes #136919) and the next apply comes: every field of the
// object owned by BeforeFirstApply alone, the status's owned by no one.
func (o *Object) Reset() {
	for p, f := range o.fields {
		if isStatus(p) {
			f.owners = map[string]bool{}
		} else {
			f.owners = map[string]bool{BeforeFirstApply: true}
		}
	}
}

// Release takes out of BeforeFirstApply's ownership the fields of the
// object manager owns: the patch Ensure sends after its first apply since
// a reset, so that a field the intent drops later is pruned. It reports
// whether anything moved.
func (o *Object) Release(manager string) bool {
	moved := false
	for p, f := range o.fields {
		if !isStatus(p) && f.owners[manager] && f.owners[BeforeFirstApply] {
			delete(f.owners, BeforeFirstApply)
			moved = true
		}
	}
	return moved
}

// Migrate moves what the managers from own to manager (csaupgrade), on
// the object and its status. It reports whether anything moved.
func (o *Object) Migrate(from []string, manager string) bool {
	moved := false
	for _, f := range o.fields {
		for _, m := range from {
			if f.owners[m] {
				delete(f.owners, m)
				f.owners[manager] = true
				moved = true
			}
		}
	}
	return moved
}

// ValuesWouldChange reports whether Apply(manager, fs) would change a
// value (a field added, changed or removed), not only ownership.
func (o *Object) ValuesWouldChange(manager string, fs Fields) bool {
	c := o.clone()
	c.Apply(manager, fs)
	return !maps.Equal(c.Values(), o.Values())
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
