// Package v1 is a stub of k8s.io/api/rbac/v1 for analyzer tests.
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type PolicyRule struct {
	Verbs, APIGroups, Resources []string
}

type Role struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Rules []PolicyRule
}

type ClusterRole struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Rules []PolicyRule
}

type RoleBinding struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Subjects []Subject
}

type Subject struct{ Kind, Name string }

func (in *Role) DeepCopy() *Role { out := *in; return &out }
