package load

import (
	"go/token"

	"github.com/ssagen/ssagen/generator/diag"
	"github.com/ssagen/ssagen/generator/model"
)

// typeErrs are the errors found in each type while it is modelled and
// validated; settleTypeErrs decides them once it is known which types the
// kinds reach.
type typeErrs map[*model.Type]*diag.List

// typeErrOf records an error of t.
func (l *loader) typeErrOf(t *model.Type, pos token.Position, hint, format string, args ...any) {
	if l.typeErrs == nil {
		l.typeErrs = typeErrs{}
	}
	if l.typeErrs[t] == nil {
		l.typeErrs[t] = &diag.List{}
	}
	l.typeErrs[t].Add(pos, hint, format, args...)
}

// modelling makes t the type that typeErr attributes errors to, until the
// returned function restores the previous one (types are modelled
// recursively).
func (l *loader) modelling(t *model.Type) (done func()) {
	prev := l.owner
	l.owner = t
	return func() { l.owner = prev }
}

// typeErr records an error of the type being modelled or validated; with
// none, the error fails the run.
func (l *loader) typeErr(pos token.Position, hint, format string, args ...any) {
	if l.owner == nil {
		l.errs.Add(pos, hint, format, args...)
		return
	}
	l.typeErrOf(l.owner, pos, hint, format, args...)
}
