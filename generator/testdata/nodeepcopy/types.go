// Package nodeepcopy is a kind as go/v4 scaffolds it, before controller-gen
// object has written its DeepCopy methods: it registers itself in the
// scheme, which does not compile yet.
// +groupName=web.example.com
package nodeepcopy

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var groupVersion = schema.GroupVersion{Group: "web.example.com", Version: "v1"}

// SiteSpec is its spec.
type SiteSpec struct {
	Foo *string `json:"foo,omitempty"`
}

// +kubebuilder:object:root=true

// Site is the kind.
type Site struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitzero"`
	Spec              SiteSpec `json:"spec"`
}

func register(s *runtime.Scheme) { s.AddKnownTypes(groupVersion, &Site{}) }
