#!/usr/bin/env bash
# Builds controller-gen at the version Kubebuilder scaffolds (the oracle of
# generator/oracle_test.go: what a CRD looks like and whether it is legal)
# from the Go module proxy, in a module of its own so that its k8s.io
# versions stay out of ssagen's, and caches it in .cache/tools. Prints the
# binary's path. Re-running with the binary present is a no-op.
set -euo pipefail

CONTROLLER_TOOLS_VERSION=${CONTROLLER_TOOLS_VERSION:-v0.23.0}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${ORACLE_BIN:-$root/.cache/tools/controller-gen-$CONTROLLER_TOOLS_VERSION}
if [ ! -x "$out" ]; then
  echo "building controller-gen $CONTROLLER_TOOLS_VERSION (about a minute)..." >&2
  mkdir -p "$(dirname "$out")"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (
    cd "$work"
    go mod init ssagen.local/oracle-build >/dev/null 2>&1
    GOFLAGS=-mod=mod go get "sigs.k8s.io/controller-tools/cmd/controller-gen@$CONTROLLER_TOOLS_VERSION" >/dev/null 2>&1
    GOFLAGS=-mod=mod go build -trimpath -o "$out.tmp" sigs.k8s.io/controller-tools/cmd/controller-gen
    mv "$out.tmp" "$out"
  )
fi
echo "$out"
