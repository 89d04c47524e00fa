#!/usr/bin/env bash
# The multicluster-runtime integration (ensure/mcensure) at the pins of
# the multicluster-runtime release it is built on: v0.23.1 requires
# controller-runtime v0.23.1 and k8s.io v0.35.0. make test runs the module
# at its own go.mod (controller-runtime v0.25); make test-matrix runs this,
# on a copy of ensure/ in .cache/mcfloor, so that the integration is
# tested at the controller-runtime release multicluster-runtime matches.
set -euo pipefail
export GOTOOLCHAIN=local
root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/.cache/mcfloor
rm -rf "$work"
mkdir -p "$work"
cp -r "$root/ensure" "$work/" # mcensure's go.mod replaces the runtime with ../
cd "$work/ensure/mcensure"
go mod edit -require=sigs.k8s.io/controller-runtime@v0.23.1 -require=k8s.io/api@v0.35.0 \
  -require=k8s.io/apimachinery@v0.35.0 -require=k8s.io/client-go@v0.35.0 -require=k8s.io/apiextensions-apiserver@v0.35.0
go mod tidy
grep -E '^\s*(sigs.k8s.io/(controller|multicluster)-runtime|k8s.io/(api|client-go)) ' go.mod
cd "$root"
bash hack/test.sh mcensure-floor .cache/mcfloor/ensure/mcensure -count=1 ./...
