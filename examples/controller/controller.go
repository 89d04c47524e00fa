// Package controller is an example operator built on ssagen's helpers, for
// the three seed situations: a Project that owns RBAC in its namespaces
// (seed 000), and a Sandbox that owns a pod and reports its phase in status
// conditions (seed 002). Run it against a local envtest with `make example`.
package controller

import (
	"context"
	"fmt"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/ssagen/ssagen/ensure"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	ac "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1"
	apiensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1/ensure"
	coreensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
	rbacensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"
)

// FieldManager is the example operator's field manager.
const FieldManager = "platform-operator"

// NewClient is the client the reconcilers write through: c with the field
// manager and the memory of the helpers (ensure.NewClient), one per
// manager, named in the skip-cache metrics.
func NewClient(c client.Client) *ensure.Client {
	return ensure.NewClient(c, ensure.FieldManager(FieldManager), ensure.MetricsName(FieldManager))
}

// Finalizer holds a Project until its children are deleted.
const Finalizer = "platform.ssagen.dev/children"

// projectChildren lists the kinds of a Project's children.
func projectChildren() []client.ObjectList {
	return []client.ObjectList{&rbacv1.RoleList{}, &rbacv1.RoleBindingList{}, &corev1.ServiceAccountList{},
		&rbacv1.ClusterRoleList{}, &rbacv1.ClusterRoleBindingList{}}
}

// ProjectReconciler keeps a Project's RBAC as desired. Its client is
// NewClient's: the field manager and the memory of what it applied travel
// with it.
type ProjectReconciler struct {
	client.Client
	Reconciles atomic.Int64
}

// Reconcile ensures a Role, RoleBinding and ServiceAccount per namespace,
// and a ClusterRole and ClusterRoleBinding per project; prunes those of
// namespaces the project dropped; and deletes them all with the project.
// (On a cluster the garbage collector would collect them too, as they
// carry the project's owner reference; deleting them here does not wait
// for it, and works where none runs, as in envtest.)
func (r *ProjectReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	r.Reconciles.Add(1)
	var p platformv1alpha1.Project
	if err := r.Get(ctx, req.NamespacedName, &p); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if deleting, err := ensure.Finalize(ctx, r.Client, &p, Finalizer, projectChildren()); err != nil || deleting {
		return ctrl.Result{}, err
	}
	var keep []client.ObjectKey
	var subjects []*rbacv1ac.SubjectApplyConfiguration
	for _, m := range p.Spec.Members {
		subjects = append(subjects, rbacv1ac.Subject().WithKind(m.Kind).WithName(m.Name).WithAPIGroup("rbac.authorization.k8s.io"))
	}
	for _, ns := range p.Spec.Namespaces {
		keep = append(keep, client.ObjectKey{Namespace: ns, Name: p.Name + "-member"}, client.ObjectKey{Namespace: ns, Name: p.Name})
		if _, _, err := rbacensure.EnsureRole(ctx, r.Client, &p, rbacv1ac.Role(p.Name+"-member", ns).
			WithRules(rbacv1ac.PolicyRule().WithAPIGroups("").WithResources("pods", "services").WithVerbs("get", "list", "watch"))); err != nil {
			return ctrl.Result{}, err
		}
		if _, _, err := rbacensure.EnsureRoleBinding(ctx, r.Client, &p, rbacv1ac.RoleBinding(p.Name+"-member", ns).
			WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup("rbac.authorization.k8s.io").WithKind("Role").WithName(p.Name+"-member")).
			WithSubjects(subjects...)); err != nil {
			return ctrl.Result{}, err
		}
		// Created once, never overwritten: users annotate it.
		if _, _, err := coreensure.EnsureServiceAccount(ctx, r.Client, &p, corev1ac.ServiceAccount(p.Name, ns), ensure.CreateOnly()); err != nil {
			return ctrl.Result{}, err
		}
	}
	if _, _, err := rbacensure.EnsureClusterRole(ctx, r.Client, &p, rbacv1ac.ClusterRole(p.Name+"-admin").
		WithRules(rbacv1ac.PolicyRule().WithAPIGroups("platform.ssagen.dev").WithResources("projects").WithResourceNames(p.Name).WithVerbs("get", "update"))); err != nil {
		return ctrl.Result{}, err
	}
	if _, _, err := rbacensure.EnsureClusterRoleBinding(ctx, r.Client, &p, rbacv1ac.ClusterRoleBinding(p.Name+"-admin").
		WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup("rbac.authorization.k8s.io").WithKind("ClusterRole").WithName(p.Name+"-admin")).
		WithSubjects(subjects...)); err != nil {
		return ctrl.Result{}, err
	}
	// The namespaces the project no longer lists lose its children.
	for _, list := range projectChildren()[:3] {
		if _, err := ensure.Prune(ctx, r.Client, &p, list, keep); err != nil {
			return ctrl.Result{}, err
		}
	}
	_, _, err := apiensure.EnsureProjectStatus(ctx, r.Client, ac.Project(p.Name).WithStatus(ac.ProjectStatus().
		WithPhase(platformv1alpha1.ProjectReady).WithObservedGeneration(p.Generation).
		WithConditions(ensure.Condition(p.Status.Conditions, "Ready", metav1.ConditionTrue, "Provisioned", "RBAC in place", p.Generation, metav1.Now()))))
	return ctrl.Result{}, err
}

