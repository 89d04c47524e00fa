#!/usr/bin/env bash
# make test's first step: lint and verify in the foreground while the tools
# the tests need (kube-apiserver and etcd for envtest, controller-gen) are
# built beside them, once, into .cache (kubebuilder, which only make
# test-matrix's tests need, is built by that target). On a fresh clone
# these builds are the longest single steps, and a link or a module
# download in one overlaps the compiles of the others. Each tool's output
# is printed after lint and verify, and any failure fails make test.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=.cache/test-report/prepare
mkdir -p "$logs"
bash hack/envtest-assets.sh > "$logs/envtest-assets.log" 2>&1 &
envtest=$!
bash hack/oracle-tools.sh > "$logs/tools.log" 2>&1 &
tools=$!
rc=0
${MAKE:-make} --no-print-directory lint verify || rc=1
wait "$envtest" || { echo "hack/envtest-assets.sh failed:"; rc=1; }
cat "$logs/envtest-assets.log"
wait "$tools" || { echo "hack/oracle-tools.sh failed:"; rc=1; }
cat "$logs/tools.log"
exit "$rc"
