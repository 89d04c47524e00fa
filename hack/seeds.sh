#!/usr/bin/env bash
# hack/seeds.sh: the seed operators fixed in their own code, as their
# maintainers would do it (docs/seeds.md). For each operator: its build,
# go vet and unit tests before; ssagen generate into its module and its
# layout; ssagen vet -fix, and nothing else; its build, vet and tests
# after, its pins unchanged; and its seed scenario on envtest before and
# after, counted. Not part of `make test`: it needs the operators' code.
#
# Usage: hack/seeds.sh [kargo|nso|agent-sandbox|capsule|kuberay|fluent|rabbitmq|solr|all]
#
# The Go module proxy refuses some of these modules, so the script works
# from a git clone of each public repository: the one a variable names,
# or else one it clones from GitHub into .cache/seeds/src/<name> on its
# first run (kept for the next):
#   KARGO_REPO  github.com/akuity/kargo, holding commit ac76edede
#   NSO_REPO    github.com/datum-cloud/network-services-operator, holding
#               a4ae50b; it requires module versions the proxy refuses,
#               served from clones by hack/seeds/modproxy:
#               MCR_REPO (kubernetes-sigs/multicluster-runtime, cda86980358b),
#               ENVOY_GATEWAY_REPO (envoyproxy/gateway, v1.5.1), MILO_REPO
#               (datum-cloud/milo, v0.7.4), DNS_OPERATOR_REPO
#               (datum-cloud/dns-operator, v0.5.1)
#   AGENT_SANDBOX_REPO  github.com/kubernetes-sigs/agent-sandbox, holding
#               51814a80 (main before PRs #509/#508, the code its issue
#               #527 measured)
# and two operators never used to write ssagen's rules, run the same way
# without a seed scenario (docs/vet.md, "Two operators -fix never saw"):
#   CAPSULE_REPO  github.com/projectcapsule/capsule, holding 65a4e19e
#   KUBERAY_REPO  github.com/ray-project/kuberay, holding feeaf72fa
#               (its ray-operator module)
# and three more, first run on 2026-11-28 with the intent-from-meaning
# rule (docs/vet.md, "Three operators for the intent rule"):
#   FLUENT_REPO   github.com/fluent/fluent-operator, holding 00625bfd
#   RABBITMQ_REPO github.com/rabbitmq/cluster-operator, holding 06cda8e8
#   SOLR_REPO     github.com/apache/solr-operator, holding ed5c5c7d
# Work happens in SEEDS_WORK (default .cache/seeds), wiped per operator.
set -euo pipefail
export GOTOOLCHAIN=local
root=$(cd "$(dirname "$0")/.." && pwd)
work=${SEEDS_WORK:-$root/.cache/seeds}
mkdir -p "$work"
assets=$(bash "$root/hack/envtest-assets.sh" | tail -n1)
bin=$work/ssagen

# vetfix PKGS: ssagen vet -fix, printing its summary; a run that ends
# without one (a panic, a load error) prints its end and stops the script.
vetfix() {
  local out
  out=$("$bin" vet -fix "$@" 2>&1) || true
  if ! grep -q '^ssagen vet -fix' <<<"$out"; then
    tail -n 30 <<<"$out"
    echo "ssagen vet -fix ended without its summary" >&2
    return 1
  fi
  sed -n '/^ssagen vet -fix/,$p' <<<"$out"
}
(cd "$root" && go build -o "$bin" ./cmd/ssagen)

say() { printf '\n== %s\n' "$*"; }

# shellcheck source=hack/clone.sh
source "$root/hack/clone.sh"

# tests PKGS: runs the packages' tests, prints "N passed, M failed".
tests() {
  local out
  out=$(go test -count=1 -json "$@" 2>&1 || true)
  local pass fail
  pass=$(grep -c '"Action":"pass","Package":"[^"]*","Test"' <<<"$out" || true)
  fail=$(grep -c '"Action":"fail","Package":"[^"]*","Test"' <<<"$out" || true)
  echo "unit tests: $pass passed, $fail failed"
  grep -o '"Action":"fail","Package":"[^"]*","Test":"[^"]*"' <<<"$out" | sed 's/.*"Test":/  failed: /' || true
}

# pins: the k8s.io and controller-runtime requirements of go.mod.
pins() { grep -E '^\s*(k8s\.io/|sigs\.k8s\.io/controller-runtime )' go.mod | sed 's/ \/\/ indirect//' | sort; }