// SetupWithManager watches Projects and the RBAC they own.
func (r *ProjectReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&platformv1alpha1.Project{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&rbacv1.Role{}, builder.WithPredicates(rbacensure.OwnedRoleChanges(r.Client))).
		Owns(&rbacv1.RoleBinding{}, builder.WithPredicates(rbacensure.OwnedRoleBindingChanges(r.Client))).
		Complete(r)
}

// SandboxReconciler keeps a Sandbox's pod and reports its phase. Its
// client is NewClient's.
type SandboxReconciler struct {
	client.Client
	Reconciles atomic.Int64
}

// Reconcile ensures the sandbox pod and mirrors its phase into status.
func (r *SandboxReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	r.Reconciles.Add(1)
	var s platformv1alpha1.Sandbox
	if err := r.Get(ctx, req.NamespacedName, &s); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	pod, _, err := coreensure.EnsurePod(ctx, r.Client, &s, corev1ac.Pod(s.Name, s.Namespace).
		WithLabels(map[string]string{"sandbox": s.Name}).
		WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("main").WithImage("busybox:1.36"))))
	if err != nil {
		return ctrl.Result{}, err
	}
	ready := metav1.ConditionFalse
	if pod.Status.Phase == corev1.PodRunning {
		ready = metav1.ConditionTrue
	}
	_, _, err = apiensure.EnsureSandboxStatus(ctx, r.Client, ac.Sandbox(s.Name, s.Namespace).WithStatus(ac.SandboxStatus().
		WithPhase(platformv1alpha1.SandboxPhase(pod.Status.Phase)).WithPodName(pod.Name).
		WithConditions(ensure.Condition(s.Status.Conditions, "Ready", ready, fmt.Sprintf("Pod%s", phaseOr(pod.Status.Phase)), "", s.Generation, metav1.Now()))))
	return ctrl.Result{}, err
}

func phaseOr(p corev1.PodPhase) string {
	if p == "" {
		return "Unknown"
	}
	return string(p)
}

// SetupWithManager watches Sandboxes and their pods. Only pod changes that
// matter (the phase this controller mirrors) requeue the sandbox; with
// OwnedPodChanges alone every kubelet status write would be dropped, so
// the phase is checked explicitly.
func (r *SandboxReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&platformv1alpha1.Sandbox{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&corev1.Pod{}, builder.WithPredicates(phaseChanged{coreensure.OwnedPodChanges(r.Client)})).
		Complete(r)
}

// phaseChanged passes what the owned-fields predicate passes, and pod
// phase changes, which this controller mirrors.
type phaseChanged struct{ owned predicate.Funcs }

func (p phaseChanged) Create(e event.CreateEvent) bool   { return true }
func (p phaseChanged) Delete(e event.DeleteEvent) bool   { return true }
func (p phaseChanged) Generic(e event.GenericEvent) bool { return true }
func (p phaseChanged) Update(e event.UpdateEvent) bool {
	before, ok1 := e.ObjectOld.(*corev1.Pod)
	after, ok2 := e.ObjectNew.(*corev1.Pod)
	if ok1 && ok2 && before.Status.Phase != after.Status.Phase {
		return true
	}
	return p.owned.Update(e)
}
