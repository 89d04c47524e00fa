#!/usr/bin/env python3
"""The hand rewrite of agent-sandbox's Sandbox controller (51814a80, the
code its issue #527 measured) that docs/seeds.md explains: run by
hack/seeds.sh in the checkout, after `ssagen generate` wrote internal/ssa.

(-fix rewrites three of the four sites: updateStatus's `Status().Update`
of the sandbox read from the cache becomes EnsureSandboxStatus with
StatusFromSandbox, the generated converter; the Updates of the Service it
adopts and of the pod it labels become ApplyServiceChanges and
ApplyPodChanges — a copy taken where each was read, the write applying
what the code changed under field managers of their own,
sandbox-service-changes and sandbox-pod-changes. This script runs after
it and uses the imports -fix added, ssaensure and corev1ensure.)
- SetupWithManager (owns-churning, which -fix declines: which pod changes
  the reconciler reads is more than a predicate can see):
  `For(&Sandbox{})` passes changes of the spec (generation), the
  annotations and the labels, not the sandbox's own status writes coming
  back; `Owns(&corev1.Pod{})` passes, besides creations and deletions,
  only pod changes this controller reads (phase, the Ready condition, the
  pod IPs) or that touch what it sets on a pod (labels, the owner
  references), so the kubelet's other status writes stop requeueing the
  sandbox. (OwnedPodChanges cannot judge here: the pod was created with
  Create, and ApplyPodChanges writes nothing while the labels are in
  place, so no apply entry says which fields are the controller's.)

Every edit checks that the text it replaces is there.
"""
from edits import Source

src = Source("controllers/sandbox_controller.go", "agentsandbox-rewrite")
replace = src.replace


replace('''	sandboxv1alpha1 "sigs.k8s.io/agent-sandbox/api/v1alpha1"
''', '''	sandboxv1alpha1 "sigs.k8s.io/agent-sandbox/api/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/event"
''')

replace('''		For(&sandboxv1alpha1.Sandbox{}).''',
        '''		For(&sandboxv1alpha1.Sandbox{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{},
			predicate.AnnotationChangedPredicate{}, predicate.LabelChangedPredicate{}))).''')

replace('''		Owns(&corev1.Pod{}, builder.WithPredicates(labelSelectorPredicate)).''',
        '''		Owns(&corev1.Pod{}, builder.WithPredicates(labelSelectorPredicate, podChangesRead{})).''')

src.append('''
// podChangesRead passes pod creations and deletions, a deletion starting,
// changes to what the sandbox's status reads from its pod (phase, the
// Ready condition, pod IPs), and changes to what this controller sets on
// a pod (labels, the owner references): not the kubelet's other status
// writes of a pod start.
type podChangesRead struct{}

func (p podChangesRead) Create(event.CreateEvent) bool   { return true }
func (p podChangesRead) Delete(event.DeleteEvent) bool   { return true }
func (p podChangesRead) Generic(event.GenericEvent) bool { return true }
func (p podChangesRead) Update(e event.UpdateEvent) bool {
	before, ok1 := e.ObjectOld.(*corev1.Pod)
	after, ok2 := e.ObjectNew.(*corev1.Pod)
	if !ok1 || !ok2 {
		return true
	}
	ready := func(p *corev1.Pod) corev1.ConditionStatus {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady {
				return c.Status
			}
		}
		return ""
	}
	if before.Status.Phase != after.Status.Phase || ready(before) != ready(after) ||
		!reflect.DeepEqual(podIPsFromStatus(before.Status.PodIPs), podIPsFromStatus(after.Status.PodIPs)) {
		return true
	}
	return !reflect.DeepEqual(before.Labels, after.Labels) || !reflect.DeepEqual(before.OwnerReferences, after.OwnerReferences) ||
		(before.DeletionTimestamp == nil) != (after.DeletionTimestamp == nil)
}
''')
src.save()
print("agentsandbox-rewrite: the watches of the Sandbox controller rewritten")
