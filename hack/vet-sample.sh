#!/usr/bin/env bash
# hack/vet-sample.sh: ssagen vet on the operators docs/vet.md measured its
# precision and recall on, at the commits of its tables, compared site by
# site with what was recorded and judged (hack/vet-sample/<name>.txt): a
# rule change that adds, drops or moves a finding there shows here. Not
# part of `make test`: it needs the operators' code. `make vet-sample`.
#
# Usage: hack/vet-sample.sh [-update] [NAME ...]   (default: all)
#   -update rewrites the recorded files from this run: read every changed
#   line and judge it (docs/vet.md says how) before committing them.
#
# The module proxy refuses most of these modules, so each comes from a git
# clone of its public repository: the one a variable names, or else one
# cloned from GitHub into .cache/vet-sample/src/<name> on its first run:
#   KARGO_REPO          github.com/akuity/kargo                    1c764767
#   AGENT_SANDBOX_REPO  github.com/kubernetes-sigs/agent-sandbox   2fd412d5
#   LWS_REPO            github.com/kubernetes-sigs/lws              060ab4da
#   JOBSET_REPO         github.com/kubernetes-sigs/jobset           08dfbdfd
#   MARIADB_REPO        github.com/mariadb-operator/mariadb-operator 8970edf8
#   CNPG_REPO           github.com/cloudnative-pg/cloudnative-pg    a95a534d
#   CAPSULE_REPO        github.com/projectcapsule/capsule           65a4e19e
#   KUBERAY_REPO        github.com/ray-project/kuberay              feeaf72fa (ray-operator)
# and the held-out sample of 2026-11-27 (docs/vet.md, "Held out again"),
# recorded as judged after that day's rules:
#   SPARK_REPO          github.com/kubeflow/spark-operator          38082f33
#   KEDA_REPO           github.com/kedacore/keda                    8b4f083c
#   PROMOP_REPO         github.com/prometheus-operator/prometheus-operator 6adcebc5
#   VELERO_REPO         github.com/vmware-tanzu/velero              d30d389b
#   CASS_REPO           github.com/k8ssandra/cass-operator          d5697290
# The recorded files name each finding as file:line:col category; the
# categories' judgments are docs/vet.md's.
set -euo pipefail
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
root=$(cd "$(dirname "$0")/.." && pwd)
work=${VET_SAMPLE_WORK:-$root/.cache/vet-sample}
expect=$root/hack/vet-sample
update=
if [ "${1:-}" = "-update" ]; then
  update=1
  shift
fi
mkdir -p "$work"
bin=$work/ssagen
(cd "$root" && go build -o "$bin" ./cmd/ssagen)

# The sample: name, variable, repository, commit, module folder, packages.
sample=(
  "kargo|KARGO_REPO|akuity/kargo|1c764767|.|./pkg/controller/..."
  "agent-sandbox|AGENT_SANDBOX_REPO|kubernetes-sigs/agent-sandbox|2fd412d5|.|./controllers/... ./extensions/controllers/... ./internal/..."
  "lws|LWS_REPO|kubernetes-sigs/lws|060ab4da|.|./pkg/controllers/... ./pkg/utils/... ./pkg/schedulerprovider/..."
  "jobset|JOBSET_REPO|kubernetes-sigs/jobset|08dfbdfd|.|./pkg/controllers/..."
  "mariadb|MARIADB_REPO|mariadb-operator/mariadb-operator|8970edf8|.|./internal/controller/... ./pkg/controller/... ./pkg/galera/... ./pkg/replication/..."
  "cnpg|CNPG_REPO|cloudnative-pg/cloudnative-pg|a95a534d|.|./internal/controller/... ./internal/management/controller/... ./pkg/reconciler/... ./pkg/resources/status/... ./pkg/certs/..."
  "capsule|CAPSULE_REPO|projectcapsule/capsule|65a4e19e|.|./internal/controllers/... ./pkg/..."
  "kuberay|KUBERAY_REPO|ray-project/kuberay|feeaf72fa|ray-operator|./controllers/... ./pkg/..."
  "spark|SPARK_REPO|kubeflow/spark-operator|38082f33|.|./internal/... ./pkg/..."
  "keda|KEDA_REPO|kedacore/keda|8b4f083c|.|./controllers/... ./pkg/..."
  "promop|PROMOP_REPO|prometheus-operator/prometheus-operator|6adcebc5|.|./pkg/..."
  "velero|VELERO_REPO|vmware-tanzu/velero|d30d389b|.|./pkg/controller/... ./pkg/exposer/... ./pkg/util/kube/... ./pkg/repository/..."
  "cass|CASS_REPO|k8ssandra/cass-operator|d5697290|.|./internal/controllers/... ./pkg/..."
)

# shellcheck source=hack/clone.sh
source "$root/hack/clone.sh"

# findings DIR PKGS: ssagen vet's findings in DIR as file:line:col
# category, sorted (exit 3, there are findings, is not an error).
findings() {
  local dir=$1
  shift
  local out rc=0
  out=$(cd "$dir" && "$bin" vet -json "$@" 2>&1) || rc=$?
  if [ "$rc" != 0 ] && [ "$rc" != 3 ]; then
    echo "vet-sample: ssagen vet failed in $dir (exit $rc):" >&2
    echo "$out" >&2
    return 1
  fi
  jq -r '.[] | "\(.pos) \(.category)"' <<<"$out" | sed "s#^$dir/##" | sort
}

want=("$@")
fail() { echo "vet-sample: $*" >&2; exit 1; }
command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq >/dev/null; } || fail "jq is needed"
failed=0
for entry in "${sample[@]}"; do
  IFS='|' read -r name var repository commit module pkgs <<<"$entry"
  if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " =~ " $name " ]]; then
    continue
  fi
  repo=$(clone "$var" "$name" "$repository" "$commit")
  dir=$work/$name
  rm -rf "$dir" && mkdir -p "$dir"
  # The module's folder at the commit, nothing else of the repository; a
  # clone missing some objects (a partial one) gives its Go sources.
  if ! git -C "$repo" archive "$commit" -- "$module" 2>/dev/null | tar -x -C "$dir" 2>/dev/null; then
    rm -rf "$dir" && mkdir -p "$dir"
    echo "vet-sample: $repo cannot give all of $module at $commit; its Go sources only" >&2
    git -C "$repo" ls-tree -r -z --name-only "$commit" -- "$module" | grep -zE '(^|/)(go\.mod|go\.sum|[^/]*\.go)$' |
      xargs -0 sh -c 'r=$0 c=$1 d=$2; shift 2; git -C "$r" archive "$c" -- "$@" | tar -x -C "$d"' "$repo" "$commit" "$dir"
  fi
  # shellcheck disable=SC2086
  got=$(findings "$dir/$module" $pkgs)
  if [ -n "$update" ]; then
    echo "$got" >"$expect/$name.txt"
    echo "$name: $(grep -c . <<<"$got") findings recorded"
    continue
  fi
  if diff -u "$expect/$name.txt" <(echo "$got") >"$work/$name.diff"; then
    echo "$name: $(grep -c . <<<"$got") findings, as recorded"
  else
    echo "$name: differs from hack/vet-sample/$name.txt:"
    tail -n +3 "$work/$name.diff" | grep '^[-+]' | sed 's/^/  /'
    failed=1
  fi
done
exit $failed
