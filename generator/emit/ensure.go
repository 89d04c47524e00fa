package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/ssagen/ssagen/generator/model"
	"github.com/ssagen/ssagen/internal/contract"
)

const (
	ensureRuntimePkg = contract.RuntimePkg
	crClientPkg      = "sigs.k8s.io/controller-runtime/pkg/client"
)

// ensurePkg is the import path of a group version's helper package.
func ensurePkg(gv *model.GroupVersion) string { return contract.HelperPkg(gv.OutPkgPath) }

// ensureFile renders the EnsureX helpers of a group version's kinds, with
// the RBAC markers they need. The logic lives once, in package ensure.
func ensureFile(u *model.Universe, gv *model.GroupVersion, aliases Aliases) *jen.File {
	f := newFile(ensurePkg(gv), aliases)
	f.ImportAlias(ensureRuntimePkg, contract.RuntimeAlias)
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
the client's cache shows the object already as desired (c from
ensure.NewClient also remembers what it applied), and returns the live
object and what was done. desired is not modified.`, kind))
		ensureFunc(f, u, k, contract.Ensure(kind), "")
		if gv.External {
			externalFromFuncs(f, u, k, aliases)
		}
		f.Line()
		comment(f, fmt.Sprintf(`Apply%[1]sChanges writes what code changed on a %[1]s it read (before, a
copy taken before the changes; after, the object changed), instead of an
Update of the whole object: the changed fields and those the field
manager already owns, applied with force, and no request when nothing
changed. Give it a field manager of its own (ensure.FieldManager), apart
from the object's creator. after receives the live object, as with an
Update.`, kind))
		f.Func().Id(contract.ApplyChanges(kind)).Params(
			jen.Id("ctx").Qual("context", "Context"), jen.Id("c").Qual(crClientPkg, "Client"),
			jen.List(jen.Id("before"), jen.Id("after")).Op("*").Qual(k.Name.Pkg, kind),
			jen.Id("opts").Op("...").Qual(ensureRuntimePkg, contract.ApplyOption),
		).Params(jen.Op("*").Qual(k.Name.Pkg, kind), jen.Qual(ensureRuntimePkg, "Result"), jen.Error()).Block(
			jen.List(jen.Id("res"), jen.Id("err")).Op(":=").Qual(ensureRuntimePkg, contract.ApplyChangesFunc).Call(
				jen.Id("ctx"), jen.Id("c"), jen.Id("before"), jen.Id("after"), withSchema(u, k)),
			jen.Return(jen.Id("after"), jen.Id("res"), jen.Id("err")),
		)
		f.Line()
		comment(f, fmt.Sprintf(`CreateOrUpdate%[1]s is controllerutil.CreateOrUpdate by server-side apply,
with the %[1]s's merge schema: f runs on obj as built (name and namespace,
and what else the caller set), what it sets is applied with force, and
no request is sent when nothing changed (ensure.CreateOrUpdate). obj
receives the live object.`, kind))
		f.Func().Id(contract.CreateOrUpdate(kind)).Params(
			jen.Id("ctx").Qual("context", "Context"), jen.Id("c").Qual(crClientPkg, "Client"),
			jen.Id("obj").Op("*").Qual(k.Name.Pkg, kind), jen.Id("f").Qual(controllerutilPkg, "MutateFn"),
			jen.Id("opts").Op("...").Qual(ensureRuntimePkg, contract.ApplyOption),
		).Params(jen.Qual(controllerutilPkg, "OperationResult"), jen.Error()).Block(
			jen.Return(jen.Qual(ensureRuntimePkg, contract.CreateOrUpdateFunc).Call(
				jen.Id("ctx"), jen.Id("c"), jen.Id("obj"), jen.Id("f"), withSchema(u, k))),
		)
		f.Line()
		comment(f, fmt.Sprintf(`Owned%[1]sChanges is a predicate for Owns(&%[1]s{}) that drops update
events changing nothing c's field manager owns (status churn, other
managers' fields); deleted objects leave c's memory.`, kind))
		f.Func().Id(contract.OwnedChanges(kind)).Params(jen.Id("c").Qual(crClientPkg, "Client")).Qual("sigs.k8s.io/controller-runtime/pkg/predicate", "Funcs").Block(
			jen.Return(jen.Qual(ensureRuntimePkg, contract.OwnedFieldsChanged).Call(jen.Id("c"),
				jen.Qual(u.OutputPkg+"/internal", "Parser").Call().Dot("Type").Call(jen.Lit(k.Name.SchemaName())))),
		)
		if hasSub(k.Root, "status") {
			f.Line()
			comment(f, fmt.Sprintf(`Ensure%[1]sStatus applies the status in desired to an existing %[1]s
