// Package contract is what the generated Ensure helpers and ssagen vet
// agree on: the runtime's import path and the name files import it by,
// where a group version's helpers live and what they are called, and the
// order of their parameters. The emitter (generator/emit) writes helpers
// by it; vet finds them and writes calls to them by it. Nothing else
// spells these.
package contract

import (
	"path"
	"regexp"
	"strings"
)

const (
	// RuntimePkg is the module and package of the helpers' runtime.
	RuntimePkg = "github.com/ssagen/ssagen/ensure"
	// RuntimeAlias is the name generated files, and vet's fixes, import
	// the runtime by: "ensure" is taken by the helper packages.
	RuntimeAlias = "ssaensure"
	// HelperPkgName is the package name of a group version's helpers,
	// which live in <its apply configuration package>/ensure.
	HelperPkgName = "ensure"

	// NoOwner, CreateOnly and FieldManager are runtime options vet's fixes
	// pass; ApplyOption is the type of the helpers' options.
	NoOwner      = "NoOwner"
	CreateOnly   = "CreateOnly"
	FieldManager = "FieldManager"
	ApplyOption  = "ApplyOption"
	// OwnedFieldsChanged is the runtime's predicate the generated
	// Owned<Kind>Changes wrap.
	OwnedFieldsChanged = "OwnedFieldsChanged"
)

// Parameters of Ensure<Kind>: ctx, client, owner, desired, opts... — and
// of Ensure<Kind>Status: ctx, client, desired, opts....
const (
	ParamCtx           = 0
	ParamClient        = 1
	ParamOwner         = 2
	ParamDesired       = 3
	ParamStatusDesired = 2
)

// HelperPkg is the import path of the helpers of the group version whose
// apply configurations are in acPkg.
func HelperPkg(acPkg string) string { return acPkg + "/" + HelperPkgName }

// IsHelperPkg reports whether path is a helper package.
func IsHelperPkg(p string) bool { return path.Base(p) == HelperPkgName && p != RuntimePkg }

// HelperAlias is the name a helper package is imported by: its group and
// version before /ensure (corev1ensure), as docs/ensure.md and vet's
// fixes write it.
func HelperAlias(helperPkg string) string {
	elems := strings.Split(strings.TrimSuffix(helperPkg, "/"+HelperPkgName), "/")
	base := ""
	if n := len(elems); n >= 2 {
		base = elems[n-2] + elems[n-1]
	} else if n == 1 {
		base = elems[0]
	}
	return identifier(base) + HelperPkgName
}

// ImportName is the name a package (path, its package name name) is
// imported by where a file does not import it yet, as vet's fixes and
// their test edits write it: the runtime as ssaensure, a helper
// package by HelperAlias, an apply configuration package (suffix "ac")
// or a versioned API package by its parent's name and its own (corev1ac,
// corev1), any other by its name.
func ImportName(path, name, suffix string) string {
	switch {
	case path == RuntimePkg:
		return RuntimeAlias
	case IsHelperPkg(path):
		return HelperAlias(path)
	}
	elems := strings.Split(path, "/")
	if len(elems) >= 2 && (suffix != "" || IsVersion(elems[len(elems)-1])) {
		name = elems[len(elems)-2] + elems[len(elems)-1]
	}
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r == '_' {
			return -1
		}
		return r
	}, name) + suffix
}

var versionRE = regexp.MustCompile(`^v[0-9]+((alpha|beta)[0-9]+)?$`)

// IsVersion reports an API version as a package path element (v1,
// v1beta2): such a package is imported by its parent's name and the
// version (corev1), by the generator and by vet's fixes alike.
func IsVersion(elem string) bool { return versionRE.MatchString(elem) }

// Ensure, EnsureStatus and OwnedChanges name a kind's helpers.
func Ensure(kind string) string       { return "Ensure" + kind }
func EnsureStatus(kind string) string { return "Ensure" + kind + "Status" }
func OwnedChanges(kind string) string { return "Owned" + kind + "Changes" }

// ApplyChanges names a kind's helper that applies what code changed on
// an object it read (ApplyChanges of the runtime): before, after, opts.
func ApplyChanges(kind string) string { return "Apply" + kind + "Changes" }

// CreateOrUpdate names a kind's helper with controllerutil.CreateOrUpdate's
// signature, by server-side apply (CreateOrUpdateFunc of the runtime, with
// the kind's schema): ctx, client, object, mutate function, opts.
func CreateOrUpdate(kind string) string { return CreateOrUpdateFunc + kind }

// CreateOrUpdateFunc is the runtime's function the generated
// CreateOrUpdate<Kind> calls.
const CreateOrUpdateFunc = "CreateOrUpdate"

// ApplyChangesFunc is the runtime's function the generated
// Apply<Kind>Changes wrap.
const ApplyChangesFunc = "ApplyChanges"

// OwnedChangesKind is the kind an Owned<Kind>Changes predicate of a
// helper package serves, or false when name is not one.
func OwnedChangesKind(name string) (string, bool) {
	kind, ok := strings.CutPrefix(name, "Owned")
	if !ok {
		return "", false
	}
	kind, ok = strings.CutSuffix(kind, "Changes")
	if !ok || kind == "" {
		return "", false
	}
	return kind, true
}

// identifier keeps the letters and digits of s, lower-cased.
func identifier(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return -1
	}, s)
}

// The categories of ssagen vet's findings (analysis.Diagnostic.Category):
// ssagen audit --source reads them to tie a costly row of an audit log to
// the code behind it.
const (
	CategoryCreateUpdate         = "create-update"
	CategoryCreateIgnore         = "create-ignore"
	CategoryCreateOrUpdate       = "create-or-update"
	CategoryRetryOnConflict      = "retry-on-conflict"
	CategoryStatusUpdate         = "status-update"
	CategoryUpdateFromScratch    = "update-from-scratch"
	CategoryUpdateCachedChurning = "update-cached-churning"
	CategoryApplyTypedStruct     = "apply-typed-struct"
	CategoryOwnsChurning         = "owns-churning"
)