# health PKGS: the operator's build, go vet of PKGS and their tests.
health() {
  go build ./... && echo "build: ok"
  go vet "$@" && echo "go vet: ok"
  tests "$@"
}

# use_runtime: requires the runtime module from this checkout, as a
# published version would be required.
use_runtime() {
  go mod edit -require=github.com/ssagen/ssagen/ensure@v0.0.0-00010101000000-000000000000 -replace=github.com/ssagen/ssagen/ensure="$root/ensure"
}

# pins_kept NAME: the pins now against those saved as NAME before.
pins_kept() {
  pins >"$work/$1.pins.after"
  if diff "$work/$1.pins.before" "$work/$1.pins.after" >/dev/null; then
    echo "pins: unchanged"
  else
    echo "pins: CHANGED"
    diff "$work/$1.pins.before" "$work/$1.pins.after" || true
  fi
}

kargo() {
  local repo
  repo=$(clone KARGO_REPO kargo akuity/kargo ac76edede)
  local dir=$work/kargo pkgs=./pkg/controller/management/...
  rm -rf "$dir"
  git clone -q "$repo" "$dir"
  cd "$dir"
  git checkout -q ac76edede
  pins >"$work/kargo.pins.before"
  scenario() {
    cp "$root/hack/seeds/kargo_seed_test.go.txt" pkg/controller/management/projects/zz_ssagen_seed_test.go
    KUBEBUILDER_ASSETS=$assets go test -count=1 -v -tags ssagenseed -run '^TestSSAgenSeed$' ./pkg/controller/management/projects/ 2>&1 | grep -E '^SEED|^(FAIL|ok|---)' || true
    rm -f pkg/controller/management/projects/zz_ssagen_seed_test.go
  }

  say "Kargo ac76edede: before"
  health $pkgs
  scenario

  say "ssagen generate (the helpers of the five kinds the seed names, client-go's apply configurations)"
  use_runtime
  "$bin" generate -v --ensure-kinds k8s.io/api/rbac/v1.Role,k8s.io/api/rbac/v1.RoleBinding,k8s.io/api/rbac/v1.ClusterRole,k8s.io/api/rbac/v1.ClusterRoleBinding,k8s.io/api/core/v1.ServiceAccount --output-dir pkg/ssa
  go mod tidy >/dev/null 2>&1
  go build ./pkg/ssa/... && echo "helpers build"

  say "ssagen vet -fix (each fix checked: build, go vet, the package's tests), and nothing else"
  vetfix $pkgs
  git diff --stat -- pkg/controller

  say "Kargo: after"
  health $pkgs
  pins_kept kargo
  scenario
  git diff --stat -- pkg/controller | tail -1
  cd "$root"
}

