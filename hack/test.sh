#!/usr/bin/env bash
# Runs go test with JSON output through hack/testreport, which prints what
# go test would and writes .cache/test-report/<name>/times.md (wall time
# per package and per top-level test over a minute) and tests.txt (every
# test that ran, with its result).
#
#   hack/test.sh <name> <module folder> [go test flags and packages]
set -euo pipefail
name="$1"; mod="$2"; shift 2
root="$(cd "$(dirname "$0")/.." && pwd)"
report="$root/.cache/test-report/$name"
bin="$root/.cache/tools/testreport"
mkdir -p "$report" "$(dirname "$bin")"
(cd "$root" && go build -o "$bin" ./hack/testreport)
cd "$root/$mod"
set +e
go test -json "$@" 2>&1 | "$bin" -dir "$report" -title "$name"
rc=("${PIPESTATUS[@]}")
set -e
if [ "${rc[0]}" != 0 ] || [ "${rc[1]}" != 0 ]; then exit 1; fi
