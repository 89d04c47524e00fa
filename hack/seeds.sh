#!/usr/bin/env bash
# hack/seeds.sh: the seed operators fixed in their own code, as their
# maintainers would do it (docs/seeds.md). For each operator: its build,
# go vet and unit tests before; ssagen generate into its module and its
# layout; ssagen vet -fix; the sites -fix declines rewritten by hand (a
# script of ours, explained in docs/seeds.md); its build, vet and tests
# after, its pins unchanged; and its seed scenario on envtest before and
# after, counted. Not part of `make test`: it needs the operators' code.
#
# Usage: hack/seeds.sh [kargo]
#
# The Go module proxy refuses some of these modules, so the script takes
# a git clone of each operator, fetched as a public repository:
#   KARGO_REPO  a clone of github.com/akuity/kargo holding commit ac76edede
#               (default /work/.mirror/akuity+kargo/repo, where the
#               session's fetch puts it)
# Work happens in SEEDS_WORK (default .cache/seeds), wiped per operator.
set -euo pipefail
export GOTOOLCHAIN=local
root=$(cd "$(dirname "$0")/.." && pwd)
work=${SEEDS_WORK:-$root/.cache/seeds}
mkdir -p "$work"
assets=$(bash "$root/hack/envtest-assets.sh" | tail -n1)
bin=$work/ssagen
(cd "$root" && go build -o "$bin" ./cmd/ssagen)

say() { printf '\n== %s\n' "$*"; }

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

kargo() {
  local repo=${KARGO_REPO:-/work/.mirror/akuity+kargo/repo}
  if ! git -C "$repo" cat-file -e ac76edede 2>/dev/null; then
    echo "seeds: no Kargo clone with commit ac76edede at $repo: clone https://github.com/akuity/kargo and set KARGO_REPO" >&2
    exit 1
  fi
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
  go build ./... && echo "build: ok"
  go vet $pkgs && echo "go vet: ok"
  tests $pkgs
  scenario

  say "ssagen generate (the helpers of the five kinds the seed names, client-go's apply configurations)"
  go mod edit -require=github.com/ssagen/ssagen/ensure@v0.0.0-00010101000000-000000000000 -replace=github.com/ssagen/ssagen/ensure="$root/ensure"
  "$bin" generate -v --ensure-kinds k8s.io/api/rbac/v1.Role,k8s.io/api/rbac/v1.RoleBinding,k8s.io/api/rbac/v1.ClusterRole,k8s.io/api/rbac/v1.ClusterRoleBinding,k8s.io/api/core/v1.ServiceAccount --output-dir pkg/ssa
  go mod tidy >/dev/null 2>&1
  go build ./pkg/ssa/... && echo "helpers build"

  say "ssagen vet -fix (each fix checked: build, go vet, the package's tests)"
  "$bin" vet -fix $pkgs 2>&1 | sed -n '/^ssagen vet -fix/,$p' || true

  say "the sites -fix declined, rewritten by hand (hack/seeds/kargo-seams.py; docs/seeds.md)"
  python3 "$root/hack/seeds/kargo-seams.py"
  gofmt -w pkg/controller/management
  git diff --stat -- pkg/controller

  say "ssagen vet -fix again, the tests of the two direct sites moved"
  "$bin" vet -fix $pkgs 2>&1 | sed -n '/^ssagen vet -fix/,$p' || true

  say "Kargo: after"
  go build ./... && echo "build: ok"
  go vet $pkgs && echo "go vet: ok"
  tests $pkgs
  pins >"$work/kargo.pins.after"
  if diff "$work/kargo.pins.before" "$work/kargo.pins.after" >/dev/null; then echo "pins: unchanged"; else echo "pins: CHANGED"; diff "$work/kargo.pins.before" "$work/kargo.pins.after" || true; fi
  scenario
  git diff --stat -- pkg/controller | tail -1
  cd "$root"
}

case "${1:-kargo}" in
kargo) kargo ;;
*) echo "usage: hack/seeds.sh [kargo]" >&2; exit 2 ;;
esac
