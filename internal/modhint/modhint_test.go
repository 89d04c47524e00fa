package modhint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNested(t *testing.T) {
	root := t.TempDir()
	api := filepath.Join(root, "api", "v1")
	if err := os.MkdirAll(api, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "api", "go.mod"), []byte("module example.com/op/api\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	msg := "pattern ./api/...: main module (example.com/op) does not contain package example.com/op/api/v1"
	got := Nested(root, msg)
	if !strings.Contains(got, "./api is a module of its own (example.com/op/api)") || !strings.Contains(got, "example.com/op/api/...") {
		t.Errorf("Nested = %q", got)
	}
	if got := Nested(root, "undefined: x"); got != "" {
		t.Errorf("another error got a hint: %q", got)
	}
	if got := Nested(root, "main module (example.com/op) does not contain package example.com/op/missing"); got != "" {
		t.Errorf("a package with no folder got a hint: %q", got)
	}
}
