// Package clientset writes through client-go's typed clients instead of
// controller-runtime's client: the same categories, the helper named for
// the object's kind (never for the options' type), and no automatic fix
// (the helpers write through controller-runtime's client).
package clientset

import (
	"context"

	"example.com/api"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/util/retry"
)

type Reconciler struct{ core corev1.CoreV1Interface }

func (r *Reconciler) createOrUpdate(ctx context.Context, cm *api.ConfigMap) error {
	_, err := r.core.ConfigMaps("ns").Create(ctx, cm, corev1.CreateOptions{}) // want `Create → AlreadyExists → Update.*call EnsureConfigMap with one by hand`
	if apierrors.IsAlreadyExists(err) {
		_, err = r.core.ConfigMaps("ns").Update(ctx, cm, corev1.UpdateOptions{})
	}
	return err
}

func (r *Reconciler) createIgnore(ctx context.Context, cm *api.ConfigMap) error {
	if _, err := r.core.ConfigMaps("ns").Create(ctx, cm, corev1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) { // want `Create that ignores AlreadyExists.*fix: EnsureConfigMap`
		return err
	}
	return nil
}

// prometheus-operator's CreateStatefulSetOrPatchLabels: success returns,
// any error but AlreadyExists returns, and what follows — a Patch of the
// existing object by name — runs for AlreadyExists only.
func (r *Reconciler) createOrPatchLabels(ctx context.Context, cm *api.ConfigMap) (*api.ConfigMap, error) {
	created, err := r.core.ConfigMaps("ns").Create(ctx, cm, corev1.CreateOptions{}) // want `Create → AlreadyExists → Update`
	if err == nil {
		return created, nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	return r.core.ConfigMaps("ns").Patch(ctx, cm.Name, "application/strategic-merge-patch+json", []byte(`{}`), corev1.PatchOptions{})
}

func (r *Reconciler) retried(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error { // want `RetryOnConflict around Get \+ Update.*fix: EnsureConfigMap`
		cm, err := r.core.ConfigMaps("ns").Get(ctx, "c", corev1.GetOptions{})
		if err != nil {
			return err
		}
		cm.Data["k"] = "v"
		_, err = r.core.ConfigMaps("ns").Update(ctx, cm, corev1.UpdateOptions{})
		return err
	})
}

// Silent: a retried read alone.
func (r *Reconciler) retriedRead(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		_, err := r.core.ConfigMaps("ns").Get(ctx, "c", corev1.GetOptions{})
		return err
	})
}

// An Update through a typed client of what a constructor of the module
// built, with no resourceVersion: it overwrites the others' fields.
func (r *Reconciler) fromScratch(ctx context.Context) error {
	cm := desiredConfigMap()
	_, err := r.core.ConfigMaps("ns").Update(ctx, cm, corev1.UpdateOptions{}) // want `Update of an object built from scratch.*fix: EnsureConfigMap`
	return err
}

// Silent: the object built, then given the resourceVersion of a read.
func (r *Reconciler) fromScratchVersioned(ctx context.Context) error {
	current, err := r.core.ConfigMaps("ns").Get(ctx, "c", corev1.GetOptions{})
	if err != nil {
		return err
	}
	cm := desiredConfigMap()
	cm.ResourceVersion = current.ResourceVersion
	_, err = r.core.ConfigMaps("ns").Update(ctx, cm, corev1.UpdateOptions{})
	return err
}

func desiredConfigMap() *api.ConfigMap {
	return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "c", Namespace: "ns"}, Data: map[string]string{"k": "v"}}
}

// resourceAlreadyExists is apimachinery's predicate under the module's own
// name (zalando's k8sutil.ResourceAlreadyExists): flow's facts say which
// it is.
func resourceAlreadyExists(err error) bool {
	return apierrors.IsAlreadyExists(err)
}

// Create → AlreadyExists → Update, the check through the module's own
// predicate.
func (r *Reconciler) createOrUpdateNamed(ctx context.Context, cm *api.ConfigMap) error {
	_, err := r.core.ConfigMaps("ns").Create(ctx, cm, corev1.CreateOptions{}) // want `Create → AlreadyExists → Update`
	if resourceAlreadyExists(err) {
		_, err = r.core.ConfigMaps("ns").Update(ctx, cm, corev1.UpdateOptions{})
	}
	return err
}

// Silent: the Create runs only when the read found nothing, and the
// AlreadyExists check of the else branch tests the read's error, not the
// Create's (zalando's createPodServiceAccount).
func (r *Reconciler) createWhenMissing(ctx context.Context, cm *api.ConfigMap) error {
	_, err := r.core.ConfigMaps("ns").Get(ctx, cm.Name, corev1.GetOptions{})
	if apierrors.IsNotFound(err) {
		if _, err = r.core.ConfigMaps("ns").Create(ctx, cm, corev1.CreateOptions{}); err != nil {
			return err
		}
	} else if resourceAlreadyExists(err) {
		return nil
	}
	return err
}
