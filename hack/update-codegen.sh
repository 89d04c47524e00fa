#!/usr/bin/env bash
# Regenerates everything generated in this repository, the way a Kubebuilder
# project's hack/update-codegen.sh would call ssagen. With --verify it writes
# nothing and fails with a diff when something is stale.
set -euo pipefail
cd "$(dirname "$0")/.."

verify=""
if [ "${1:-}" = "--verify" ]; then verify="--verify"; fi

# Deepcopy for the example API (controller-gen, pinned as a tool in go.mod).
if [ -z "$verify" ]; then
  go tool controller-gen object paths=./examples/api/...
fi

# CRDs for the example API, for envtest (controller-gen, as Kubebuilder does).
if [ -z "$verify" ]; then
  go tool controller-gen crd paths=./examples/api/... output:crd:dir=examples/config/crd
else
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  go tool controller-gen crd paths=./examples/api/... output:crd:dir="$tmp"
  diff -ru examples/config/crd "$tmp" || { echo "examples/config/crd is stale: run make generate" >&2; exit 1; }
fi

# Apply configurations for the example API.
go run ./cmd/ssagen generate $verify --ensure \
  --ensure-kinds k8s.io/api/rbac/v1.Role,k8s.io/api/rbac/v1.RoleBinding,k8s.io/api/rbac/v1.ClusterRole,k8s.io/api/rbac/v1.ClusterRoleBinding \
  --ensure-kinds k8s.io/api/core/v1.ServiceAccount,k8s.io/api/core/v1.Service,k8s.io/api/core/v1.ConfigMap,k8s.io/api/core/v1.Secret,k8s.io/api/core/v1.Pod \
  --ensure-kinds k8s.io/api/apps/v1.Deployment,k8s.io/api/discovery/v1.EndpointSlice \
  --output-dir examples/generated/applyconfiguration \
  ./examples/api/...

# Conformance packages: ssagen's output for public API packages that ship
# applyconfiguration-gen output, compared in internal/conformance
# (--compat=applyconfiguration-gen: its exact exported surface).
go run ./cmd/ssagen generate $verify --compat=applyconfiguration-gen \
  --output-dir internal/conformance/kube \
  k8s.io/api/core/v1 k8s.io/api/rbac/v1 k8s.io/api/apps/v1 k8s.io/api/batch/v1 k8s.io/api/storage/v1
go run ./cmd/ssagen generate $verify --compat=applyconfiguration-gen \
  --output-dir internal/conformance/apiextensions \
  k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1
