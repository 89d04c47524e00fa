// Package applyconfiguration_test checks the generated converters.
package applyconfiguration_test

import (
	"encoding/json"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	discoveryv1ac "k8s.io/client-go/applyconfigurations/discovery/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"

	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	ac "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1"
	appsensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/apps/v1/ensure"
	coreensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/core/v1/ensure"
	discoveryensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/discovery/v1/ensure"
	"github.com/ssagen/ssagen/examples/generated/applyconfiguration/internal"
	rbacensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"
	"github.com/ssagen/ssagen/internal/convtest"
)

// TestConverters checks the example's converters by property on random
// objects (package convtest): the example's own kinds, and the built-in
// kinds of --ensure-kinds, whose converters the helper packages export.
func TestConverters(t *testing.T) {
	p := internal.Parser()
	own := func(kind string) string { return "com.github.ssagen.ssagen.examples.api.v1alpha1." + kind }
	convtest.Run(t, []convtest.Kind{
		convtest.For("Project", p.Type(own("Project")), ac.FromProject, ac.ExtractProject, ac.StatusFromProject, ac.ExtractProjectStatus),
		convtest.For("Proxy", p.Type(own("Proxy")), ac.FromProxy, ac.ExtractProxy, ac.StatusFromProxy, ac.ExtractProxyStatus),
		convtest.For("Sandbox", p.Type(own("Sandbox")), ac.FromSandbox, ac.ExtractSandbox, ac.StatusFromSandbox, ac.ExtractSandboxStatus),
		convtest.For("apps/v1.Deployment", p.Type("io.k8s.api.apps.v1.Deployment"), appsensure.FromDeployment, appsv1ac.ExtractDeployment,
			appsensure.StatusFromDeployment, appsv1ac.ExtractDeploymentStatus),
		convtest.For("v1.Pod", p.Type("io.k8s.api.core.v1.Pod"), coreensure.FromPod, corev1ac.ExtractPod, coreensure.StatusFromPod, corev1ac.ExtractPodStatus),
		convtest.For("v1.Service", p.Type("io.k8s.api.core.v1.Service"), coreensure.FromService, corev1ac.ExtractService,
			coreensure.StatusFromService, corev1ac.ExtractServiceStatus),
		convtest.For("v1.ConfigMap", p.Type("io.k8s.api.core.v1.ConfigMap"), coreensure.FromConfigMap, corev1ac.ExtractConfigMap, nil, nil),
		convtest.For("v1.Secret", p.Type("io.k8s.api.core.v1.Secret"), coreensure.FromSecret, corev1ac.ExtractSecret, nil, nil),
		convtest.For("v1.ServiceAccount", p.Type("io.k8s.api.core.v1.ServiceAccount"), coreensure.FromServiceAccount, corev1ac.ExtractServiceAccount, nil, nil),
		convtest.For("rbac/v1.Role", p.Type("io.k8s.api.rbac.v1.Role"), rbacensure.FromRole, rbacv1ac.ExtractRole, nil, nil),
		convtest.For("rbac/v1.ClusterRole", p.Type("io.k8s.api.rbac.v1.ClusterRole"), rbacensure.FromClusterRole, rbacv1ac.ExtractClusterRole, nil, nil),
		convtest.For("rbac/v1.RoleBinding", p.Type("io.k8s.api.rbac.v1.RoleBinding"), rbacensure.FromRoleBinding, rbacv1ac.ExtractRoleBinding, nil, nil),
		convtest.For("discovery/v1.EndpointSlice", p.Type("io.k8s.api.discovery.v1.EndpointSlice"), discoveryensure.FromEndpointSlice,
			discoveryv1ac.ExtractEndpointSlice, nil, nil),
	}, 50)
}

// BenchmarkConvert compares a converter with the JSON round trip it
// replaces (json.Marshal of the object, json.Unmarshal into the apply
// configuration), on the same random objects. Figures: docs/converters.md.
func BenchmarkConvert(b *testing.B) {
	deployment, proxy := &appsv1.Deployment{}, &platformv1alpha1.Proxy{}
	convtest.Filler(3).Fill(deployment)
	convtest.Filler(3).Fill(proxy)
	roundTrip := func(b *testing.B, obj, into any) {
		for b.Loop() {
			data, err := json.Marshal(obj)
			if err != nil {
				b.Fatal(err)
			}
			if err := json.Unmarshal(data, into); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("Deployment/From", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			appsensure.FromDeployment(deployment)
		}
	})
	b.Run("Deployment/JSON", func(b *testing.B) {
		b.ReportAllocs()
		roundTrip(b, deployment, &appsv1ac.DeploymentApplyConfiguration{})
	})
	b.Run("Proxy/From", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ac.FromProxy(proxy)
		}
	})
	b.Run("Proxy/JSON", func(b *testing.B) {
		b.ReportAllocs()
		roundTrip(b, proxy, &ac.ProxyApplyConfiguration{})
	})
}
