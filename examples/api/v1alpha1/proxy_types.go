package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ObjectReference is an alias of a type of another package: it maps to
// client-go's apply configuration of the aliased type.
type ObjectReference = corev1.ObjectReference

// ProxySpec describes a gateway and its routes. The Proxy controller owns a
// Deployment, a Service and a ConfigMap per Proxy; other controllers add
// listeners and hostnames of their own (seed 001).
type ProxySpec struct {
	// ClassRef names the proxy class. Embedding LocalObjectReference
	// inline instead would make the whole spec atomic: the type is an
	// atomic struct, and controller-gen carries that to the parent.
	// +optional
	ClassRef *corev1.LocalObjectReference `json:"classRef,omitempty"`

	// Listeners by name; other controllers may add theirs.
	// +listType=map
	// +listMapKey=name
	Listeners []Listener `json:"listeners,omitempty"`

	// Routes by name.
	// +listType=map
	// +listMapKey=name
	// +optional
	Routes []Route `json:"routes,omitempty"`

	// Filters by name.
	// +optional
	Filters map[string]Filter `json:"filters,omitempty"`

	// Selector picks the backends.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`

	// Backend is the default backend.
	// +optional
	Backend *ObjectReference `json:"backend,omitempty"`

	// Replicas of the proxy deployment.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// MaxRequestBytes limits a request's body. Proxies take byte limits as
	// uint64 (Envoy Gateway's and prometheus-operator's APIs do), which
	// structured-merge-diff's reflection cannot read: Extract, the type
	// converter and the Ensure runtime read a Proxy through its
	// unstructured form.
	// +optional
	MaxRequestBytes *uint64 `json:"maxRequestBytes,omitempty"`
}

// Listener accepts traffic on a port.
type Listener struct {
	// Name identifies the listener.
	Name string `json:"name"`
	// Port to listen on.
	Port int32 `json:"port"`
	// Hostnames served; other field managers may add theirs.
	// +listType=set
	// +optional
	Hostnames []string `json:"hostnames,omitempty"`
	// TLS settings, embedded as a named pointer field.
	// +optional
	*TLSConfig `json:"tls,omitempty"`
}

// TLSConfig terminates TLS.
type TLSConfig struct {
	// SecretName holds the certificate.
	SecretName string `json:"secretName"`
	// MinVersion of TLS.
	// +optional
	MinVersion string `json:"minVersion,omitempty"`
}

// Route sends matching requests to a backend.
type Route struct {
	// Name identifies the route.
	Name string `json:"name"`
	// Matches are OR-ed groups of AND-ed matches.
	// +optional
	Matches [][]Match `json:"matches,omitempty"`
	// Weight of the route.
	// +optional
	Weight *int32 `json:"weight,omitempty"`
}

// Match selects requests.
type Match struct {
	// Path prefix.
	Path string `json:"path,omitempty"`
	// Headers that must be present.
	// +mapType=atomic
	// +optional
	Headers map[string]string `json:"headers,omitempty"`
}

// Filter rewrites requests.
type Filter struct {
	// Type of the filter.
	Type string `json:"type"`
	// Args of the filter.
	// +optional
	Args []string `json:"args,omitempty"`
}

// ProxyStatus is what the controller observed.
type ProxyStatus struct {
	// Conditions of the proxy.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Addresses the proxy serves on.
	// +optional
	Addresses []string `json:"addresses,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Proxy is a gateway whose controller owns its routing children.
type Proxy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ProxySpec   `json:"spec,omitempty"`
	Status ProxyStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ProxyList is a list of Proxies.
type ProxyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Proxy `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Proxy{}, &ProxyList{})
}
