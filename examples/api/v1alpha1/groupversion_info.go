// Package v1alpha1 is the example API ssagen is tested against: a
// kubebuilder-style group modelled on the write patterns of the seed
// reports — a cluster-scoped Project that owns per-namespace RBAC, a Proxy
// whose controller owns routing children, and a Sandbox with status
// conditions and a pod child.
// +kubebuilder:object:generate=true
// +groupName=platform.ssagen.dev
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is group version used to register these objects.
	GroupVersion = schema.GroupVersion{Group: "platform.ssagen.dev", Version: "v1alpha1"}

	// SchemeBuilder is used to add go types to the GroupVersionKind scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the types in this group-version to the given scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
