package load

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/ssagen/ssagen/generator/model"
)

// validate checks the fields of generated types: merge markers must fit the
// field's type, and every struct must have an apply configuration.
//
// Rules apply to what the API uses, as controller-gen applies them: the
// types reachable from the kinds (and the kinds of --ensure-kinds). The
// CRD rules — json tags, unexported fields, floats, recursion — are not
// checked elsewhere, since no CRD holds those types; a type no kind
// reaches that breaks a builder rule is left out with a warning instead of
// failing the run (settleTypeErrs).
func (l *loader) validate() {
	reach := l.reachable()
	for _, in := range l.sortedInputs() {
		// A vendored package's CRD is its authors' and is served already:
		// controller-gen's rules for writing one are not checked there.
		crd := in.gv.CRD && !in.vendored
		for _, t := range in.gv.Types {
			done := l.modelling(t)
			l.checkInlineCycle(t)
			for _, f := range t.Fields {
				l.validateField(t, f)
				l.checkMapKeys(t.Name.Name+"."+f.GoName, f.Pos, f.Type, map[*model.Type]bool{})
				if crd && reach[t] {
					l.validateCRDField(t, f)
				}
			}
			done()
			if crd && t.Root != nil {
				l.checkRecursion(t)
			}
			if crd && reach[t] {
				for _, pos := range l.unexported[t] {
					l.errs.Add(pos, "export the field, or tag it `json:\"-\"`", "%s has an unexported field: encoding/json never writes it, while controller-gen puts it in the CRD", t.Name.Name)
				}
			}
		}
	}
	l.settleTypeErrs(reach)
}

// reachable is every type the kinds of the run use, through fields,
// pointers, slices and maps: what a CRD (or a built-in kind's schema) holds.
func (l *loader) reachable() map[*model.Type]bool {
	seen := map[*model.Type]bool{}
	var ref func(r *model.TypeRef)
	var visit func(t *model.Type)
	ref = func(r *model.TypeRef) {
		if r == nil {
			return
		}
		switch r.Kind {
		case model.RefPointer, model.RefSlice, model.RefMap:
			ref(r.Key)
			ref(r.Elem)
		case model.RefNamed:
			visit(r.Named)
		}
	}
	visit = func(t *model.Type) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		for _, f := range t.Fields {
			ref(f.Type)
		}
		ref(t.Key)
		ref(t.Elem)
	}
	for _, n := range sortedKeys(l.types) {
		if t := l.types[n]; t.Root != nil {
			visit(t)
		}
	}
	for pkg, kinds := range l.ensureKinds {
		for _, k := range kinds {
			visit(l.types[pkg+"."+k])
		}
	}
	return seen
}

// settleTypeErrs decides the errors found in each type (typeErr): those of
// a type a kind reaches fail the run; a generated type no kind reaches is
// left out of the output, with a warning, together with the unreached
// types that use it — controller-gen never looks at such a type, so it
// must not cost the user the whole API.
func (l *loader) settleTypeErrs(reach map[*model.Type]bool) {
	drop := map[*model.Type]bool{}
	for t, errs := range l.typeErrs {
		if reach[t] {
			for _, e := range errs.Sorted() {
				l.errs.Add(e.Pos, e.Hint, "%s", e.Msg)
			}
		} else {
			drop[t] = true
		}
	}
	if len(drop) == 0 {
		return
	}
	// What uses a dropped type goes too: its builder would refer to one
	// that is not written.
	uses := func(t *model.Type) bool {
		var in func(r *model.TypeRef) bool
		in = func(r *model.TypeRef) bool {
			switch {
			case r == nil:
				return false
			case r.Kind == model.RefNamed:
				return drop[r.Named]
			}
			return in(r.Key) || in(r.Elem)
		}
		for _, f := range t.Fields {
			if in(f.Type) {
				return true
			}
		}
		return in(t.Key) || in(t.Elem)
	}
	for grew := true; grew; {
		grew = false
		for _, n := range sortedKeys(l.types) {
			if t := l.types[n]; !drop[t] && !reach[t] && uses(t) {
				drop[t], grew = true, true
			}
		}
	}
	for _, in := range l.sortedInputs() {
		kept := in.gv.Types[:0]
		for _, t := range in.gv.Types {
			if !drop[t] {
				kept = append(kept, t)
				continue
			}
			why := "it uses a type left out"
			if errs := l.typeErrs[t]; errs != nil {
				first := errs.Sorted()[0]
				why = fmt.Sprintf("%s (%s)", first.Msg, shortPos(first.Pos))
			}
			l.warns.Add(t.Pos, "nothing to do unless you need its builder; then fix what the message names",
				"%s is left out of the output: no kind uses it, and %s", t.Name.Name, why)
		}
		in.gv.Types = kept
	}
	for n, t := range l.types {
		if drop[t] {
			delete(l.types, n)
		}
	}
}

