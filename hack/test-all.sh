#!/usr/bin/env bash
# make test's tests: the runtime module's, then ssagen's packages and the
# benchmark smoke run side by side. The benchmark's scenarios spend their
# time waiting on an API server, not on the cores, so it runs beside the
# package tests rather than after them; its output is printed when both
# are done. Fails if either fails.
set -uo pipefail
cd "$(dirname "$0")/.."
bash hack/test.sh ensure ensure -count=1 ./... || exit 1
bash hack/test.sh mcensure ensure/mcensure -count=1 ./... || exit 1
go build -o "$SSAGEN_BIN" ./cmd/ssagen || exit 1
mkdir -p .cache/test-report
bench_log=.cache/test-report/bench.log
bash hack/test.sh bench bench -count=1 -timeout=20m ./... > "$bench_log" 2>&1 &
bench=$!
bash hack/test.sh ssagen . -count=1 -timeout=25m ./...
rc=$?
wait "$bench"
bench_rc=$?
echo
echo "== bench (the benchmark smoke run, beside the packages) =="
cat "$bench_log"
if [ "$rc" != 0 ] || [ "$bench_rc" != 0 ]; then exit 1; fi
