package ensuretest

import (
	"encoding/json"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Object is the object an apply configuration describes, decoded from the
// configuration's JSON: for a test's stub of an Ensure helper whose
// assertions read the typed object (as they read the object a stubbed
// Create was handed):
//
//	ensureRoleFn: func(_ context.Context, _ client.Client, _ client.Object, desired *rbacv1ac.RoleApplyConfiguration, _ ...ensure.ApplyOption) (*rbacv1.Role, ensure.Result, error) {
//		role := ensuretest.Object[rbacv1.Role](desired)
//		...
//	}
//
// ssagen vet -fix writes such stubs when it gives a function field the
// helper's signature. A nil configuration is the zero object.
func Object[T any, PT interface {
	*T
	client.Object
}](desired any) PT {
	obj := PT(new(T))
	b, err := json.Marshal(desired)
	if err == nil {
		err = json.Unmarshal(b, obj)
	}
	if err != nil {
		panic(fmt.Sprintf("ensuretest.Object: %T does not describe a %T: %v", desired, obj, err))
	}
	return obj
}
