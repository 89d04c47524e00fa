package check

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// builder turns a composite literal of a typed struct into the builder
// chain of ac (the apply configuration for it); ok is false when some
// field cannot be carried over mechanically.
func (f *Fixer) builder(lit *ast.CompositeLit, ac *types.Named, top bool) (string, bool) {
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
			if !top {
				return "", false
			}
			meta, ok := ast.Unparen(kv.Value).(*ast.CompositeLit)
			if !ok {
				return "", false
			}
			for _, m := range meta.Elts {
				mkv, ok := m.(*ast.KeyValueExpr)
				if !ok {
					return "", false
				}
				mkey, _ := mkv.Key.(*ast.Ident)
				if mkey == nil {
					return "", false
				}
				switch mkey.Name {
				case "Name":
					name = f.node(mkv.Value)
				case "Namespace":
					namespace = f.node(mkv.Value)
				case "OwnerReferences", "ResourceVersion", "UID", "ManagedFields", "GenerateName":
					return "", false
				default:
					call, ok := f.with(ac, mkey.Name, mkv.Value)
					if !ok {
						return "", false
					}
					chain = append(chain, call)
				}
			}
			continue
		}
		call, ok := f.with(ac, key.Name, kv.Value)
		if !ok {
			return "", false
		}
		chain = append(chain, call)
	}
	if params < 0 {
		params = 1
		if namespace != "" {
			params = 2
		}
	}
	var args []string
	switch params {
	case 0:
	case 1:
		if name == "" || namespace != "" {
			return "", false
		}
		args = []string{name}
	case 2:
		if name == "" || namespace == "" {
			return "", false
		}
		args = []string{name, namespace}
	default:
		return "", false
	}
	return chainText(f.Qualify(acPkg, "ac")+"."+ctorName+"("+strings.Join(args, ", ")+")", chain), true
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
	same := func(a, b types.Type) bool { return types.Identical(f.p.localOr(a), f.p.localOr(b)) }
	value = ast.Unparen(value)
	if sig.Variadic() {
		elem := param.(*types.Slice).Elem()
		if nested := acNamed(elem); nested != nil {
			lit, ok := value.(*ast.CompositeLit)
			if !ok {
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
				b, ok := f.builder(el, nested, false)
				if !ok {
					return "", false
				}
				args = append(args, b)
			}
			return ".With" + field + "(" + strings.Join(args, ", ") + ")", true
		}
		if s, ok := vt.(*types.Slice); ok && same(s.Elem(), elem) {
			if lit, ok := value.(*ast.CompositeLit); ok {
				var args []string
				for _, e := range lit.Elts {
					if _, kv := e.(*ast.KeyValueExpr); kv {
						return "", false
					}
					args = append(args, f.node(e))
				}
				return ".With" + field + "(" + strings.Join(args, ", ") + ")", true
			}
			return ".With" + field + "(" + f.node(value) + "...)", true
		}
		return "", false
	}
	if nested := acNamed(param); nested != nil {
		lit, ok := value.(*ast.CompositeLit)
		if u, isAddr := value.(*ast.UnaryExpr); isAddr && u.Op == token.AND {
			lit, ok = ast.Unparen(u.X).(*ast.CompositeLit)
		}
		if !ok {
			return "", false
		}
		b, ok := f.builder(lit, nested, false)
		if !ok {
			return "", false
		}
		return ".With" + field + "(" + b + ")", true
	}
	if vt != nil && same(vt, param) {
		return ".With" + field + "(" + f.node(value) + ")", true
	}
	// A pointer field set from &x or ptr.To(x): the builder takes the value.
	if ptr, ok := vt.(*types.Pointer); ok && same(ptr.Elem(), param) {
		switch v := value.(type) {
		case *ast.UnaryExpr:
			if v.Op == token.AND {
				if _, lit := ast.Unparen(v.X).(*ast.CompositeLit); !lit {
					return ".With" + field + "(" + f.node(v.X) + ")", true
				}
			}
		case *ast.CallExpr:
			if fn := f.p.Callee(v); fn != nil && len(v.Args) == 1 && (fn.Name() == "To" || fn.Name() == "Ptr") {
				return ".With" + field + "(" + f.node(v.Args[0]) + ")", true
			}
		}
	}
	return "", false
}

// converted is the call of the generated converter of ac's kind on the
// typed expression e (a *Kind): From<Kind>, found in the helper's package
// (built-in and third-party kinds of --ensure-kinds) or in ac's (the
// user's kinds). ok is false when neither has it and ac is published
// elsewhere (client-go's, which has none). The fix is type-checked before
// it is offered, so a converter assumed by convention that is not there
// declines it then.
func (f *Fixer) converted(ac *types.Named, helper *types.Func, e ast.Expr) (string, bool) {
	return f.convertedAs("From", ac, helper, e)
}

// convertedAs is converted with the converter's prefix: From, or
// StatusFrom for a status.
func (f *Fixer) convertedAs(prefix string, ac *types.Named, helper *types.Func, e ast.Expr) (string, bool) {
	return f.convertedText(prefix, ac, helper, f.node(e))
}

// convertedText is convertedAs of the object written as arg.
func (f *Fixer) convertedText(prefix string, ac *types.Named, helper *types.Func, arg string) (string, bool) {
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
		res := acNamed(sig.Results().At(0).Type())
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
