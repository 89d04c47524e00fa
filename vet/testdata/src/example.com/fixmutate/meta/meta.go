// Package meta holds helpers another package of the operator hands its
// objects to, followed through their summaries (flow.Summary.Fresh).
package meta

import (
	rbacv1 "k8s.io/api/rbac/v1"
)

// Labelled is what the helper needs of an object.
type Labelled interface {
	GetLabels() map[string]string
	SetLabels(map[string]string)
}

// SetInheritedLabels merges labels into obj's: the same on a fresh object.
func SetInheritedLabels(obj Labelled, labels map[string]string) {
	merged := obj.GetLabels()
	if merged == nil {
		merged = map[string]string{}
	}
	for k, v := range labels {
		merged[k] = v
	}
	obj.SetLabels(merged)
}

// KeepFirstRule keeps the live object's first rule: not there on a fresh
// object.
func KeepFirstRule(role *rbacv1.Role, rules []rbacv1.PolicyRule) {
	if len(role.Rules) > 0 {
		rules = append([]rbacv1.PolicyRule{role.Rules[0]}, rules...)
	}
	role.Rules = rules
}

// SafeRules sets role's rules, recovering from a panic of rules (a
// builtin called without arguments, in a function handed an object).
func SafeRules(role *rbacv1.Role, rules func() []rbacv1.PolicyRule) {
	defer func() { _ = recover() }()
	role.Rules = rules()
}

// SetRule replaces the rule of role with rule's first verb, or adds it.
func SetRule(role *rbacv1.Role, rule rbacv1.PolicyRule) {
	for i := range role.Rules {
		if len(role.Rules[i].Verbs) > 0 && len(rule.Verbs) > 0 && role.Rules[i].Verbs[0] == rule.Verbs[0] {
			role.Rules[i] = rule
			return
		}
	}
	role.Rules = append(role.Rules, rule)
}
