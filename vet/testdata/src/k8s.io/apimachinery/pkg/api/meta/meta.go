// Package meta is a stub of apimachinery's meta for analyzer tests.
package meta

// Object is the stub of metav1.Object that Accessor answers.
type Object interface {
	GetName() string
	GetLabels() map[string]string
}

// Accessor answers the object it is handed, as an Object.
func Accessor(obj any) (Object, error) { return obj.(Object), nil }
