// Package api stands for ssagen's apply configurations of example.com/api,
// with their converters.
package api

import "example.com/api"

type PodApplyConfiguration struct{}

func FromPod(in *api.Pod) *PodApplyConfiguration { return nil }

func StatusFromPod(in *api.Pod) *PodApplyConfiguration { return nil }

type ServiceApplyConfiguration struct{}
