package load

import (
	"bytes"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestBlankBodiesAsGoScanner: blankBodies reads the bytes itself; on the
// standard library and the modules the tests load it blanks exactly what
// a blanker over go/scanner's tokens blanks (blankBodiesReference), file
// for file.
func TestBlankBodiesAsGoScanner(t *testing.T) {
	dirs := []string{filepath.Join(runtime.GOROOT(), "src")}
	if mods, err := filepath.Glob(filepath.Join(os.Getenv("HOME"), "go", "pkg", "mod", "k8s.io", "apimachinery@*")); err == nil && len(mods) > 0 {
		dirs = append(dirs, mods[0])
	}
	files := 0
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.Contains(path, "testdata") {
				return nil
			}
			if testing.Short() && files >= 500 {
				return filepath.SkipAll
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			files++
			if got, want := blankBodies(src), blankBodiesReference(src); !bytes.Equal(got, want) {
				t.Errorf("%s: blanked otherwise than go/scanner's tokens say", path)
			}
			return nil
		})
	}
	if files < 100 {
		t.Fatalf("only %d files read", files)
	}
}

// blankBodiesReference is blankBodies as go/scanner tokenizes: it returns src with the inside of every function body (and
// function literal) replaced by spaces, newlines kept: the parser then
// skips what the type checker would ignore anyway, and every position
// stays where it was. A body is a "{" after "func" at the same nesting of
// parentheses and brackets, not opening a struct or interface type.
func blankBodiesReference(src []byte) []byte {
	out := append([]byte(nil), src...)
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", -1, len(src)), src, nil, 0)
	type state struct{ depth int } // paren/bracket depth at the func keyword
	var pending []state            // funcs whose body has not started
	depth := 0                     // parentheses and brackets
	prev := token.ILLEGAL
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			break
		}
		off := int(pos) - 1
		switch tok {
		case token.FUNC:
			pending = append(pending, state{depth})
		case token.LPAREN, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACK:
			depth--
			// A func type inside the parentheses just closed (a parameter
			// of type func(...)) has no body.
			for len(pending) > 0 && pending[len(pending)-1].depth > depth {
				pending = pending[:len(pending)-1]
			}
		case token.LBRACE:
			if n := len(pending); n > 0 && pending[n-1].depth == depth && prev != token.STRUCT && prev != token.INTERFACE {
				pending = pending[:n-1]
				end := matchBraceReference(&s, src)
				if end < 0 {
					return src // unbalanced: leave the file to the parser
				}
				for i := off + 1; i < end; i++ {
					if out[i] != '\n' {
						out[i] = ' '
					}
				}
				prev = token.RBRACE
				continue
			}
			// A composite literal or a type's braces: skip to the match.
			if end := matchBraceReference(&s, src); end < 0 {
				return src
			}
			prev = token.RBRACE
			continue
		case token.SEMICOLON:
			// A func declaration without a body (assembly) ends here.
			if n := len(pending); n > 0 && pending[n-1].depth == depth {
				pending = pending[:n-1]
			}
		}
		prev = tok
	}
	return out
}

// matchBrace scans to the "}" closing the "{" just scanned and returns its
// offset, or -1.
func matchBraceReference(s *scanner.Scanner, src []byte) int {
	n := 1
	for {
		pos, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			return -1
		case token.LBRACE:
			n++
		case token.RBRACE:
			if n--; n == 0 {
				return int(pos) - 1
			}
		}
	}
}

// BenchmarkBlankBodies blanks the runtime package's files, with
// blankBodies and with go/scanner's tokens.
func BenchmarkBlankBodies(b *testing.B) {
	paths, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "runtime", "*.go"))
	var srcs [][]byte
	for _, p := range paths {
		src, _ := os.ReadFile(p)
		srcs = append(srcs, src)
	}
	for _, bc := range []struct {
		name  string
		blank func([]byte) []byte
	}{{"bytes", blankBodies}, {"go-scanner", blankBodiesReference}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				for _, src := range srcs {
					bc.blank(src)
				}
			}
		})
	}
}
