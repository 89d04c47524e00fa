package ensure

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FieldConflict is one field another manager holds.
type FieldConflict struct {
	Field       string // JSON path, such as .spec.replicas
	Manager     string // the field manager that owns it
	Subresource string // the subresource it wrote the field through ("" for the main resource)
	// Update: the manager wrote the field with Update (kubectl edit, a
	// controller's Update), not apply; APIVersion is the version it used.
	Update     bool
	APIVersion string
}

// ConflictError is returned when an apply without force would take fields
// other managers own. err is the API server's 409.
type ConflictError struct {
	Fields []FieldConflict
	err    error
}

func (e *ConflictError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = fmt.Sprintf("%s (owned by %q)", f.Field, f.Manager)
	}
	return "ensure: apply conflicts with other field managers: " + strings.Join(parts, ", ")
}

func (e *ConflictError) Unwrap() error { return e.err }

func asConflict(err error) *ConflictError {
	var status apierrors.APIStatus
	if !apierrors.IsConflict(err) || !errors.As(err, &status) {
		return nil
	}
	details := status.Status().Details
	if details == nil {
		return nil
	}
	ce := &ConflictError{err: err}
	for _, c := range details.Causes {
		if c.Type != metav1.CauseTypeFieldManagerConflict {
			continue
		}
		f := parseConflictCause(c.Message)
		f.Field = c.Field
		ce.Fields = append(ce.Fields, f)
	}
	if len(ce.Fields) == 0 {
		return nil
	}
	return ce
}

// parseConflictCause reads the manager out of a FieldManagerConflict
// cause, which carries it only in its message, in the API server's format
// (apimachinery's managedfields printManager): `conflict with "<manager>"`,
// then ` with subresource "<name>"`, then, for an Update, ` using
// <apiVersion>` and maybe ` at <time>`. A message in another shape keeps
// the whole message as the manager.
func parseConflictCause(msg string) FieldConflict {
	rest, ok := strings.CutPrefix(msg, "conflict with ")
	if !ok {
		return FieldConflict{Manager: msg}
	}
	quoted, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return FieldConflict{Manager: msg}
	}
	f := FieldConflict{}
	f.Manager, _ = strconv.Unquote(quoted)
	rest = rest[len(quoted):]
	if r, ok := strings.CutPrefix(rest, " with subresource "); ok {
		if q, err := strconv.QuotedPrefix(r); err == nil {
			f.Subresource, _ = strconv.Unquote(q)
			rest = r[len(q):]
		}
	}
	if r, ok := strings.CutPrefix(rest, " using "); ok {
		f.Update = true
		f.APIVersion, _, _ = strings.Cut(r, " ")
	}
	return f
}
