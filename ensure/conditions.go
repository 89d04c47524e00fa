package ensure

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
)

// Condition returns the apply configuration of a condition to put in a
// status apply. Its lastTransitionTime is the live condition's when the
// status is unchanged — so re-applying an unchanged condition is a no-op
// and does not defeat the skip cache — and now otherwise.
// observedGeneration is set when generation is not zero.
func Condition(live []metav1.Condition, typ string, status metav1.ConditionStatus, reason, message string, generation int64, now metav1.Time) *metav1ac.ConditionApplyConfiguration {
	c := metav1ac.Condition().WithType(typ).WithStatus(status).WithReason(reason).WithMessage(message)
	if generation != 0 {
		c.WithObservedGeneration(generation)
	}
	transition := now.Rfc3339Copy()
	for _, l := range live {
		if l.Type == typ && l.Status == status {
			transition = l.LastTransitionTime
		}
	}
	return c.WithLastTransitionTime(transition)
}
