// Package v1 is a stub of client-go's rbac/v1 apply configurations.
package v1

type RoleApplyConfiguration struct{ Name, Namespace *string }

func Role(name, namespace string) *RoleApplyConfiguration { return &RoleApplyConfiguration{} }

func (b *RoleApplyConfiguration) WithLabels(entries map[string]string) *RoleApplyConfiguration {
	return b
}

func (b *RoleApplyConfiguration) WithRules(values ...*PolicyRuleApplyConfiguration) *RoleApplyConfiguration {
	return b
}

type ClusterRoleApplyConfiguration struct{}

func ClusterRole(name string) *ClusterRoleApplyConfiguration { return &ClusterRoleApplyConfiguration{} }

func (b *ClusterRoleApplyConfiguration) WithRules(values ...*PolicyRuleApplyConfiguration) *ClusterRoleApplyConfiguration {
	return b
}

type PolicyRuleApplyConfiguration struct{}

func PolicyRule() *PolicyRuleApplyConfiguration { return &PolicyRuleApplyConfiguration{} }

func (b *PolicyRuleApplyConfiguration) WithVerbs(values ...string) *PolicyRuleApplyConfiguration {
	return b
}

func (b *PolicyRuleApplyConfiguration) WithAPIGroups(values ...string) *PolicyRuleApplyConfiguration {
	return b
}

func (b *PolicyRuleApplyConfiguration) WithResources(values ...string) *PolicyRuleApplyConfiguration {
	return b
}
