#!/usr/bin/env bash
# make test-matrix: the version matrix's cells and the slow checks make
# test leaves out (SLOW_TESTS, the benchmark smoke run). The checks that
# spend their time waiting on API servers (the benchmark smoke run, the
# soak and the runtime's envtest suite with a cache that strips
# managedFields) run beside the ones that
# compile; their output is printed when all are done. Fails if any fails.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .cache/test-report
waiting_log=.cache/test-report/matrix-waiting.log
(
  rc=0
  SSAGEN_REQUIRE_ENVTEST=1 bash hack/test.sh bench bench -count=1 -timeout=20m ./... || rc=1
  SOAK_STRIP=1 bash hack/test.sh soak-strip . -count=1 -timeout=20m -run '^TestSoak$' ./internal/soak || rc=1
  ENSURE_STRIP=1 SSAGEN_REQUIRE_ENVTEST=1 bash hack/test.sh ensure-strip . -count=1 -timeout=20m -parallel 4 ./internal/ensuretest || rc=1
  exit "$rc"
) > "$waiting_log" 2>&1 &
waiting=$!
rc=0
SSAGEN_MATRIX=1 bash hack/test.sh matrix . -count=1 -timeout=40m -run "$MATRIX_TESTS" ./internal/adoption ./internal/realapis ./kubebuilder || rc=1
bash hack/mcensure-floor.sh || rc=1
bash hack/test.sh slow . -count=1 -timeout=25m -run "$SLOW_TESTS" ./internal/soak ./generator ./kubebuilder || rc=1
wait "$waiting" || rc=1
echo
echo "== the benchmark smoke run, the soak and the envtest suite with a stripping cache (beside the rest) =="
cat "$waiting_log"
exit "$rc"