nso() {
  local repo mcr envoy milo dnsop
  repo=$(clone NSO_REPO network-services-operator datum-cloud/network-services-operator a4ae50b)
  mcr=$(clone MCR_REPO multicluster-runtime kubernetes-sigs/multicluster-runtime cda86980358b)
  envoy=$(clone ENVOY_GATEWAY_REPO envoy-gateway envoyproxy/gateway v1.5.1)
  milo=$(clone MILO_REPO milo datum-cloud/milo v0.7.4)
  dnsop=$(clone DNS_OPERATOR_REPO dns-operator datum-cloud/dns-operator v0.5.1)
  # The versions it pins that the proxy refuses, from clones, checked
  # against its go.sum by the go command.
  local proxy=$work/nso-proxy
  rm -rf "$proxy"
  (cd "$root" && go run ./hack/seeds/modproxy -dir "$proxy" \
    "sigs.k8s.io/multicluster-runtime@v0.22.4-beta.1.0.20260121175728-cda86980358b=$mcr@cda86980358b" \
    "github.com/envoyproxy/gateway@v1.5.1=$envoy@v1.5.1" \
    "go.miloapis.com/milo@v0.7.4=$milo@v0.7.4" \
    "go.miloapis.com/dns-operator@v0.5.1=$dnsop@v0.5.1")
  export GOPROXY="file://$proxy,${GOPROXY:-https://proxy.golang.org}"
  local dir=$work/nso pkgs=./internal/controller/
  rm -rf "$dir"
  git clone -q "$repo" "$dir"
  cd "$dir"
  git checkout -q a4ae50b
  pins >"$work/nso.pins.before"
  scenario() {
    cp "$root/hack/seeds/nso_seed_test.go.txt" internal/controller/zz_ssagen_seed_test.go
    SEED_GATEWAY_API_DIR=$(go list -m -f '{{.Dir}}' sigs.k8s.io/gateway-api) \
      SEED_ENVOY_GATEWAY_DIR=$(go list -m -f '{{.Dir}}' github.com/envoyproxy/gateway) \
      KUBEBUILDER_ASSETS=$assets go test -count=1 -v -tags ssagenseed -run '^TestSSAgenSeed$' $pkgs 2>&1 | grep -E '^SEED|^(FAIL|ok|---)' || true
    rm -f internal/controller/zz_ssagen_seed_test.go
  }

  say "network-services-operator a4ae50b: before"
  health $pkgs
  scenario

  say "ssagen generate (its API with --ensure; the kinds its controllers write with --ensure-kinds)"
  use_runtime
  "$bin" generate -v --ensure --ensure-kinds sigs.k8s.io/gateway-api/apis/v1.Gateway,sigs.k8s.io/gateway-api/apis/v1.HTTPRoute,sigs.k8s.io/gateway-api/apis/v1.GatewayClass,github.com/envoyproxy/gateway/api/v1alpha1.HTTPRouteFilter,github.com/envoyproxy/gateway/api/v1alpha1.EnvoyPatchPolicy,go.miloapis.com/dns-operator/api/v1alpha1.DNSRecordSet,k8s.io/api/discovery/v1.EndpointSlice,k8s.io/api/coordination/v1.Lease --output-dir internal/ssa ./api/... 2>&1 | { grep -v '^wrote ' || true; }
  echo "files: $(find internal/ssa -name '*.go' | wc -l)"
  go build ./internal/ssa/... && go vet ./internal/ssa/... && echo "helpers build and vet"

  say "ssagen vet -fix (each fix checked: build, go vet, the package's tests)"
  vetfix $pkgs

  git diff --stat -- internal/controller

  say "network-services-operator: after"
  health $pkgs
  pins_kept nso
  scenario
  cd "$root"
}

agentsandbox() {
  local repo
  repo=$(clone AGENT_SANDBOX_REPO agent-sandbox kubernetes-sigs/agent-sandbox 51814a80)
  local dir=$work/agent-sandbox pkgs=./controllers/
  rm -rf "$dir"
  git clone -q "$repo" "$dir"
  cd "$dir"
  git checkout -q 51814a80
  pins >"$work/agent-sandbox.pins.before"
  scenario() {
    cp "$root/hack/seeds/agentsandbox_seed_test.go.txt" controllers/zz_ssagen_seed_test.go
    KUBEBUILDER_ASSETS=$assets go test -count=1 -v -tags ssagenseed -run '^TestSSAgenSeed$' $pkgs 2>&1 | grep -E '^SEED|^(FAIL|ok|---)' || true
    rm -f controllers/zz_ssagen_seed_test.go
  }

  say "agent-sandbox 51814a80: before"
  health $pkgs
  scenario

  say "ssagen generate (its API with --ensure; Pod and Service with --ensure-kinds)"
  use_runtime
  "$bin" generate -v --ensure --ensure-kinds k8s.io/api/core/v1.Pod,k8s.io/api/core/v1.Service --output-dir internal/ssa ./api/... 2>&1 | { grep -v '^wrote ' || true; }
  go build ./internal/ssa/... && go vet ./internal/ssa/... && echo "helpers build and vet"

  say "ssagen vet -fix (each fix checked: build, go vet, the package's tests)"
  vetfix $pkgs

  echo "not gofmt'd after -fix: $(gofmt -l controllers | wc -l) files"
  git diff --stat -- controllers

  say "agent-sandbox: after"
  health $pkgs
  pins_kept agent-sandbox
  scenario
  cd "$root"
}

