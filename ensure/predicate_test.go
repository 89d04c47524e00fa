package ensure_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/ssagen/ssagen/ensure"
)

// TestFieldsChanged: an update passes when what the reconciler reads of
// the pod changed or a deletion starts, not for the kubelet's other
// status writes; creations, deletions and other types always pass.
func TestFieldsChanged(t *testing.T) {
	pred := ensure.FieldsChanged(func(pod *corev1.Pod) any {
		return []any{pod.OwnerReferences, pod.Status.Phase, pod.Status.PodIPs}
	})
	base := func() *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p", ResourceVersion: "1"},
			Status:     corev1.PodStatus{Phase: corev1.PodPending},
		}
	}
	now := metav1.Now()
	for name, tc := range map[string]struct {
		change func(*corev1.Pod)
		want   bool
	}{
		"nothing read changed": {func(p *corev1.Pod) {
			p.ResourceVersion = "2"
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}
			p.Status.HostIP = "10.0.0.1"
		}, false},
		"phase":           {func(p *corev1.Pod) { p.Status.Phase = corev1.PodRunning }, true},
		"pod IPs":         {func(p *corev1.Pod) { p.Status.PodIPs = []corev1.PodIP{{IP: "10.1.0.1"}} }, true},
		"owner":           {func(p *corev1.Pod) { p.OwnerReferences = []metav1.OwnerReference{{Name: "o"}} }, true},
		"deletion starts": {func(p *corev1.Pod) { p.DeletionTimestamp = &now }, true},
		// equality.Semantic: an empty slice is no change from none.
		"empty IPs": {func(p *corev1.Pod) { p.Status.PodIPs = []corev1.PodIP{} }, false},
	} {
		t.Run(name, func(t *testing.T) {
			after := base()
			tc.change(after)
			if got := pred.Update(event.UpdateEvent{ObjectOld: base(), ObjectNew: after}); got != tc.want {
				t.Errorf("Update passed = %v, want %v", got, tc.want)
			}
		})
	}
	if !pred.Update(event.UpdateEvent{ObjectOld: &corev1.Service{}, ObjectNew: &corev1.Service{}}) {
		t.Error("an update of another type was dropped")
	}
	if !pred.Create(event.CreateEvent{Object: base()}) || !pred.Delete(event.DeleteEvent{Object: base()}) || !pred.Generic(event.GenericEvent{Object: base()}) {
		t.Error("a create, delete or generic event was dropped")
	}
}

// TestFieldsChangedEach: the conditions compared by type and status only,
// as a reconciler reading them item by item does.
func TestFieldsChangedEach(t *testing.T) {
	pred := ensure.FieldsChanged(func(pod *corev1.Pod) any {
		return []any{ensure.Each(pod.Status.Conditions, func(c corev1.PodCondition) any { return []any{c.Status, c.Type} })}
	})
	pod := func(status corev1.ConditionStatus, probed int64) *corev1.Pod {
		return &corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{
			Type: corev1.PodReady, Status: status, LastProbeTime: metav1.Unix(probed, 0),
		}}}}
	}
	if pred.Update(event.UpdateEvent{ObjectOld: pod(corev1.ConditionFalse, 1), ObjectNew: pod(corev1.ConditionFalse, 2)}) {
		t.Error("a probe time change passed")
	}
	if !pred.Update(event.UpdateEvent{ObjectOld: pod(corev1.ConditionFalse, 1), ObjectNew: pod(corev1.ConditionTrue, 1)}) {
		t.Error("a status change was dropped")
	}
}
