// Package gomod answers what ssagen generate and ssagen vet ask of go.mod
// files: the module a folder is in, and why go list says a package of a
// nested module is missing. It reads go.mod with x/mod and imports
// nothing of ssagen's.
package gomod

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// Nested returns the hint for a load error msg of a pattern resolved in
// dir: "" when msg is another error or no nested module holds the
// package.
func Nested(dir, msg string) string {
	const marker = "does not contain package "
	i := strings.LastIndex(msg, marker)
	if i < 0 || !strings.Contains(msg, "main module") {
		return ""
	}
	pkg := strings.TrimSpace(msg[i+len(marker):])
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	// The package path's tail is a folder below dir; the nearest go.mod
	// between them makes it another module.
	elems := strings.Split(pkg, "/")
	for k := range elems {
		folder := filepath.Join(append([]string{abs}, elems[k:]...)...)
		if st, err := os.Stat(folder); err != nil || !st.IsDir() {
			continue
		}
		for d := folder; d != abs && strings.HasPrefix(d, abs+string(filepath.Separator)); d = filepath.Dir(d) {
			b, err := os.ReadFile(filepath.Join(d, "go.mod"))
			if err != nil {
				continue
			}
			rel, _ := filepath.Rel(abs, d)
			mod := modfile.ModulePath(b)
			return "./" + filepath.ToSlash(rel) + " is a module of its own (" + mod + "): run ssagen from that folder, or name its packages by import path (" + mod + "/...) from a module that requires it"
		}
	}
	return ""
}

// Enclosing returns the folder of the nearest go.mod at or above dir and
// its module path; ok is false when there is none (or it names no module).
func Enclosing(dir string) (root, module string, ok bool) {
	for d := dir; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			if mod := modfile.ModulePath(b); mod != "" {
				return d, mod, true
			}
			return "", "", false
		}
		if filepath.Dir(d) == d {
			return "", "", false
		}
	}
}
