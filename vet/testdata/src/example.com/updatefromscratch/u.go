package updatefromscratch

import (
	"context"

	"example.com/api"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type R struct{ client.Client }

// Every field other writers set is overwritten.
func (r *R) settings(ctx context.Context) error {
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "settings"}, Data: map[string]string{"mode": "fast"}}
	return r.Update(ctx, cm) // want `Update of an object built from scratch`
}

// Near miss: an Update of what was read.
func (r *R) edit(ctx context.Context) error {
	cm := &api.ConfigMap{}
	if err := r.Get(ctx, client.ObjectKey{Name: "settings"}, cm); err != nil {
		return err
	}
	cm.Data = map[string]string{"mode": "slow"}
	return r.Update(ctx, cm)
}

// The Update of a Create → AlreadyExists → Update site is create-update's
// finding (the analyzer this one requires), not this one's.
func (r *R) createThenUpdate(ctx context.Context) error {
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "site"}}
	if err := r.Create(ctx, cm); apierrors.IsAlreadyExists(err) {
		return r.Update(ctx, cm)
	}
	return nil
}

// An Update built from scratch in a closure on that path is not the
// site's write — create-update's fix does not rewrite it: reported here.
func (r *R) closureAfterExists(ctx context.Context) error {
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "site"}}
	if err := r.Create(ctx, cm); apierrors.IsAlreadyExists(err) {
		do := func() error {
			fresh := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "site"}}
			return r.Update(ctx, fresh) // want `Update of an object built from scratch`
		}
		return do()
	}
	return nil
}

// A desired object built by a constructor and kept in a struct field
// (issue 55): set where the reconciler is made, written in Reconcile.
type scaler struct {
	client.Client
	desired *api.ConfigMap
	seen    *api.ConfigMap
}

func desiredSettings(name string) *api.ConfigMap {
	return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: name}, Data: map[string]string{"mode": "fast"}}
}

func newScaler(c client.Client) *scaler {
	return &scaler{Client: c, desired: desiredSettings("scaled")}
}

func (s *scaler) Reconcile(ctx context.Context) error {
	return s.Update(ctx, s.desired) // want `Update of an object built from scratch`
}

// Near miss: a field a Get fills somewhere in the package is a read.
func (s *scaler) refresh(ctx context.Context) error {
	s.seen = desiredSettings("seen")
	return s.Get(ctx, client.ObjectKey{Name: "seen"}, s.seen)
}

func (s *scaler) writeSeen(ctx context.Context) error {
	return s.Update(ctx, s.seen)
}