// validateCRDField applies controller-gen's rules for CRD packages, where
// the CRD and the builders' JSON must agree.
func (l *loader) validateCRDField(t *model.Type, f *model.Field) {
	what := t.Name.Name + "." + f.GoName
	switch {
	case f.Inline:
	case !f.HasJSONTag:
		l.errs.Add(f.Pos, fmt.Sprintf("add a tag such as `json:\"%s,omitempty\"`", lowerFirst(f.GoName)),
			"%s has no json tag: controller-gen refuses such a field", what)
	case !f.Tagged && f.Embedded:
		l.errs.Add(f.Pos, fmt.Sprintf("name the field in its tag, such as `json:\"%s,omitempty\"`", lowerFirst(f.GoName)),
			"%s embeds a %s without a JSON name: controller-gen inlines it into its parent, which only a struct can be, while encoding/json writes it as %q", what, refString(f.Type), f.GoName)
	case !f.Tagged:
		l.errs.Add(f.Pos, fmt.Sprintf("name the field in its tag, such as `json:\"%s,omitempty\"`", lowerFirst(f.GoName)),
			"%s has a json tag without a name: controller-gen inlines such a field into its parent while encoding/json writes it as %q", what, f.GoName)
	}
	if !l.cfg.AllowDangerousTypes && !f.IsUntyped {
		if fl := floatIn(f.Type, map[*model.Type]bool{}); fl != "" {
			l.errs.Add(f.Pos, "use resource.Quantity or a string, or pass --allow-dangerous-types (controller-gen's crd:allowDangerousTypes=true)",
				"%s has a %s: floats differ across languages, and controller-gen refuses them unless dangerous types are allowed", what, fl)
		}
	}
}

// floatIn returns the float type a field's type holds, or "".
func floatIn(r *model.TypeRef, seen map[*model.Type]bool) string {
	switch r.Kind {
	case model.RefBasic:
		if r.Basic == "float32" || r.Basic == "float64" {
			return r.Basic
		}
	case model.RefPointer, model.RefSlice, model.RefMap:
		return floatIn(r.Elem, seen)
	case model.RefNamed:
		t := r.Named
		if t.Shape == model.ShapeValue && t.Value == model.ValueNumeric && t.Elem != nil {
			return floatIn(t.Elem, seen)
		}
		if (t.Shape == model.ShapeSlice || t.Shape == model.ShapeMap) && !seen[t] {
			seen[t] = true
			return floatIn(t.Elem, seen)
		}
	}
	return ""
}

// checkMapKeys reports maps whose keys are not strings: JSON object keys
// are strings, and controller-gen refuses other key types.
func (l *loader) checkMapKeys(what string, pos token.Position, r *model.TypeRef, seen map[*model.Type]bool) {
	switch r.Kind {
	case model.RefPointer, model.RefSlice:
		l.checkMapKeys(what, pos, r.Elem, seen)
	case model.RefMap:
		if !isStringish(r.Key) {
			l.typeErr(pos, "use a string (or a named string type) as the key", "%s is a map with %s keys: Kubernetes objects only have string keys", what, refString(r.Key))
		}
		l.checkMapKeys(what, pos, r.Elem, seen)
	case model.RefNamed:
		t := r.Named
		if (t.Shape == model.ShapeSlice || t.Shape == model.ShapeMap) && !seen[t] {
			seen[t] = true
			if t.Shape == model.ShapeMap && t.Key != nil && !isStringish(t.Key) {
				l.typeErr(pos, "use a string (or a named string type) as the key", "%s is a map with %s keys: Kubernetes objects only have string keys", what, refString(t.Key))
			}
			l.checkMapKeys(what, pos, t.Elem, seen)
		}
	}
}

