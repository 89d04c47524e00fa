package arch

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vetLines caps the hand-written code of vet/ (tests and testdata aside;
// lines that are blank or only a comment do not count): its size when
// issue 48 asked the engine to shrink while coverage grows (11,034 lines
// in all then, 8,814 of them code). A rule that needs more lines takes
// them from another. Comments are not counted: splitting a function into
// named steps, as TestFunctionLength asks, costs a doc comment a step.
const vetLines = 8815

// checkLines caps vet/internal/check, what several analyzers share,
// counting every line: issue 48 asks under 2,000. Each fix lives in the
// package of the analyzer that reports it; the cap only comes down.
const checkLines = 1960

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
		total += codeLines(b)
		if filepath.Dir(filepath.ToSlash(path)) == "../../vet/internal/check" {
			check += bytes.Count(b, []byte("\n"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if total > vetLines {
		t.Errorf("vet/ is %d lines of code, more than %d: make a rule general enough to replace another", total, vetLines)
	}
	if check > checkLines {
		t.Errorf("vet/internal/check is %d lines, more than %d: move what one analyzer uses into its package", check, checkLines)
	}
	if total < 5000 || check < 1000 {
		t.Fatalf("only %d lines under vet/ (%d in check): the walk is looking in the wrong place", total, check)
	}
}

// codeLines counts the lines of src that are neither blank nor only a
// line comment.
func codeLines(src []byte) int {
	n := 0
	for _, line := range bytes.Split(src, []byte("\n")) {
		if l := bytes.TrimSpace(line); len(l) > 0 && !bytes.HasPrefix(l, []byte("//")) {
			n++
		}
	}
	return n
}
