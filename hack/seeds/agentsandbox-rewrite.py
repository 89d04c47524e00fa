#!/usr/bin/env python3
"""The hand rewrite of agent-sandbox's Sandbox controller (51814a80, the
code its issue #527 measured) that docs/seeds.md explains: run by
hack/seeds.sh in the checkout, after `ssagen generate` wrote internal/ssa.

(updateStatus's `Status().Update` of the sandbox read from the cache is
`ssagen vet -fix`'s: EnsureSandboxStatus with StatusFromSandbox, the
generated converter; this script runs after it and imports what -fix
imported, ssaensure.)
- reconcilePod: the existing pod's `Update` on every reconcile (to set the
  controller reference and the labels) becomes EnsurePod of just those
  labels, with the sandbox as controller, under a field manager of its
  own (podLabelsFieldOwner): the pod's spec, which the controller's Create
  wrote under sandbox-controller, is not part of this apply, and the
  helper's migration of sandbox-controller's Update entry would otherwise
  let the apply prune it. Nothing is sent once the pod carries them, and
  the kubelet's status writes can no longer make it 409;
- SetupWithManager: `For(&Sandbox{})` passes changes of the spec
  (generation), the annotations and the labels, not the sandbox's own
  status writes coming back; `Owns(&corev1.Pod{})` passes, besides creations and
  deletions, only pod changes this controller reads (phase, the Ready
  condition, the pod IPs) or that touch the fields it owns
  (OwnedPodChanges), so the kubelet's other status writes stop requeueing
  the sandbox.

Every edit checks that the text it replaces is there.
"""
from edits import Source

src = Source("controllers/sandbox_controller.go", "agentsandbox-rewrite")
replace = src.replace


MOD = "sigs.k8s.io/agent-sandbox/internal/ssa"
replace('''	sandboxv1alpha1 "sigs.k8s.io/agent-sandbox/api/v1alpha1"
''', f'''	sandboxv1alpha1 "sigs.k8s.io/agent-sandbox/api/v1alpha1"
	podensure "{MOD}/core/v1/ensure"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"
''')

replace('''		case resourceUnowned:
			if err := ctrl.SetControllerReference(sandbox, pod, r.Scheme); err != nil {
				return nil, fmt.Errorf("SetControllerReference for Pod failed: %w", err)
			}

		case resourceOwnedBySandbox:
			// No additional action needed — label applied below.
		}

		// Apply label for both podUnowned and podOwnedBySandbox cases.
		if pod.Labels == nil {
			pod.Labels = make(map[string]string)
		}
		pod.Labels[sandboxLabel] = nameHash
		// Propagate pod template labels to the existing pod (e.g., after warm pool adoption)
		for k, v := range sandbox.Spec.PodTemplate.ObjectMeta.Labels {
			pod.Labels[k] = v
		}

		if err := r.Update(ctx, pod); err != nil {
			return nil, fmt.Errorf("failed to update pod: %w", err)
		}
''', '''		case resourceUnowned, resourceOwnedBySandbox:
			// EnsurePod below sets the sandbox as the controller.
		}

		// Apply the label for both podUnowned and podOwnedBySandbox cases,
		// and propagate the pod template labels to the existing pod (e.g.,
		// after warm pool adoption): only these fields, under the
		// controller's field owner, and nothing when the pod has them.
		podLabels := map[string]string{sandboxLabel: nameHash}
		for k, v := range sandbox.Spec.PodTemplate.ObjectMeta.Labels {
			podLabels[k] = v
		}
		applied, _, err := podensure.EnsurePod(ctx, r.Client, sandbox, corev1ac.Pod(pod.Name, pod.Namespace).WithLabels(podLabels),
			ssaensure.FieldManager(podLabelsFieldOwner))
		if err != nil {
			return nil, fmt.Errorf("failed to update pod: %w", err)
		}
		pod = applied
''')

replace('''		For(&sandboxv1alpha1.Sandbox{}).''',
        '''		For(&sandboxv1alpha1.Sandbox{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{},
			predicate.AnnotationChangedPredicate{}, predicate.LabelChangedPredicate{}))).''')

replace('''		Owns(&corev1.Pod{}, builder.WithPredicates(labelSelectorPredicate)).''',
        '''		Owns(&corev1.Pod{}, builder.WithPredicates(labelSelectorPredicate, podChangesRead{podensure.OwnedPodChanges(ssaensure.NewClient(mgr.GetClient(), ssaensure.FieldManager(podLabelsFieldOwner)))})).''')

src.append('''
// podLabelsFieldOwner owns the labels and the controller reference this
// controller applies to an existing pod, apart from the spec its Create
// wrote as sandbox-controller.
const podLabelsFieldOwner = "sandbox-controller-pod-labels"

// podChangesRead passes pod creations and deletions, changes to what the
// sandbox's status reads from its pod (phase, the Ready condition, pod
// IPs), and changes to the fields this controller owns (owned): not the
// kubelet's other status writes of a pod start.
type podChangesRead struct{ owned predicate.Funcs }

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
	return p.owned.Update(e)
}
''')
src.save()
print("agentsandbox-rewrite: the pod Update and the pod watch of the Sandbox controller rewritten")
