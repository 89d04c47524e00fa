package check

import (
	"go/token"

	"golang.org/x/tools/go/analysis"
)

// diag builds a diagnostic: what goes wrong at run time, then the fix.
func diag(pos token.Pos, category, cost, fix string) analysis.Diagnostic {
	return analysis.Diagnostic{Pos: pos, Category: category, Message: cost + "; fix: " + fix}
}
