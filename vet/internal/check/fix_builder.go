package check

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// Builder turns a composite literal of a typed struct into the builder
// chain of ac (the apply configuration for it); ok is false when some
// field cannot be carried over mechanically.
func (f *Fixer) Builder(lit *ast.CompositeLit, ac *types.Named, top bool) (string, bool) {
	acPkg := ac.Obj().Pkg()
	ctorName := strings.TrimSuffix(ac.Obj().Name(), "ApplyConfiguration")
	// The constructor's arity: from its signature when the package is
	// loaded whole; from export data only the types the helper mentions
	// are known, and then the generators' convention decides: Kind() for
	// nested types, Kind(name, namespace) for a namespaced object,
	// Kind(name) for a cluster-scoped one.
	params := -1
	if ctor, ok := acPkg.Scope().Lookup(ctorName).(*types.Func); ok {
		params = ctor.Type().(*types.Signature).Params().Len()
	} else if !top {
		params = 0
	}
	var name, namespace string
	var chain []string
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			return "", false // positional fields
		}
		key, ok := kv.Key.(*ast.Ident)
		if !ok {
			return "", false
		}
		switch key.Name {
		case "TypeMeta":
			continue
		case "ObjectMeta":
			var meta []string
			if !top {
				return "", false
			}
			if name, namespace, meta, ok = f.objectMeta(ac, kv.Value); !ok {
				return "", false
			}
			chain = append(chain, meta...)
			continue
		}
		call, ok := f.with(ac, key.Name, kv.Value)
		if !ok {
			return "", false
		}
		chain = append(chain, call)
	}
	args, ok := ctorArgs(params, name, namespace)
	if !ok {
		return "", false
	}
	return chainText(f.Qualify(acPkg, "ac")+"."+ctorName+"("+strings.Join(args, ", ")+")", chain), true
}

// objectMeta reads an ObjectMeta literal: its name and namespace, which
// the constructor takes, and the With… calls of its other fields; not ok
// for fields an apply configuration must not carry (owner references, a
// resourceVersion, a UID, managedFields, a generateName).
func (f *Fixer) objectMeta(ac *types.Named, value ast.Expr) (name, namespace string, chain []string, ok bool) {
	meta, isLit := ast.Unparen(value).(*ast.CompositeLit)
	if !isLit {
		return "", "", nil, false
	}
	for _, m := range meta.Elts {
		mkv, isKV := m.(*ast.KeyValueExpr)
		if !isKV {
			return "", "", nil, false
		}
		mkey, _ := mkv.Key.(*ast.Ident)
		if mkey == nil {
			return "", "", nil, false
		}
		switch mkey.Name {
		case "Name":
			name = f.Node(mkv.Value)
		case "Namespace":
			namespace = f.Node(mkv.Value)
		case "OwnerReferences", "ResourceVersion", "UID", "ManagedFields", "GenerateName":
			return "", "", nil, false
		default:
			call, withOK := f.with(ac, mkey.Name, mkv.Value)
			if !withOK {
				return "", "", nil, false
			}
			chain = append(chain, call)
		}
	}
	return name, namespace, chain, true
}

// ctorArgs are the constructor's arguments for its arity (-1: unknown,
// then one for a cluster-scoped object, two for a namespaced one).
func ctorArgs(params int, name, namespace string) ([]string, bool) {
	if params < 0 {
		params = 1
		if namespace != "" {
			params = 2
		}
	}
	switch {
	case params == 0:
		return nil, true
	case params == 1 && name != "" && namespace == "":
		return []string{name}, true
	case params == 2 && name != "" && namespace != "":
		return []string{name, namespace}, true
	}
	return nil, false
}

// chainWidth is the longest builder chain kept on one line: about 100
// columns once the statement around it and its indentation are added.
const chainWidth = 80

// chainText joins a constructor call and its With… calls as a person
// writes them: on one line while that fits in chainWidth and no argument
// spans lines, else one With… per line (gofmt indents them).
func chainText(head string, chain []string) string {
	one := head + strings.Join(chain, "")
	if len(chain) < 2 && !strings.Contains(one, "\n") || len(one) <= chainWidth && !strings.Contains(one, "\n") {
		return one
	}
	var b strings.Builder
	b.WriteString(head)
	for _, c := range chain {
		b.WriteString(".\n")
		b.WriteString(strings.TrimPrefix(c, "."))
	}
	return b.String()
}

