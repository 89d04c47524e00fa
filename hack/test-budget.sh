#!/usr/bin/env bash
# make test's time budget (docs/testing.md): `start` records the run's
# start, whether the Go build cache is warm and whether make test ran in
# this clone before; `check` compares the run with the budget (hack/testreport budget) and
# fails when it is over — TEST_BUDGET=report prints the same and passes.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
state="$root/.cache/test-report/budget.state"
# A cache holding this many files is warm: a make test leaves about 230,000;
# make generate on an empty cache, about 9,000.
warm_files=100000
case "${1:-}" in
start)
  # The reports of earlier runs would be counted as this run's.
  mkdir -p "$(dirname "$state")"
  find "$(dirname "$state")" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
  files=$( (find "$(go env GOCACHE)" -type f 2>/dev/null || true) | head -n "$warm_files" | wc -l)
  cache=cold
  if [ "$files" -ge "$warm_files" ]; then cache=warm; fi
  # A clone's first run builds the tools into .cache and compiles the
  # clone's own packages in a new folder: the warm budget is a second run's.
  clone=first
  if [ -e "$root/.cache/tools/make-test-ran" ]; then clone=again; fi
  printf 'start=%s\ncache=%s\ncache_files=%s\nclone=%s\n' "$(date +%s)" "$cache" "$files" "$clone" >"$state"
  ;;
check)
  bin="$root/.cache/tools/testreport"
  (cd "$root" && go build -o "$bin" ./hack/testreport)
  cd "$root"
  rc=0
  "$bin" budget -reports .cache/test-report -state "$state" -baseline hack/test-budget.tsv || rc=$?
  touch "$root/.cache/tools/make-test-ran"
  if [ "$rc" = 1 ] && [ "${TEST_BUDGET:-}" = report ]; then
    echo "TEST_BUDGET=report: over the budget, not failing"
    rc=0
  fi
  exit "$rc"
  ;;
*)
  echo "usage: hack/test-budget.sh start|check" >&2
  exit 2
  ;;
esac