# unseen NAME REPOVAR REPOSITORY COMMIT MODULEDIR PKGS ENSUREKINDS API: an
# operator the rules were never written on — its build, go vet and unit
# tests before; ssagen generate (its API with --ensure when API is not
# empty, the built-in kinds it writes); ssagen vet -fix; build, vet,
# tests and pins after. Its envtest suites need KUBEBUILDER_ASSETS, which
# this leaves unset: they fail before and after alike, and -fix judges by
# the unit tests.
unseen() {
  local name=$1 var=$2 repository=$3 commit=$4 moddir=$5 pkgs=$6 kinds=$7 api=$8
  local repo
  repo=$(clone "$var" "$name" "$repository" "$commit")
  local dir=$work/$name
  rm -rf "$dir"
  git clone -q "$repo" "$dir" 2>/dev/null || true
  git -C "$dir" checkout -q "$commit" -- "$moddir"
  cd "$dir/$moddir"
  pins >"$work/$name.pins.before"
  local ps
  read -r -a ps <<<"$pkgs"

  say "$name ${commit}: before"
  health "${ps[@]}"

  say "ssagen generate"
  use_runtime
  if [ -n "$api" ]; then
    local apis
    read -r -a apis <<<"$api"
    "$bin" generate --ensure --ensure-kinds "$kinds" --output-dir internal/ssa "${apis[@]}" 2>&1 | { grep -v '^wrote ' || true; }
  else
    "$bin" generate --ensure-kinds "$kinds" --output-dir internal/ssa 2>&1 | { grep -v '^wrote ' || true; }
  fi
  go mod tidy >/dev/null 2>&1
  go build ./internal/ssa/... && go vet ./internal/ssa/... && echo "helpers build and vet"

  say "ssagen vet -fix (each fix checked: build, go vet, the package's tests)"
  vetfix "${ps[@]}"

  say "$name: after"
  health "${ps[@]}"
  pins_kept "$name"
  cd "$root"
}

capsule() {
  unseen capsule CAPSULE_REPO projectcapsule/capsule 65a4e19e . "./internal/controllers/... ./pkg/..." \
    k8s.io/api/rbac/v1.ClusterRole,k8s.io/api/rbac/v1.ClusterRoleBinding,k8s.io/api/rbac/v1.RoleBinding,k8s.io/api/core/v1.LimitRange,k8s.io/api/core/v1.Namespace,k8s.io/api/core/v1.PersistentVolume,k8s.io/api/core/v1.Pod,k8s.io/api/core/v1.ResourceQuota,k8s.io/api/core/v1.Secret,k8s.io/api/networking/v1.NetworkPolicy,k8s.io/api/admissionregistration/v1.MutatingWebhookConfiguration,k8s.io/api/admissionregistration/v1.ValidatingWebhookConfiguration \
    ./api/...
}

kuberay() {
  unseen kuberay KUBERAY_REPO ray-project/kuberay feeaf72fa ray-operator "./controllers/... ./pkg/..." \
    k8s.io/api/networking/v1.NetworkPolicy,k8s.io/api/core/v1.Service,k8s.io/api/core/v1.Pod,k8s.io/api/batch/v1.Job \
    ./apis/ray/...
}

fluent() {
  unseen fluent FLUENT_REPO fluent/fluent-operator 00625bfd . "./controllers/..." \
    k8s.io/api/rbac/v1.ClusterRole,k8s.io/api/rbac/v1.ClusterRoleBinding,k8s.io/api/rbac/v1.Role,k8s.io/api/rbac/v1.RoleBinding,k8s.io/api/core/v1.ServiceAccount,k8s.io/api/core/v1.Service,k8s.io/api/core/v1.Secret,k8s.io/api/apps/v1.StatefulSet,k8s.io/api/apps/v1.DaemonSet \
    ./apis/fluentbit/...
}

rabbitmq() {
  unseen rabbitmq RABBITMQ_REPO rabbitmq/cluster-operator 06cda8e8 . "./internal/controller/..." \
    k8s.io/api/apps/v1.StatefulSet,k8s.io/api/core/v1.Service,k8s.io/api/core/v1.ConfigMap,k8s.io/api/core/v1.Secret,k8s.io/api/core/v1.ServiceAccount,k8s.io/api/rbac/v1.Role,k8s.io/api/rbac/v1.RoleBinding \
    ./api/...
}

solr() {
  unseen solr SOLR_REPO apache/solr-operator ed5c5c7d . "./controllers/..." \
    k8s.io/api/apps/v1.StatefulSet,k8s.io/api/apps/v1.Deployment,k8s.io/api/core/v1.Service,k8s.io/api/core/v1.ConfigMap,k8s.io/api/networking/v1.Ingress,k8s.io/api/policy/v1.PodDisruptionBudget \
    ./api/...
}

case "${1:-all}" in
kargo) kargo ;;
nso) nso ;;
agent-sandbox) agentsandbox ;;
capsule) capsule ;;
kuberay) kuberay ;;
fluent) fluent ;;
rabbitmq) rabbitmq ;;
solr) solr ;;
all) kargo; agentsandbox; nso; capsule; kuberay; fluent; rabbitmq; solr ;;
*) echo "usage: hack/seeds.sh [kargo|nso|agent-sandbox|capsule|kuberay|fluent|rabbitmq|solr|all]" >&2; exit 2 ;;
esac
