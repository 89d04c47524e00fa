package gomod

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

func TestEnclosing(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module \"example.com/op\"\n\ngo 1.24\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, mod, ok := Enclosing(sub); !ok || d != root || mod != "example.com/op" {
		t.Errorf("Enclosing = %q %q %v", d, mod, ok)
	}
}
