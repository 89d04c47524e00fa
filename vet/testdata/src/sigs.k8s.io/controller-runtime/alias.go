// Package controllerruntime stands for controller-runtime's root package,
// which re-exports functions of its subpackages as variables.
package controllerruntime

import "sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

var CreateOrUpdate = controllerutil.CreateOrUpdate
var SetControllerReference = controllerutil.SetControllerReference
