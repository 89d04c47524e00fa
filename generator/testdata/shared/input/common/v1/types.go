// Package v1 holds types shared by several API groups, as cert-manager's
// pkg/apis/meta/v1 or a project's common/v1: no kinds, no +groupName.
package v1

import "github.com/ssagen/ssagen/generator/testdata/shared/input/common/ids"

// SecretRef names a key of a Secret.
type SecretRef struct {
	Name string `json:"name"`
	Key  string `json:"key,omitempty"`
	// Owner is a type of a package no kind imports, inline.
	ids.ResourceID `json:",inline"`
}

// Unused is exported but no kind uses it: it gets a builder too, as
// applyconfiguration-gen makes one.
type Unused struct {
	Note string `json:"note,omitempty"`
}
