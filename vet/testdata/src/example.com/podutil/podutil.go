// Package podutil reads pods in another package of the module: vet lists
// what it reads from its facts.
package podutil

import "example.com/api"

// Ready reads the phase.
func Ready(p *api.Pod) bool { return p.Status.Phase == "Running" }

var kept any

// Keep holds the pod where vet cannot see what is read of it.
func Keep(p *api.Pod) { kept = p }

// Hosted reads the host of a status handed by value.
func Hosted(s api.PodStatus) bool { return s.Host != nil }

// Labelled reads the labels of the metadata it is handed.
func Labelled(m *api.ObjectMeta) bool { return m.Labels["app"] != "" }