// with returns ".With<Field>(args)" carrying value over to ac.
func (f *Fixer) with(ac *types.Named, field string, value ast.Expr) (string, bool) {
	obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(ac), true, ac.Obj().Pkg(), "With"+field)
	m, ok := obj.(*types.Func)
	if !ok {
		return "", false
	}
	sig := m.Type().(*types.Signature)
	if sig.Params().Len() != 1 {
		return "", false
	}
	param := sig.Params().At(0).Type()
	vt := f.p.TypesInfo.TypeOf(value)
	value = ast.Unparen(value)
	var arg string
	switch {
	case sig.Variadic():
		arg, ok = f.variadicArg(param.(*types.Slice).Elem(), vt, value)
	case ACNamed(param) != nil:
		lit, isLit := value.(*ast.CompositeLit)
		if u, isAddr := value.(*ast.UnaryExpr); isAddr && u.Op == token.AND {
			lit, isLit = ast.Unparen(u.X).(*ast.CompositeLit)
		}
		if !isLit {
			return "", false
		}
		arg, ok = f.Builder(lit, ACNamed(param), false)
	default:
		arg, ok = f.valueArg(param, vt, value)
	}
	if !ok {
		return "", false
	}
	return ".With" + field + "(" + arg + ")", true
}

// same reports two types identical as the package sees them.
func (f *Fixer) same(a, b types.Type) bool { return types.Identical(f.p.localOr(a), f.p.localOr(b)) }

// variadicArg is the argument list of a variadic With… of elem for value:
// the builders of a literal's nested items, a literal's items, or a
// slice spread.
func (f *Fixer) variadicArg(elem, vt types.Type, value ast.Expr) (string, bool) {
	lit, isLit := value.(*ast.CompositeLit)
	if nested := ACNamed(elem); nested != nil {
		if !isLit {
			return "", false
		}
		var args []string
		for _, e := range lit.Elts {
			el, ok := ast.Unparen(e).(*ast.CompositeLit)
			if u, isAddr := ast.Unparen(e).(*ast.UnaryExpr); isAddr && u.Op == token.AND {
				el, ok = ast.Unparen(u.X).(*ast.CompositeLit)
			}
			if !ok {
				return "", false
			}
			b, ok := f.Builder(el, nested, false)
			if !ok {
				return "", false
			}
			args = append(args, b)
		}
		return strings.Join(args, ", "), true
	}
	s, ok := vt.(*types.Slice)
	if !ok || !f.same(s.Elem(), elem) {
		return "", false
	}
	if !isLit {
		return f.Node(value) + "...", true
	}
	var args []string
	for _, e := range lit.Elts {
		if _, kv := e.(*ast.KeyValueExpr); kv {
			return "", false
		}
		args = append(args, f.Node(e))
	}
	return strings.Join(args, ", "), true
}

// valueArg is the argument of a With… of param for value: the value, or
// what a pointer to it is made from (&x, ptr.To(x)).
func (f *Fixer) valueArg(param, vt types.Type, value ast.Expr) (string, bool) {
	if vt != nil && f.same(vt, param) {
		return f.Node(value), true
	}
	ptr, ok := vt.(*types.Pointer)
	if !ok || !f.same(ptr.Elem(), param) {
		return "", false
	}
	switch v := value.(type) {
	case *ast.UnaryExpr:
		if _, lit := ast.Unparen(v.X).(*ast.CompositeLit); v.Op == token.AND && !lit {
			return f.Node(v.X), true
		}
	case *ast.CallExpr:
		if fn := f.p.Callee(v); fn != nil && len(v.Args) == 1 && (fn.Name() == "To" || fn.Name() == "Ptr") {
			return f.Node(v.Args[0]), true
		}
	}
	return "", false
}

// Converted is the call of the generated converter of ac's kind on the
// typed expression e (a *Kind): <prefix><Kind> (From, or StatusFrom for
// a status), found in the helper's package (built-in and third-party
// kinds of --ensure-kinds) or in ac's (the user's kinds). ok is false
// when neither has it and ac is published elsewhere (client-go's, which
// has none). The fix is type-checked before it is offered, so a
// converter assumed by convention that is not there declines it then.
func (f *Fixer) Converted(prefix string, ac *types.Named, helper *types.Func, e ast.Expr) (string, bool) {
	arg := f.Node(e)
	name := prefix + strings.TrimSuffix(ac.Obj().Name(), "ApplyConfiguration")
	converts := func(pkg *types.Package) bool {
		fn, ok := pkg.Scope().Lookup(name).(*types.Func)
		if !ok {
			return false
		}
		sig := fn.Type().(*types.Signature)
		if sig.Params().Len() != 1 || sig.Results().Len() != 1 {
			return false
		}
		res := ACNamed(sig.Results().At(0).Type())
		return res != nil && res.Obj().Name() == ac.Obj().Name() && res.Obj().Pkg().Path() == ac.Obj().Pkg().Path()
	}
	switch acPkg := ac.Obj().Pkg(); {
	case converts(helper.Pkg()):
		return f.Qualify(helper.Pkg(), "") + "." + name + "(" + arg + ")", true
	case converts(acPkg), !strings.HasPrefix(acPkg.Path(), "k8s.io/client-go/"):
		return f.Qualify(acPkg, "ac") + "." + name + "(" + arg + ")", true
	}
	return "", false
}
