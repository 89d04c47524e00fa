package ensure_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ssagen/ssagen/ensure"
)

func TestConditionKeepsTransitionTime(t *testing.T) {
	then := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := metav1.NewTime(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	live := []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, LastTransitionTime: then}}

	same := ensure.Condition(live, "Ready", metav1.ConditionTrue, "Up", "fine", 3, now)
	if !same.LastTransitionTime.Equal(&then) {
		t.Errorf("unchanged status: lastTransitionTime %v, want the live %v", same.LastTransitionTime, then)
	}
	if *same.ObservedGeneration != 3 || *same.Reason != "Up" {
		t.Errorf("fields not set: %+v", same)
	}
	flipped := ensure.Condition(live, "Ready", metav1.ConditionFalse, "Down", "", 3, now)
	if !flipped.LastTransitionTime.Equal(&now) {
		t.Errorf("changed status: lastTransitionTime %v, want now %v", flipped.LastTransitionTime, now)
	}
	fresh := ensure.Condition(live, "Degraded", metav1.ConditionFalse, "Fine", "", 0, now)
	if !fresh.LastTransitionTime.Equal(&now) || fresh.ObservedGeneration != nil {
		t.Errorf("new condition: %+v", fresh)
	}
}
