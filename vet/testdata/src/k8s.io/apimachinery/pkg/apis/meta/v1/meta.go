// Package v1 is a stub of apimachinery's meta/v1 for analyzer tests.
package v1

type TypeMeta struct{ Kind, APIVersion string }

type ObjectMeta struct {
	Name, Namespace, GenerateName, ResourceVersion string
	Labels, Annotations                            map[string]string
	OwnerReferences                                []OwnerReference
	CreationTimestamp                              Time
}

// Time is a point in time; its zero value is no time.
type Time struct{ unix int64 }

func (t *Time) IsZero() bool { return t == nil || t.unix == 0 }

type OwnerReference struct{ Name string }

func (m *ObjectMeta) GetName() string { return m.Name }

func (m *ObjectMeta) GetLabels() map[string]string { return m.Labels }

func (m *ObjectMeta) SetLabels(l map[string]string) { m.Labels = l }

func GetControllerOf(obj any) *OwnerReference { return nil }

func IsControlledBy(obj, owner any) bool { return false }
