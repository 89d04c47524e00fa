#!/usr/bin/env bash
# Builds the kube-apiserver and etcd binaries that envtest needs from the Go
# module proxy (setup-envtest cannot download here) and caches them in
# $ASSETS (default: .cache/envtest/<k8s-version>). Prints the folder to use
# as KUBEBUILDER_ASSETS. Re-running with both binaries present is a no-op.
set -euo pipefail

K8S_VERSION=${K8S_VERSION:-v1.36.3}
STAGING_VERSION=${STAGING_VERSION:-v0.${K8S_VERSION#v1.}}
ETCD_VERSION=${ETCD_VERSION:-v3.6.7}
root=$(cd "$(dirname "$0")/.." && pwd)
ASSETS=${ASSETS:-$root/.cache/envtest/$K8S_VERSION}
mkdir -p "$ASSETS"

build_module() { # out module@version pkg replaces ldflags
  local out=$1 req=$2 pkg=$3 replaces=$4 ldflags=${5:-}
  local work
  work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  (
    cd "$work"
    go mod init ssagen.local/envtest-build >/dev/null 2>&1
    go mod edit -go=1.26 -require="$req"
    if [ -n "$replaces" ]; then
      # shellcheck disable=SC2086
      go mod edit $replaces
    fi
    printf 'package main\nimport _ "%s"\n' "$pkg" >tools.go
    sed -i '1i //go:build tools' tools.go
    GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || true
    CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags="-s $ldflags" -o "$out.tmp" "$pkg"
    mv "$out.tmp" "$out"
  )
}

if [ ! -x "$ASSETS/kube-apiserver" ]; then
  echo "building kube-apiserver $K8S_VERSION (about 4 minutes)..." >&2
  gomod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
  reps=""
  for m in $(sed -n 's#^[[:space:]]*\(k8s.io/[^ ]*\) => ./staging/.*#\1#p' "$gomod"); do
    reps="$reps -replace=$m=$m@$STAGING_VERSION"
  done
  build_module "$ASSETS/kube-apiserver" "k8s.io/kubernetes@$K8S_VERSION" k8s.io/kubernetes/cmd/kube-apiserver "$reps" \
    "-X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(echo "$K8S_VERSION" | cut -d. -f2)"
fi

if [ ! -x "$ASSETS/etcd" ]; then
  echo "building etcd $ETCD_VERSION (about 40 seconds)..." >&2
  build_module "$ASSETS/etcd" "go.etcd.io/etcd/server/v3@$ETCD_VERSION" go.etcd.io/etcd/server/v3 ""
fi

echo "$ASSETS"
