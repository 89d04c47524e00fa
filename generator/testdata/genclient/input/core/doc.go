// Package core is a code-generator-style API package: +genclient markers,
// the group in doc.go, and a group name taken from the folder.

// +k8s:deepcopy-gen=package
// +groupName=things.example.com

package core
