#!/usr/bin/env bash
# hack/vet-heldout.sh: ssagen vet's precision and recall on operators kept
# apart for measuring (issue 55). Each operator is pinned at a commit, and
# its findings were judged before any rule changed for it:
# hack/vet-heldout/<name>.txt lists each finding (file:line:col, category,
# true or false, why) and each site vet missed ("miss" lines). This run
# compares today's findings with those verdicts and prints, per operator
# and in all, precision = true / reported and recall = true / (true +
# missed); a finding nobody judged fails the run: judge it (docs/vet.md,
# "Held out"), then add it. New operators enter the list judged before any
# rule changes, and that first figure is the one docs/vet.md quotes. Not
# part of `make test`: it needs the operators' code. `make vet-heldout`.
#
# Clones, as hack/clone.sh finds them (a variable, or .cache/vet-heldout/src):
#   FLUENT_REPO    github.com/fluent/fluent-operator     00625bfd
#   RABBITMQ_REPO  github.com/rabbitmq/cluster-operator  06cda8e8
#   SOLR_REPO      github.com/apache/solr-operator       ed5c5c7d
#   NFD_REPO       github.com/kubernetes-sigs/node-feature-discovery 76e6cc8cc
#   ZALANDO_REPO   github.com/zalando/postgres-operator  a7aaad0a
#   KAMAJI_REPO    github.com/clastix/kamaji              ddbabd8
set -euo pipefail
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
root=$(cd "$(dirname "$0")/.." && pwd)
work=${VET_HELDOUT_WORK:-$root/.cache/vet-heldout}
verdicts=$root/hack/vet-heldout
mkdir -p "$work"
bin=$work/ssagen
(cd "$root" && go build -o "$bin" ./cmd/ssagen)

# The held-out list: name, variable, repository, commit, packages.
heldout=(
  "fluent|FLUENT_REPO|fluent/fluent-operator|00625bfd|./controllers/..."
  "rabbitmq|RABBITMQ_REPO|rabbitmq/cluster-operator|06cda8e8|./internal/..."
  "solr|SOLR_REPO|apache/solr-operator|ed5c5c7d|./controllers/..."
  "nfd|NFD_REPO|kubernetes-sigs/node-feature-discovery|76e6cc8cc|./pkg/..."
  "zalando|ZALANDO_REPO|zalando/postgres-operator|a7aaad0a|./pkg/..."
  "kamaji|KAMAJI_REPO|clastix/kamaji|ddbabd8|./controllers/... ./internal/..."
)

# shellcheck source=hack/clone.sh
source "$root/hack/clone.sh"

# score NAME FINDINGS: tp fp fn unjudged, from NAME's verdicts.
score() {
  awk -F'\t' -v name="$1" '
    FILENAME == ARGV[1] { found[$1 "\t" $2] = 1; next }
    /^#/ || NF == 0 { next }
    $1 == "miss" { fn++; next }
    { judged[$1 "\t" $2] = 1
      if (!(($1 "\t" $2) in found)) { if ($3 == "true") fn++; next }
      if ($3 == "true") tp++; else fp++ }
    END {
      for (k in found) if (!(k in judged)) { print "vet-heldout: " name ": " k " is not judged" > "/dev/stderr"; un++ }
      printf "%d %d %d %d\n", tp, fp, fn, un }' "$2" "$verdicts/$1.txt"
}

pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.0f%%", 100 * a / b }'; }

failed=0 TP=0 FP=0 FN=0
printf '%-10s %9s %5s %5s %6s %10s %7s\n' operator reported true false missed precision recall
for entry in "${heldout[@]}"; do
  IFS='|' read -r name var repository commit pkgs <<<"$entry"
  repo=$(clone "$var" "$name" "$repository" "$commit")
  dir=$work/$name
  rm -rf "$dir"
  git clone -q "$repo" "$dir"
  git -C "$dir" checkout -q "$commit"
  read -r -a ps <<<"$pkgs"
  out=$(cd "$dir" && "$bin" vet -json "${ps[@]}" 2>&1) || [ $? = 3 ] || { echo "vet-heldout: ssagen vet failed on $name:" >&2; echo "$out" >&2; exit 1; }
  jq -r '.[] | "\(.pos)\t\(.category)"' <<<"$out" | sed "s#^$dir/##" | sort >"$work/$name.found"
  read -r tp fp fn un < <(score "$name" "$work/$name.found")
  [ "$un" = 0 ] || failed=1
  printf '%-10s %9d %5d %5d %6d %10s %7s\n' "$name" "$((tp + fp + un))" "$tp" "$fp" "$fn" "$(pct "$tp" $((tp + fp)))" "$(pct "$tp" $((tp + fn)))"
  TP=$((TP + tp)) FP=$((FP + fp)) FN=$((FN + fn))
done
printf '%-10s %9d %5d %5d %6d %10s %7s\n' all "$((TP + FP))" "$TP" "$FP" "$FN" "$(pct "$TP" $((TP + FP)))" "$(pct "$TP" $((TP + FN)))"
exit "$failed"
