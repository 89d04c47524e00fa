package emit

import (
	"go/token"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ssagen/ssagen/generator/model"
	"github.com/ssagen/ssagen/internal/contract"
)

// Aliases settles one import alias per package path for a whole run, so a
// package is spelled the same in every generated file and the spelling does
// not depend on emission order (jennifer's own choice would: v1, v11, v12).
type Aliases map[string]string

var nonAlnum = regexp.MustCompile(`[^a-z0-9]`)

// NewAliases pins the names Kubernetes code uses: metav1 for meta/v1,
// <group><version> for API packages (corev1, rbacv1), the same with an
// "ac" suffix for apply configuration packages (corev1ac), and the package
// name for everything else; clashes get a numeric suffix in path order.
func NewAliases(u *model.Universe, extra []string) Aliases {
	paths := map[string]bool{}
	for _, p := range extra {
		paths[p] = true
	}
	for _, t := range u.Types {
		paths[t.Name.Pkg] = true
		if t.ApplyConfig != nil {
			paths[t.ApplyConfig.Pkg] = true
		}
	}
	gvByPkg := map[string]*model.GroupVersion{}
	gvByOut := map[string]*model.GroupVersion{}
	for _, gv := range u.GroupVersions {
		gvByPkg[gv.PkgPath] = gv
		gvByOut[gv.OutPkgPath] = gv
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	a := Aliases{}
	// An alias must not hide a name the output packages declare: a
	// constructor is named after its type, which may be an unexported
	// "types" or "internal".
	used := map[string]bool{}
	for _, gv := range u.GroupVersions {
		for _, t := range gv.Types {
			used[t.Name.Name] = true
			if t.ApplyConfig != nil {
				used[t.ApplyConfig.Name] = true
				used[t.From] = true
			}
			if t.Root != nil {
				used[t.Root.Funcs.Extract], used[t.Root.Funcs.ExtractFrom] = true, true
				used[t.Root.Funcs.StatusFrom] = true
				for _, f := range t.Root.Funcs.ExtractSub {
					used[f] = true
				}
			}
		}
	}
	for _, p := range sorted {
		want := preferredAlias(p, gvByPkg[p], gvByOut[p])
		alias := want
		for i := 2; used[alias] || token.Lookup(alias).IsKeyword() || reserved[alias]; i++ {
			alias = want + itoa(i)
		}
		used[alias] = true
		a[p] = alias
	}
	return a
}

// reserved are identifiers generated code declares or uses unqualified.
var reserved = map[string]bool{"b": true, "value": true, "values": true, "entries": true, "i": true, "k": true, "v": true, "err": true, "u": true, "c": true, "obj": true, "opts": true,
	"fieldManager": true, "subresource": true, "in": true, "out": true,
	// the converters' loop variables (convert.go)
	"i0": true, "i1": true, "i2": true, "i3": true, "k0": true, "k1": true, "k2": true, "k3": true, "e0": true, "e1": true, "e2": true, "e3": true}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

func preferredAlias(p string, in, out *model.GroupVersion) string {
	clean := func(s string) string { return nonAlnum.ReplaceAllString(strings.ToLower(s), "") }
	switch {
	case p == "k8s.io/apimachinery/pkg/apis/meta/v1":
		return "metav1"
	case in != nil:
		return clean(groupShort(in)) + clean(in.Version)
	case out != nil:
		return clean(groupShort(out)) + clean(out.Version) + "ac"
	case strings.HasPrefix(p, "k8s.io/api/"):
		dir, ver := path.Split(p)
		return clean(path.Base(dir)) + clean(ver)
	case strings.HasPrefix(p, "k8s.io/client-go/applyconfigurations/"):
		dir, ver := path.Split(p)
		return clean(path.Base(dir)) + clean(ver) + "ac"
	}
	base := clean(path.Base(p))
	if contract.IsVersion(base) {
		base = clean(path.Base(path.Dir(p))) + base
	}
	if base == "" || (base[0] >= '0' && base[0] <= '9') {
		base = "pkg" + base
	}
	return base
}

// groupShort is the first label of the group ("rbac" for
// rbac.authorization.k8s.io), or "core" for the core group.
func groupShort(gv *model.GroupVersion) string {
	if gv.NoGroup {
		// common/v1 → common; a package path without a version, its name.
		elems := strings.Split(gv.PkgPath, "/")
		if len(elems) > 1 && contract.IsVersion(elems[len(elems)-1]) {
			return elems[len(elems)-2]
		}
		return ""
	}
	if gv.Group == "" {
		return "core"
	}
	return strings.SplitN(gv.Group, ".", 2)[0]
}

// lowerFirst is gengo's private name of a kind ("ClusterRole" → "clusterRole"),
// made safe to use as a parameter next to the file's imports.
func lowerFirst(s string, a Aliases) string {
	r, n := utf8.DecodeRuneInString(s)
	out := string(unicode.ToLower(r)) + s[n:]
	taken := token.Lookup(out).IsKeyword() || reserved[out]
	for _, alias := range a {
		if alias == out {
			taken = true
		}
	}
	if taken {
		out += "Obj"
	}
	return out
}
