package check

import (
	"go/ast"

	"github.com/ssagen/ssagen/vet/internal/flow"
)

// IsNil reports the identifier nil.
func IsNil(e ast.Expr) bool { return flow.IsNil(e) }
