#!/usr/bin/env bash
# Builds kubebuilder, the version the plugin ssagen.io/v1-alpha is tested
# with (kubebuilder/kubebuilder_test.go), from the Go module proxy and
# caches it in .cache/tools. Prints the binary's path. Re-running with the
# binary present is a no-op.
set -euo pipefail

KUBEBUILDER_VERSION=${KUBEBUILDER_VERSION:-v4.16.0}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/.cache/tools/kubebuilder-$KUBEBUILDER_VERSION
if [ ! -x "$out" ]; then
  echo "building kubebuilder $KUBEBUILDER_VERSION (about 20 seconds)..." >&2
  mkdir -p "$(dirname "$out")"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  GOBIN="$work" GOFLAGS=-mod=mod go install -trimpath "sigs.k8s.io/kubebuilder/v4@$KUBEBUILDER_VERSION"
  mv "$work/kubebuilder" "$out"
fi
echo "$out"
