#!/usr/bin/env bash
# make test's tests: ssagen's packages, and beside them the runtime
# module's and its multicluster-runtime module's (ensure/, ensure/mcensure),
# whose tests spend much of their time waiting on API servers, not on the
# cores. The tests in SLOW_TESTS are skipped here: make test-matrix runs
# them (hack/test-matrix.sh). The modules' output is printed when all are
# done. Fails if any fails.
set -uo pipefail
cd "$(dirname "$0")/.."
go build -o "$SSAGEN_BIN" ./cmd/ssagen || exit 1
mkdir -p .cache/test-report
runtime_log=.cache/test-report/runtime.log
(bash hack/test.sh ensure ensure -count=1 ./... && bash hack/test.sh mcensure ensure/mcensure -count=1 ./...) > "$runtime_log" 2>&1 &
runtime=$!
bash hack/test.sh ssagen . -count=1 -timeout=25m -skip "$SLOW_TESTS" ./...
rc=$?
wait "$runtime"
runtime_rc=$?
echo
echo "== ensure and ensure/mcensure (the runtime's modules, beside the packages) =="
cat "$runtime_log"
if [ "$rc" != 0 ] || [ "$runtime_rc" != 0 ]; then exit 1; fi
