// Package gosrc answers questions about Go source that both the
// generator's loader and vet's driver ask.
package gosrc

import (
	"go/ast"
	"go/types"
)

// Parents maps each node under root (root excluded) to the node that
// holds it.
func Parents(root ast.Node) map[ast.Node]ast.Node {
	parents := map[ast.Node]ast.Node{}
	var stack []ast.Node
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if len(stack) > 0 {
			parents[n] = stack[len(stack)-1]
		}
		stack = append(stack, n)
		return true
	})
	return parents
}

// Qualifiers returns the names used as the left side of a selector
// (x in x.Y) anywhere under n: the package names a file still uses.
func Qualifiers(n ast.Node) map[string]bool {
	used := map[string]bool{}
	ast.Inspect(n, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	return used
}

// ImporterFunc is a function as a types.Importer: the loader's and vet's
// type-checks both import through one.
type ImporterFunc func(path string) (*types.Package, error)

// Import implements types.Importer.
func (f ImporterFunc) Import(path string) (*types.Package, error) { return f(path) }
