// Package api has stub kinds for analyzer tests.
package api

type ObjectMeta struct {
	Name, Namespace, GenerateName, ResourceVersion string
	Labels                                         map[string]string
	OwnerReferences                                []string
}

func (m *ObjectMeta) GetName() string              { return m.Name }
func (m *ObjectMeta) GetLabels() map[string]string { return m.Labels }

type Role struct {
	ObjectMeta
	Rules []string
}
type ServiceAccount struct{ ObjectMeta }
type ConfigMap struct {
	ObjectMeta
	Data map[string]string
}
type Pod struct {
	ObjectMeta
	Status PodStatus
}
type PodStatus struct {
	Phase      string
	Conditions []PodCondition
	Host       *string
}
type PodCondition struct{ Type, Status, Reason string }
type PodList struct{ Items []Pod }
type Deployment struct{ ObjectMeta }
type Service struct{ ObjectMeta }

func (in *Pod) DeepCopy() *Pod         { out := *in; return &out }
func (in *Service) DeepCopy() *Service { out := *in; return &out }
