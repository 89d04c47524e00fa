package load

import (
	"strconv"
	"strings"

	"github.com/ssagen/ssagen/generator/model"
)

// settleNames names the Extract functions of a group version's kinds
// against every other package-level name of its output package: type
// names and constructors first (they are the API), then each kind's
// Extract<Kind>, then the From and subresource variants, in kind order. A
// name already taken gets a suffix ("Subresource" for the variants,
// "Object" for Extract<Kind>), so any set of legal kind names compiles.
func settleNames(gv *model.GroupVersion, compat bool) {
	taken := map[string]bool{}
	for _, t := range gv.Types {
		taken[t.Name.Name] = true
		if t.ApplyConfig != nil {
			taken[t.ApplyConfig.Name] = true
		}
	}
	claim := func(name, suffix string) string {
		if taken[name] {
			name += suffix
		}
		for i := 2; taken[name]; i++ {
			name = strings.TrimRight(name, "0123456789") + strconv.Itoa(i)
		}
		taken[name] = true
		return name
	}
	kinds := gv.Kinds()
	for _, k := range kinds {
		k.Root.Funcs.Extract = claim("Extract"+k.Name.Name, "Object")
	}
	if !compat {
		for _, k := range kinds {
			settleRootSetters(k)
		}
	}
	for _, k := range kinds {
		k.Root.Funcs.ExtractFrom = claim("Extract"+k.Name.Name+"From", "Subresource")
		k.Root.Funcs.ExtractSub = map[string]string{}
		for _, sub := range k.Root.Subresources {
			k.Root.Funcs.ExtractSub[sub] = claim("Extract"+k.Name.Name+strings.ToUpper(sub[:1])+sub[1:], "Subresource")
		}
	}
	// The converters: From<Type> for every struct type, then
	// StatusFrom<Kind> for kinds with a status subresource.
	for _, t := range gv.Types {
		if t.ApplyConfig != nil {
			t.From = claim("From"+t.Name.Name, "ApplyConfiguration")
		}
	}
	for _, t := range gv.Types {
		if t.ApplyConfig != nil && t.Name == model.ObjectMeta {
			t.FromObject = claim("FromObject"+t.Name.Name, "ApplyConfiguration")
		}
	}
	for _, k := range kinds {
		if hasStatus(k) {
			k.Root.Funcs.StatusFrom = claim("StatusFrom"+k.Name.Name, "Subresource")
		}
	}
	for _, k := range kinds {
		k.Root.Funcs.FromEmbedded = claim("From"+k.Name.Name+"Embedded", "Converter")
	}
}

// hasStatus reports whether kind k has a status subresource with an
// Extract: its status is written there, not with the object.
func hasStatus(k *model.Type) bool {
	for _, s := range k.Root.Subresources {
		if s == "status" {
			return true
		}
	}
	return false
}

// metaSetters are the setters a kind's configuration gets from its
// ObjectMeta, under "metadata": everywhere, WithLabels means metadata's.
var metaSetters = map[string]bool{"Name": true, "GenerateName": true, "Namespace": true, "UID": true, "ResourceVersion": true,
	"Generation": true, "CreationTimestamp": true, "DeletionTimestamp": true, "DeletionGracePeriodSeconds": true,
	"Labels": true, "Annotations": true, "OwnerReferences": true, "Finalizers": true}

// settleRootSetters renames the setters of a kind's own fields that a
// metadata setter's name would otherwise lose to (Go promotes the
// shallower): a root field Labels gets WithLabelsField, and WithLabels
// stays metadata's. applyconfiguration-gen lets the field win; so does
// --compat=applyconfiguration-gen.
func settleRootSetters(k *model.Type) {
	taken := map[string]bool{}
	for _, f := range k.Fields {
		taken[f.GoName] = true
	}
	for _, f := range k.Fields {
		if f.Inline || f.Embedded || !metaSetters[f.GoName] {
			continue
		}
		name := f.GoName + "Field"
		for i := 2; taken[name]; i++ {
			name = f.GoName + "Field" + strconv.Itoa(i)
		}
		taken[name] = true
		f.Setter = name
	}
}