(an *ensure.NotFoundError when it does not exist yet).`, kind))
			ensureFunc(f, u, k, contract.EnsureStatus(kind), "status")
		}
	}
	return f
}

// externalFromFuncs export the converters of a kind of --ensure-kinds from
// its helper package: From<Kind>, and StatusFrom<Kind> for a kind with a
// status subresource.
func externalFromFuncs(f *jen.File, u *model.Universe, k *model.Type, aliases Aliases) {
	c := &converter{conversions: &conversions{u: u, aliases: aliases}}
	ac := jen.Qual(k.ApplyConfig.Pkg, k.ApplyConfig.Name)
	in := jen.Id("in").Op("*").Qual(k.Name.Pkg, k.Name.Name)
	// The converters: the internal ones of a published apply
	// configuration, or those this run generates beside the kind's
	// builders (a vendored third-party kind).
	from, statusFrom := jen.Qual(c.internalPkg(), c.externalName(k)), jen.Qual(c.internalPkg(), c.externalStatusName(k))
	status := hasSub(k.Root, "status")
	if k.Generated() {
		from, statusFrom = jen.Qual(k.ApplyConfig.Pkg, k.From), jen.Qual(k.ApplyConfig.Pkg, k.Root.Funcs.StatusFrom)
		status = k.Root.Funcs.StatusFrom != ""
	}
	f.Line()
	comment(f, fmt.Sprintf(`From%[1]s returns the apply configuration of in, for Ensure%[1]s: every
field in's JSON sends, except server-set metadata%[2]s.
nil gives nil.`, k.Name.Name, map[bool]string{true: " and the status (StatusFrom" + k.Name.Name + ")"}[status]))
	f.Func().Id("From" + k.Name.Name).Params(in.Clone()).Op("*").Add(ac.Clone()).Block(jen.Return(from.Call(jen.Id("in"))))
	if status {
		f.Line()
		comment(f, fmt.Sprintf(`StatusFrom%[1]s returns the apply configuration of in's status, for
Ensure%[1]sStatus: kind, apiVersion, name, namespace and the status.
nil gives nil.`, k.Name.Name))
		f.Func().Id("StatusFrom" + k.Name.Name).Params(in).Op("*").Add(ac).Block(jen.Return(statusFrom.Call(jen.Id("in"))))
	}
}

// ensureFunc renders one helper: it calls ensure.Apply for the kind, on the
// object (sub "") with an owner, or ensure.ApplyStatus without one.
func ensureFunc(f *jen.File, u *model.Universe, k *model.Type, name, sub string) {
	kind, ac := k.Name.Name, k.ApplyConfig
	// The parameters in the contract's order, which vet's fixes rely on.
	call, desiredAt := "ApplyStatus", contract.ParamStatusDesired
	if sub == "" {
		call, desiredAt = "Apply", contract.ParamDesired
	}
	params := make([]jen.Code, desiredAt+1)
	args := make([]jen.Code, desiredAt)
	params[contract.ParamCtx], args[contract.ParamCtx] = jen.Id("ctx").Qual("context", "Context"), jen.Id("ctx")
	params[contract.ParamClient], args[contract.ParamClient] = jen.Id("c").Qual(crClientPkg, "Client"), jen.Id("c")
	if sub == "" {
		params[contract.ParamOwner], args[contract.ParamOwner] = jen.Id("owner").Qual(crClientPkg, "Object"), jen.Id("owner")
	}
	params[desiredAt] = jen.Id("desired").Op("*").Qual(ac.Pkg, ac.Name)
	params = append(params, jen.Id("opts").Op("...").Qual(ensureRuntimePkg, contract.ApplyOption))
	f.Func().Id(name).Params(params...).
		Params(jen.Op("*").Qual(k.Name.Pkg, kind), jen.Qual(ensureRuntimePkg, "Result"), jen.Error()).Block(
		jen.Id("obj").Op(":=").Op("&").Qual(k.Name.Pkg, kind).Values(),
		jen.List(jen.Id("res"), jen.Id("err")).Op(":=").Qual(ensureRuntimePkg, call).Call(
			append(args, jen.Id("desired"), jen.Id("obj"), withSchema(u, k))...),
		jen.Return(jen.Id("obj"), jen.Id("res"), jen.Id("err")),
	)
}

// withSchema passes the kind's merge schema first, then the caller's options.
const controllerutilPkg = "sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

func withSchema(u *model.Universe, k *model.Type) *jen.Statement {
	return jen.Append(jen.Index().Qual(ensureRuntimePkg, contract.ApplyOption).Values(
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
