package v1alpha1

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ProjectPhase is where a project is in its life.
// +kubebuilder:validation:Enum=Pending;Ready;Terminating
type ProjectPhase string

const (
	ProjectPending     ProjectPhase = "Pending"
	ProjectReady       ProjectPhase = "Ready"
	ProjectTerminating ProjectPhase = "Terminating"
)

// ProjectSpec is what a platform team asks for: namespaces, and who may do
// what in them. The Project controller owns a Role, RoleBinding and
// ServiceAccount in every namespace, and a ClusterRole and ClusterRoleBinding.
type ProjectSpec struct {
	// Namespaces the project owns.
	// +listType=set
	Namespaces []string `json:"namespaces,omitempty"`

	// Members of the project, by name.
	// +listType=map
	// +listMapKey=name
	// +optional
	Members []ProjectMember `json:"members,omitempty"`

	// Rules granted to members in every namespace of the project.
	// +listType=atomic
	// +optional
	Rules []rbacv1.PolicyRule `json:"rules,omitempty"`

	// DisplayName is shown in UIs.
	// +optional
	DisplayName *string `json:"displayName,omitempty"`

	// Labels are copied to every object the project owns.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
}

// ProjectMember is a subject with a role in the project.
type ProjectMember struct {
	// Name identifies the member.
	Name string `json:"name"`
	// Kind is User, Group or ServiceAccount.
	Kind string `json:"kind"`
	// Admin members also get the project's ClusterRole.
	// +optional
	Admin bool `json:"admin,omitempty"`
}

// ProjectStatus is what the Project controller observed.
type ProjectStatus struct {
	// Phase summarises the conditions.
	// +optional
	Phase ProjectPhase `json:"phase,omitempty"`

	// Conditions of the project.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster

// Project is a cluster-scoped tenant that owns per-namespace RBAC.
type Project struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ProjectSpec   `json:"spec,omitempty"`
	Status ProjectStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ProjectList is a list of Projects.
type ProjectList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Project `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Project{}, &ProjectList{})
}
