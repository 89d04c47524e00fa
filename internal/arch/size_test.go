package arch

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vetLines caps the hand-written Go of vet/ (tests and testdata aside):
// its size when issue 48 asked the engine to shrink while coverage grows.
// A rule that needs more lines takes them from another.
const vetLines = 11034

// checkLines caps vet/internal/check, what several analyzers share. Issue
// 48 asks under 2,000; this is where the intent rule left it, and the cap
// only comes down.
const checkLines = 4006

// TestVetSize: vet/ and vet/internal/check stay within their caps.
func TestVetSize(t *testing.T) {
	total, check := 0, 0
	err := filepath.WalkDir("../../vet", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n := bytes.Count(b, []byte("\n"))
		total += n
		if filepath.Dir(filepath.ToSlash(path)) == "../../vet/internal/check" {
			check += n
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if total > vetLines {
		t.Errorf("vet/ is %d lines of Go, more than %d: make a rule general enough to replace another", total, vetLines)
	}
	if check > checkLines {
		t.Errorf("vet/internal/check is %d lines, more than %d: move what one analyzer uses into its package", check, checkLines)
	}
	if total < 5000 || check < 1000 {
		t.Fatalf("only %d lines under vet/ (%d in check): the walk is looking in the wrong place", total, check)
	}
}
