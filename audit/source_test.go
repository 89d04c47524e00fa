package audit

import (
	"slices"
	"testing"

	"github.com/ssagen/ssagen/internal/contract"
)

// TestJoinReadsTheKind: a finding explains the rows of the kind it
// carries (Finding.Kind, as vet's analyzers report it), whatever its
// message says: a message that names a helper explains nothing without
// the kind, and a message naming another kind's helper does not mislead
// the join (issue 32: the contract's data, not text parsed back).
func TestJoinReadsTheKind(t *testing.T) {
	rep, _ := report(t, log, t0)
	unexplained := Join(rep, []Finding{
		{Pos: "kind.go:1:1", Category: contract.CategoryCreateUpdate, Message: "Create → AlreadyExists → Update; fix: one apply", Kind: "ConfigMap"},
		{Pos: "text.go:1:1", Category: contract.CategoryCreateUpdate, Message: "…; fix: corev1ensure." + contract.Ensure("ConfigMap") + ": one apply"},
		{Pos: "other.go:1:1", Category: contract.CategoryCreateUpdate, Message: "…; fix: corev1ensure." + contract.Ensure("ConfigMap") + ": one apply", Kind: "Secret"},
		{Pos: "status.go:1:1", Category: contract.CategoryStatusUpdate, Message: "…; fix: a status apply", Kind: "ConfigMap", Status: true},
	})
	sites := func(verb, sub string) []string {
		r := rowOf(rep, verb, sub)
		if r == nil {
			t.Fatalf("no %s %s row", verb, sub)
		}
		var out []string
		for _, s := range r.Sites {
			out = append(out, s.Pos)
		}
		return out
	}
	if got := sites("create", ""); !slices.Equal(got, []string{"kind.go:1:1"}) {
		t.Errorf("create configmaps explained by %v, want the finding whose Kind is ConfigMap only", got)
	}
	if got := sites("update", "status"); !slices.Equal(got, []string{"status.go:1:1"}) {
		t.Errorf("update configmaps/status explained by %v, want status.go:1:1", got)
	}
	for _, r := range unexplained {
		if r.Resource == "configmaps" && (r.Verb == "create" || r.Subresource == "status") {
			t.Errorf("%s %s/%s left unexplained", r.Verb, r.Resource, r.Subresource)
		}
	}
}
