package ensure

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FieldConflict is one field another manager holds.
type FieldConflict struct {
	Field   string // JSON path, such as .spec.replicas
	Manager string // the field manager that owns it
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
		manager := c.Message
		if i := strings.Index(manager, `"`); i >= 0 {
			if j := strings.Index(manager[i+1:], `"`); j >= 0 {
				manager = manager[i+1 : i+1+j]
			}
		}
		ce.Fields = append(ce.Fields, FieldConflict{Field: c.Field, Manager: manager})
	}
	if len(ce.Fields) == 0 {
		return nil
	}
	return ce
}
