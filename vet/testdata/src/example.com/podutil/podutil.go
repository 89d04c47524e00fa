// Package podutil reads pods in ways vet cannot see.
package podutil

import "example.com/api"

func Ready(p *api.Pod) bool { return p.Status.Phase == "Running" }
