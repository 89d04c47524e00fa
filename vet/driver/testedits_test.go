package driver

import (
	"go/format"
	"strings"
	"testing"
)

// TestMoveInjections: in the tests that call the rewritten function, an
// injection into Create or Update is made on Patch too (SubResourceUpdate
// on SubResourcePatch for a status write), with the parameters the apply's
// write takes; an interceptor that already replaces Patch, replaces Create
// and Update differently or with a named function, hands the write on to
// its client (a decoration, not an injection), or sits in a test that
// does not call the function, is left alone.
func TestMoveInjections(t *testing.T) {
	const head = "package x\n\nimport (\n\t\"context\"\n\t\"errors\"\n\n\t\"sigs.k8s.io/controller-runtime/pkg/client\"\n\tic \"sigs.k8s.io/controller-runtime/pkg/client/interceptor\"\n)\n\n"
	const create = "Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error { return errors.New(\"no\") }"
	const update = "Update: func(context.Context, client.WithWatch, client.Object, ...client.UpdateOption) error { return errors.New(\"no\") }"
	for _, c := range []struct {
		name, body string
		status     bool
		want       string // the element added, "" for none
	}{
		{"create", "r.grant(ic.Funcs{\n" + create + ",\n})", false,
			"Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, _ client.Patch, opts ...client.PatchOption) error { return errors.New(\"no\") },"},
		{"update, one line", "r.grant(ic.Funcs{" + update + "})", false,
			"Patch: func(context.Context, client.WithWatch, client.Object, client.Patch, ...client.PatchOption) error { return errors.New(\"no\") },"},
		{"both alike", "r.grant(ic.Funcs{\n" + create + ",\n" + strings.Replace(create, "Create", "Update", 1) + ",\n})", false,
			"Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, _ client.Patch, opts ...client.PatchOption) error { return errors.New(\"no\") },"},
		{"both apart", "r.grant(ic.Funcs{\n" + create + ",\n" + strings.Replace(update, "\"no\"", "\"other\"", 1) + ",\n})", false, ""},
		{"patch taken", "r.grant(ic.Funcs{\n" + create + ",\nPatch: nil,\n})", false, ""},
		{"named", "r.grant(ic.Funcs{Create: refuse})", false, ""},
		{"passing through", "r.grant(ic.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error { obj.SetUID(\"u\"); return c.Create(ctx, obj, opts...) }})", false, ""},
		{"another function's test", "r.other(ic.Funcs{" + create + "})", false, ""},
		{"status", "r.grant(ic.Funcs{SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error { return nil }})", true,
			"SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, _ client.Patch, opts ...client.SubResourcePatchOption) error { return nil },"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := head + "func TestX(t *testing.T) {\n" + c.body + "\n}\n"
			edits := moveInjections("x_test.go", []byte(src), "grant", c.status)
			if c.want == "" {
				if len(edits) != 0 {
					t.Fatalf("edits %q, want none", edits[0].text)
				}
				return
			}
			if len(edits) != 1 {
				t.Fatalf("%d edits, want 1", len(edits))
			}
			e := edits[0]
			out := src[:e.start] + string(e.text) + src[e.end:]
			if _, err := format.Source([]byte(out)); err != nil {
				t.Fatalf("the edited test does not parse: %v\n%s", err, out)
			}
			if !strings.Contains(out, c.want) {
				t.Errorf("edited test lacks %s:\n%s", c.want, out)
			}
		})
	}
}
