package soak

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Flatten is a live object as the model sees it: its labels, annotations,
// owner references and every leaf of its other top-level fields (data,
// spec, status), in the model's path syntax. List items keyed by "name"
// are addressed by it, lists of scalars are sets.
func Flatten(obj client.Object) (Fields, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	out := Fields{}
	for k, v := range obj.GetLabels() {
		out["metadata.labels."+k] = v
	}
	for k, v := range obj.GetAnnotations() {
		out["metadata.annotations."+k] = v
	}
	for _, r := range obj.GetOwnerReferences() {
		out["metadata.ownerReferences["+string(r.UID)+"]"] = OwnerRefValue(r.Kind, r.Name, r.Controller != nil && *r.Controller)
	}
	for k, v := range u {
		if k == "apiVersion" || k == "kind" || k == "metadata" {
			continue
		}
		flatten(out, k, v)
	}
	return out, nil
}

// OwnerRefValue is the model's value of an owner reference.
func OwnerRefValue(kind, name string, controller bool) string {
	return fmt.Sprintf("%s/%s controller=%v", kind, name, controller)
}

func flatten(out Fields, path string, v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			flatten(out, path+"."+k, c)
		}
	case []any:
		for i, item := range v {
			switch item := item.(type) {
			case map[string]any:
				name, ok := item["name"].(string)
				if !ok {
					flatten(out, fmt.Sprintf("%s[%d]", path, i), item)
					continue
				}
				for k, c := range item {
					if k != "name" {
						flatten(out, path+"["+name+"]."+k, c)
					}
				}
			default:
				out[path+"["+fmt.Sprint(item)+"]"] = ""
			}
		}
	case nil:
	default:
		out[path] = fmt.Sprint(v)
	}
}

// OwnedPaths is what manager's managedFields entries of obj (any operation,
// any subresource) own, in the model's path syntax. Use covers to match
// them with the model's paths.
func OwnedPaths(obj client.Object, manager string) ([]string, error) {
	var out []string
	for _, e := range obj.GetManagedFields() {
		if e.Manager != manager || e.FieldsV1 == nil {
			continue
		}
		var tree map[string]any
		if err := json.Unmarshal(e.FieldsV1.Raw, &tree); err != nil {
			return nil, err
		}
		walkOwned(&out, "", tree)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// ManagersOf lists the field managers with an entry in obj's managedFields.
func ManagersOf(obj client.Object) []string {
	var out []string
	for _, e := range obj.GetManagedFields() {
		out = append(out, e.Manager)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func walkOwned(out *[]string, path string, node map[string]any) {
	leaf := true
	for k, c := range node {
		if k == "." {
			continue
		}
		leaf = false
		child, _ := c.(map[string]any)
		var p string
		switch {
		case strings.HasPrefix(k, "f:"):
			p = strings.TrimPrefix(k, "f:")
			if path != "" {
				p = path + "." + p
			}
		case strings.HasPrefix(k, "k:"):
			var key map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(k, "k:")), &key); err != nil || len(key) == 0 {
				p = path + "[" + k + "]"
				break
			}
			var v any
			for _, kv := range key {
				v = kv // keys of this model's lists have one field: name or uid
			}
			p = path + "[" + fmt.Sprint(v) + "]"
		case strings.HasPrefix(k, "v:"):
			var v any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(k, "v:")), &v); err != nil {
				v = k
			}
			p = path + "[" + fmt.Sprint(v) + "]"
		default:
			p = path + "." + k
		}
		walkOwned(out, p, child)
	}
	// A node with no children is a leaf (or an atomic value); one with
	// only "." owns its map or item itself, not what is in it.
	if _, self := node["."]; leaf && !self && path != "" {
		*out = append(*out, path)
	}
}
