package audit

import (
	"slices"
	"strings"

	"github.com/gobuffalo/flect"

	"github.com/ssagen/ssagen/internal/contract"
)

// Finding is a finding of ssagen vet, as the join reads it.
type Finding struct {
	Pos      string // file:line:col
	Category string // create-update, status-update, …
	Message  string
	// Kind is the kind whose helper the finding's fix names (Role for
	// EnsureRole), as vet's analyzers report it (driver.Finding.Kind): ""
	// when the finding cannot tell, and then it explains no row. Status
	// says the helper is the kind's status helper (EnsureRoleStatus).
	Kind   string
	Status bool
}

// categories are the vet findings that explain each kind of waste.
var (
	createConflicts = []string{contract.CategoryCreateUpdate, contract.CategoryCreateIgnore, contract.CategoryCreateOrUpdate}
	writeConflicts  = []string{contract.CategoryRetryOnConflict, contract.CategoryUpdateFromScratch, contract.CategoryUpdateCachedChurning, contract.CategoryCreateOrUpdate, contract.CategoryCreateUpdate}
	noopWrites      = []string{contract.CategoryCreateOrUpdate, contract.CategoryUpdateCachedChurning, contract.CategoryUpdateFromScratch, contract.CategoryCreateUpdate, contract.CategoryApplyTypedStruct, contract.CategoryOwnsChurning}
	statusWaste     = []string{contract.CategoryStatusUpdate, contract.CategoryRetryOnConflict}
)

// Join attaches to each row that wasted requests the findings that
// explain it: same resource (the kind whose helper the finding's fix
// names, Finding.Kind, pluralized as Kubernetes names resources) and a
// category that produces this waste on this verb. It returns the costly
// rows of operators (every user but the control plane's system:apiserver,
// system:kube-*, system:node:*) that no finding explains.
func Join(rep *Report, findings []Finding) []*Row {
	var unexplained []*Row
	for _, r := range rep.Rows {
		if r.Cost() == 0 && r.CreateConflictUpdate == 0 {
			continue
		}
		want := categoriesFor(r)
		for _, f := range findings {
			if !slices.Contains(want, f.Category) {
				continue
			}
			if f.Kind == "" || resourceOf(f.Kind) != r.Resource {
				continue
			}
			r.Sites = append(r.Sites, Site{Pos: f.Pos, Category: f.Category, Message: f.Message})
		}
		if len(r.Sites) == 0 && !controlPlane(r.User) {
			unexplained = append(unexplained, r)
		}
	}
	return unexplained
}

func categoriesFor(r *Row) []string {
	var out []string
	switch {
	case r.Subresource == "status":
		out = statusWaste
	case r.Verb == "create":
		out = createConflicts
	default:
		if r.Conflicts > 0 {
			out = append(out, writeConflicts...)
		}
		if r.NoopWrites > 0 {
			out = append(out, noopWrites...)
		}
	}
	return out
}

// resourceOf is a kind's resource name: lower case, plural.
func resourceOf(kind string) string {
	return strings.ToLower(flect.Pluralize(kind))
}

// controlPlane reports the users of Kubernetes' own components, whose
// writes no operator's source explains.
func controlPlane(user string) bool {
	return user == "system:apiserver" || strings.HasPrefix(user, "system:kube-") || strings.HasPrefix(user, "system:node:")
}
