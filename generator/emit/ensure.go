package emit

import (
	"fmt"
	"path"

	"github.com/dave/jennifer/jen"

	"github.com/ssagen/ssagen/generator/model"
)

const (
	ensureRuntimePkg = "github.com/ssagen/ssagen/ensure"
	crClientPkg      = "sigs.k8s.io/controller-runtime/pkg/client"
)

// ensurePkg is the import path of a group version's helper package.
func ensurePkg(gv *model.GroupVersion) string { return path.Join(gv.OutPkgPath, "ensure") }

// ensureFile renders the EnsureX helpers of a group version's kinds, with
// the RBAC markers they need. The logic lives once, in package ensure.
func ensureFile(u *model.Universe, gv *model.GroupVersion, aliases Aliases) *jen.File {
	f := newFile(ensurePkg(gv), aliases)
	f.ImportAlias(ensureRuntimePkg, "ssaensure")
	for _, k := range gv.Kinds() {
		kind := k.Name.Name
		group := gv.Group
		if group == "" {
			group = `""`
		}
		comment(f, fmt.Sprintf("+kubebuilder:rbac:groups=%s,resources=%s,verbs=get;list;watch;create;patch", group, k.Root.Plural))
		if hasSub(k.Root, "status") {
			comment(f, fmt.Sprintf("+kubebuilder:rbac:groups=%s,resources=%s/status,verbs=patch", group, k.Root.Plural))
		}
		f.Line()
		comment(f, fmt.Sprintf(`Ensure%[1]s makes the %[1]s described by desired exist as desired, with
owner as its controller, by server-side apply. It sends no request when
the client's cache shows the object already as desired, and returns the
live object and what was done. desired is not modified.`, kind))
		ensureFunc(f, u, k, "Ensure"+kind, "")
		f.Line()
		comment(f, fmt.Sprintf(`Owned%[1]sChanges is a predicate for Owns(&%[1]s{}) that drops update
events changing nothing fieldManager owns (status churn, other managers' fields).`, kind))
		f.Func().Id("Owned"+kind+"Changes").Params(jen.Id("fieldManager").String()).Qual("sigs.k8s.io/controller-runtime/pkg/predicate", "Funcs").Block(
			jen.Return(jen.Qual(ensureRuntimePkg, "OwnedFieldsChanged").Call(jen.Id("fieldManager"),
				jen.Qual(u.OutputPkg+"/internal", "Parser").Call().Dot("Type").Call(jen.Lit(k.Name.SchemaName())))),
		)
		if hasSub(k.Root, "status") {
			f.Line()
			comment(f, fmt.Sprintf(`Ensure%[1]sStatus applies the status in desired to an existing %[1]s
(an *ensure.NotFoundError when it does not exist yet).`, kind))
			ensureFunc(f, u, k, "Ensure"+kind+"Status", "status")
		}
	}
	return f
}

// ensureFunc renders one helper: it calls ensure.Apply for the kind, on the
// object (sub "") with an owner, or ensure.ApplyStatus without one.
func ensureFunc(f *jen.File, u *model.Universe, k *model.Type, name, sub string) {
	kind, ac := k.Name.Name, k.ApplyConfig
	params := []jen.Code{jen.Id("ctx").Qual("context", "Context"), jen.Id("c").Qual(crClientPkg, "Client")}
	call, args := "ApplyStatus", []jen.Code{jen.Id("ctx"), jen.Id("c")}
	if sub == "" {
		params = append(params, jen.Id("owner").Qual(crClientPkg, "Object"))
		call, args = "Apply", append(args, jen.Id("owner"))
	}
	params = append(params,
		jen.Id("desired").Op("*").Qual(ac.Pkg, ac.Name),
		jen.Id("opts").Op("...").Qual(ensureRuntimePkg, "Option"))
	f.Func().Id(name).Params(params...).
		Params(jen.Op("*").Qual(k.Name.Pkg, kind), jen.Qual(ensureRuntimePkg, "Result"), jen.Error()).Block(
		jen.Id("obj").Op(":=").Op("&").Qual(k.Name.Pkg, kind).Values(),
		jen.List(jen.Id("res"), jen.Id("err")).Op(":=").Qual(ensureRuntimePkg, call).Call(
			append(args, jen.Id("desired"), jen.Id("obj"), withSchema(u, k))...),
		jen.Return(jen.Id("obj"), jen.Id("res"), jen.Id("err")),
	)
}

// withSchema passes the kind's merge schema first, then the caller's options.
func withSchema(u *model.Universe, k *model.Type) *jen.Statement {
	return jen.Append(jen.Index().Qual(ensureRuntimePkg, "Option").Values(
		jen.Qual(ensureRuntimePkg, "Schema").Call(jen.Qual(u.OutputPkg+"/internal", "Parser").Call().Dot("Type").Call(jen.Lit(k.Name.SchemaName()))),
	), jen.Id("opts").Op("...")).Op("...")
}

func hasSub(r *model.Root, sub string) bool {
	for _, s := range r.Subresources {
		if s == sub {
			return true
		}
	}
	return false
}
