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
# Every group/version of k8s.io/api that client-go publishes apply
# configurations for (its folder names them). k8s.io/api's own warnings
# (optional list-map keys, a +listType on a string) are known; not shown.
kube=$(go list k8s.io/client-go/applyconfigurations/... |
  sed -n 's#^k8s.io/client-go/applyconfigurations/\([a-z0-9]*/v[a-z0-9]*\)$#k8s.io/api/\1#p' | grep -v '^k8s.io/api/meta/')
# client-go generates meta/v1 in the same run, so all of it is mapped.
# shellcheck disable=SC2086 # one argument per package
go run ./cmd/ssagen generate $verify --compat=applyconfiguration-gen \
  --external-applyconfigurations k8s.io/apimachinery/pkg/apis/meta/v1:k8s.io/client-go/applyconfigurations/meta/v1 \
  --output-dir internal/conformance/kube $kube 2> >(awk '/^warning: /{w=1; next} w && /^\tfix: /{w=0; next} {w=0; print}' >&2)
go run ./cmd/ssagen generate $verify --compat=applyconfiguration-gen \
  --output-dir internal/conformance/apiextensions \
  k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1
go run ./cmd/ssagen generate $verify --compat=applyconfiguration-gen \
  --output-dir internal/conformance/aggregator \
  k8s.io/kube-aggregator/pkg/apis/apiregistration/v1 k8s.io/kube-aggregator/pkg/apis/apiregistration/v1beta1

# The kinds of the conformance packages, for their JSON comparison.
roots=$(go run ./internal/conformance/rootsgen)
if [ -z "$verify" ]; then
  printf '%s\n' "$roots" > internal/conformance/roots_test.go
elif ! diff -u internal/conformance/roots_test.go <(printf '%s\n' "$roots"); then
  echo "internal/conformance/roots_test.go is stale: run make generate" >&2; exit 1
fi
# Each tree's converters, checked by property (internal/convtest).
for tree in kube apiextensions aggregator; do
  conv=$(go run ./internal/conformance/rootsgen -converters "$tree")
  out=internal/conformance/$tree/convert_test.go
  if [ -z "$verify" ]; then
    printf '%s\n' "$conv" > "$out"
  elif ! diff -u "$out" <(printf '%s\n' "$conv"); then
    echo "$out is stale: run make generate" >&2; exit 1
  fi
done
