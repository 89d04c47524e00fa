package driver

import "testing"

// TestSplitDetail: sites declined for the same reason group together in
// the summary; the expression that differs per site is kept for its line.
func TestSplitDetail(t *testing.T) {
	for _, c := range []struct{ why, general, detail string }{
		{
			"the object is a typed value built elsewhere (desired.gateway.DeepCopy()), not a literal in this block: build it there",
			"the object is a typed value built elsewhere, not a literal in this block: build it there",
			"desired.gateway.DeepCopy()",
		},
		{"the mutate function is not written inline (a named function): x", "the mutate function is not written inline (a named function): x", ""},
	} {
		general, detail := splitDetail(c.why)
		if general != c.general || detail != c.detail {
			t.Errorf("splitDetail(%q) = %q, %q; want %q, %q", c.why, general, detail, c.general, c.detail)
		}
	}
}