func isStringish(r *model.TypeRef) bool {
	switch r.Kind {
	case model.RefBasic:
		return r.Basic == "string"
	case model.RefNamed:
		return r.Named.Shape == model.ShapeValue && r.Named.Value == model.ValueString
	}
	return false
}

func refString(r *model.TypeRef) string {
	switch r.Kind {
	case model.RefBasic:
		return r.Basic
	case model.RefNamed:
		return r.Named.Name.Name
	case model.RefPointer:
		return "*" + refString(r.Elem)
	}
	return "non-string"
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func (l *loader) validateField(t *model.Type, f *model.Field) {
	what := t.Name.Name + "." + f.GoName
	ref := f.Type.Deref()
	// Named slices and maps carry their markers on the type.
	merge := f.Merge(t.GV.CRD)
	listType, keys := merge.List, merge.Keys
	isList, isMap := ref.Kind == model.RefSlice, ref.Kind == model.RefMap
	var elem *model.TypeRef
	switch {
	case isList, isMap:
		elem = ref.Elem
	case ref.Kind == model.RefNamed && ref.Named.Shape == model.ShapeSlice:
		isList, elem = true, ref.Named.Elem
	case ref.Kind == model.RefNamed && ref.Named.Shape == model.ShapeMap:
		isMap, elem = true, ref.Named.Elem
	}
	if listType == model.ListSet && isList && !isScalarItem(elem) && !isAtomicStruct(elem) {
		l.typeErr(f.Pos, "use +listType=map with +listMapKey for a list of objects, or +listType=atomic", "+listType=set on %s, whose items are not scalars: the API server only accepts sets of scalars", what)
	}
	if listType != model.ListUnset {
		switch {
		case !isList && !t.GV.CRD:
			// The OpenAPI generator drops it (k8s.io/api's
			// ValidatingWebhook.SideEffects carries one); the API server
			// refuses it only in a CRD's schema.
			l.warns.Add(f.Pos, "remove +listType, or make the field a slice", "+listType=%s on %s, which is not a list, is ignored", listType, what)
		case !isList:
			l.typeErr(f.Pos, "remove +listType, or make the field a slice", "+listType=%s on %s, which is not a list", listType, what)
		case listType == model.ListMap:
			l.validateListMap(what, f, elem, keys, t.GV.CRD)
		}
	}
	if len(keys) > 0 && listType != model.ListMap && listType != model.ListUnset {
		l.typeErr(f.Pos, "use +listType=map with +listMapKey, or drop +listMapKey", "%s has +listMapKey but +listType=%s: keys only apply to +listType=map", what, listType)
	}
	if len(keys) > 0 && listType == model.ListUnset {
		l.typeErr(f.Pos, "add +listType=map", "%s has +listMapKey without +listType=map", what)
	}
	// +mapType and +structType both become x-kubernetes-map-type: either
	// fits a map or a struct (model.Field.ObjectType).
	isObject := isMap || (ref.Kind == model.RefNamed && ref.Named.Shape == model.ShapeStruct)
	for _, m := range []struct {
		name  string
		value model.ObjectType
	}{{"mapType", f.MapType}, {"structType", f.StructType}} {
		if m.value != model.ObjectUnset && !isObject {
			l.typeErr(f.Pos, "remove +"+m.name+", or make the field a map or a struct", "+%s=%s on %s, which is not a map or a struct", m.name, m.value, what)
		}
	}
	l.checkApplyConfig(what, f.Pos, f.Type)
}

func (l *loader) validateListMap(what string, f *model.Field, elem *model.TypeRef, keys []string, crd bool) {
	e := elem.Deref()
	if e.Kind != model.RefNamed || e.Named.Shape != model.ShapeStruct || len(e.Named.Fields) == 0 {
		l.typeErr(f.Pos, "use +listType=set for a list of scalars, or make the items structs", "+listType=map on %s, whose items are not structs", what)
		return
	}
	if len(keys) == 0 {
		l.typeErr(f.Pos, "add +listMapKey=<field> naming the field that identifies an item", "+listType=map on %s without +listMapKey", what)
		return
	}
	fields := map[string]*model.Field{}
	for _, jf := range e.Named.JSON {
		fields[jf.JSONName] = jf.Field
	}
	for _, k := range keys {
		kf, ok := fields[k]
		switch {
		case ok && !isScalarItem(kf.Type):
			l.typeErr(f.Pos, "name a field whose value is a string, number or boolean", "+listMapKey=%s on %s names %s.%s, which is not a scalar: list-map keys must be scalars", k, what, e.Named.Name.Name, kf.GoName)
		case !ok:
			l.typeErr(f.Pos, fmt.Sprintf("name one of the JSON fields of %s: %s", e.Named.Name.Name, strings.Join(sortedKeys(fields), ", ")),
				"+listMapKey=%s on %s: %s has no field with JSON name %q", k, what, e.Named.Name.Name, k)
		case kf.Optional && !kf.HasDefault && crd:
			// The API server refuses such a CRD.
			l.typeErr(kf.Pos, "make the key field required, or give it a +default", "+listMapKey=%s on %s names optional field %s.%s: every item must carry its key", k, what, e.Named.Name.Name, kf.GoName)
		case kf.Optional && !kf.HasDefault:
			// Built-in APIs do this (core/v1 ServiceAccount.Secrets); an item
			// without its key is refused only when it is sent.
			l.warns.Add(kf.Pos, "make the key field required, or give it a default", "+listMapKey=%s on %s names optional field %s.%s: an item without it cannot be applied", k, what, e.Named.Name.Name, kf.GoName)
		}
	}
}

// isAtomicStruct reports whether r is a struct replaced as a whole.
func isAtomicStruct(r *model.TypeRef) bool {
	r = r.Deref()
	return r.Kind == model.RefNamed && r.Named.Shape == model.ShapeStruct && r.Named.StructType == model.ObjectAtomic
}

// isScalarItem reports whether values of r are JSON scalars.
func isScalarItem(r *model.TypeRef) bool {
	r = r.Deref()
	switch r.Kind {
	case model.RefBasic:
		return true
	case model.RefNamed:
		return r.Named.Shape == model.ShapeValue && r.Named.Value != model.ValueUntypedAny && r.Named.Value != model.ValueDeduced
	}
	return false
}

// checkApplyConfig reports struct types that would need an apply
// configuration and have none: never a silent raw-struct fallback.
func (l *loader) checkApplyConfig(what string, pos token.Position, r *model.TypeRef) {
	switch r.Kind {
	case model.RefPointer, model.RefSlice, model.RefMap:
		l.checkApplyConfig(what, pos, r.Elem)
	case model.RefNamed:
		t := r.Named
		switch t.Shape {
		case model.ShapeStruct:
			if len(t.Fields) > 0 && t.ApplyConfig == nil && !(t.GV == nil && l.keepsRaw(t.Name)) {
				hint := fmt.Sprintf(externalFlagHint, t.Name)
				if d, ok := l.discovered[t.Name.Pkg]; ok && d.applyPkg == "" {
					hint += "; " + d.searched
					if len(d.rejected) > 0 {
						hint += ": " + strings.Join(d.rejected, "; ")
					} else {
						hint += ": none found"
					}
				}
				if p := l.applyPkgFor(t.Name); p != "" {
					if msg := l.externalErr[p]; msg != "" {
						hint = fmt.Sprintf("make %s loadable (go list says: %s)", p, strings.ReplaceAll(msg, "\n", " "))
					} else {
						hint = fmt.Sprintf("%s has no %sApplyConfiguration; ", p, t.Name.Name) + hint
					}
				}
				l.typeErr(pos, hint, "%s has type %s, which has no apply configuration", what, t.Name)
			}
		case model.ShapeSlice, model.ShapeMap:
			if t.Elem != nil && !l.checking[t] {
				l.checking[t] = true
				l.checkApplyConfig(what, pos, t.Elem)
				delete(l.checking, t)
			}
		}
	}
}

// checkRecursion finds the types of a CRD kind that hold themselves.
// controller-gen describes a type once and leaves the place where it recurs
// nearly empty: a struct gets a schema without a type and a list one without
// items, which the API server refuses; a map gets "type: object", which it
// accepts and prunes below. Recursion through inline embeds is flattened.
func (l *loader) checkRecursion(kind *model.Type) {
	const (
		white = iota
		gray
		black
	)
	color := map[*model.Type]int{}
	var visit func(t *model.Type)
	var walk func(r *model.TypeRef, inline bool, pos token.Position, what string)
	walk = func(r *model.TypeRef, inline bool, pos token.Position, what string) {
		r = r.Deref()
		switch r.Kind {
		case model.RefSlice, model.RefMap:
			walk(r.Elem, false, pos, what)
		case model.RefNamed:
			t := r.Named
			switch color[t] {
			case white:
				visit(t)
			case gray:
				switch {
				case inline:
				case t.Shape == model.ShapeMap:
					l.warns.Add(pos, "bound the nesting with a struct per level, or mark the field +kubebuilder:pruning:PreserveUnknownFields",
						"%s holds %s, which holds itself: controller-gen describes one level of it, and the API server prunes what is nested deeper", what, t.Name.Name)
				case t.Shape == model.ShapeStruct || t.Shape == model.ShapeSlice:
					l.errs.Add(pos, "bound the nesting with a struct per level, or mark the field +kubebuilder:validation:Schemaless with +kubebuilder:pruning:PreserveUnknownFields",
						"%s holds %s, which holds itself: controller-gen writes the inner %s without a %s, which the API server refuses",
						what, t.Name.Name, t.Name.Name, map[bool]string{true: "type", false: "list of items"}[t.Shape == model.ShapeStruct])
				}
			}
		}
	}
	visit = func(t *model.Type) {
		color[t] = gray
		switch t.Shape {
		case model.ShapeStruct:
			for _, f := range t.Fields {
				if !f.IsUntyped && !f.Hidden {
					walk(f.Type, f.Inline, f.Pos, t.Name.Name+"."+f.GoName)
				}
			}
		case model.ShapeSlice, model.ShapeMap:
			walk(t.Elem, false, t.Pos, t.Name.Name)
		}
		color[t] = black
	}
	visit(kind)
}

// checkInlineCycle refuses a struct that reaches itself through inline
// embeds alone (A inlines *B, B inlines *A): encoding/json stops at the
// repeat, but structured-merge-diff's reflection recurses into it for
// ever, so the generated Extract and the helpers' skip check would
// overflow the stack.
func (l *loader) checkInlineCycle(t *model.Type) {
	var path []string
	var walk func(cur *model.Type, seen map[*model.Type]bool) *model.Field
	walk = func(cur *model.Type, seen map[*model.Type]bool) *model.Field {
		for _, f := range cur.Fields {
			if !f.Inline {
				continue
			}
			r := f.Type.Deref()
			if r.Kind != model.RefNamed || r.Named == nil {
				continue
			}
			if r.Named == t {
				path = append(path, r.Named.Name.Name)
				return f
			}
			if seen[r.Named] {
				continue
			}
			seen[r.Named] = true
			path = append(path, r.Named.Name.Name)
			if hit := walk(r.Named, seen); hit != nil {
				return hit
			}
			path = path[:len(path)-1]
		}
		return nil
	}
	if f := walk(t, map[*model.Type]bool{t: true}); f != nil {
		l.typeErr(f.Pos, "give one of the embeds a JSON name (`json:\"link\"`) to break the cycle",
			"%s inlines itself through %s (json:\",inline\" embeds): structured-merge-diff's reflection recurses into such a cycle for ever, so the generated Extract and the Ensure helpers would overflow the stack",
			t.Name.Name, strings.Join(append([]string{t.Name.Name}, path...), " → "))
	}
}
