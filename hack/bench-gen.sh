#!/usr/bin/env bash
# Times ssagen against the two generators it replaces, on the same API
# package, and prints wall time, peak RSS and the ratios as a Markdown table.
#
#  1. ssagen generate (apply configurations with Extract).
#  2. applyconfiguration-gen with Extract: openapi-gen over the package and
#     every package it references, a models-schema program that dumps the
#     OpenAPI definitions, then applyconfiguration-gen --openapi-schema —
#     the pipeline kube_codegen.sh and Kubernetes' own update-codegen use.
#  3. controller-gen applyconfiguration (it cannot produce Extract at all).
#
# The package is examples/api/v1alpha1, copied into a scratch module with
# the markers the other tools require (+genclient, +k8s:openapi-gen,
# +kubebuilder:ac:generate). Each pipeline runs RUNS times (default 5) after
# one warm-up run; the median is reported. Build caches are warm for all
# three, so the figures compare generators, not compilers.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-5}
work=${WORK:-$root/.cache/bench-gen}
bin=$work/bin
rm -rf "$work/mod" && mkdir -p "$bin" "$work/mod"
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time; }

codegen_version=$(cd "$root" && go list -m -f '{{.Version}}' k8s.io/code-generator)
openapi_version=$(cd "$root" && go list -m -f '{{.Version}}' k8s.io/kube-openapi)
tools_version=$(cd "$root" && go list -m -f '{{.Version}}' sigs.k8s.io/controller-tools)

# Tools, built once from the module proxy at the versions ssagen pins.
if [ ! -x "$bin/applyconfiguration-gen" ] || [ ! -x "$bin/openapi-gen" ] || [ ! -x "$bin/controller-gen" ]; then
  tools=$(mktemp -d)
  (
    cd "$tools"
    go mod init bench.local/tools >/dev/null 2>&1
    go get -tool "k8s.io/code-generator/cmd/applyconfiguration-gen@$codegen_version" \
      "k8s.io/kube-openapi/cmd/openapi-gen@$openapi_version" \
      "sigs.k8s.io/controller-tools/cmd/controller-gen@$tools_version" >/dev/null 2>&1
    go build -o "$bin/" k8s.io/code-generator/cmd/applyconfiguration-gen k8s.io/kube-openapi/cmd/openapi-gen sigs.k8s.io/controller-tools/cmd/controller-gen
  )
  rm -rf "$tools"
fi
(cd "$root" && go build -o "$bin/ssagen" ./cmd/ssagen)

# The scratch module: the example API with the other tools' markers.
mod=$work/mod
sed 's#^module .*#module bench.local/mod#' "$root/go.mod" | grep -v '^tool ' >"$mod/go.mod"
cp "$root/go.sum" "$mod/go.sum"
mkdir -p "$mod/api/v1alpha1"
for f in "$root"/examples/api/v1alpha1/*.go; do
  sed -e 's#^// +kubebuilder:object:root=true$#// +kubebuilder:object:root=true\n// +genclient#' \
      -e 's#^// +kubebuilder:resource:scope=Cluster$#// +kubebuilder:resource:scope=Cluster\n// +genclient:nonNamespaced#' \
      -e 's#^// +groupName=#// +k8s:openapi-gen=true\n// +kubebuilder:ac:generate=true\n// +groupName=#' "$f" >"$mod/api/v1alpha1/$(basename "$f")"
done
# List kinds carry object:root too but must not get +genclient.
sed -i -z 's#// +kubebuilder:object:root=true\n// +genclient\n\n// \([A-Za-z]*\)List #// +kubebuilder:object:root=true\n\n// \1List #g' "$mod"/api/v1alpha1/*_types.go
printf '' >"$mod/header.txt"
mkdir -p "$mod/hack/models-schema"
cat >"$mod/hack/models-schema/main.go" <<'GO'
// Command models-schema prints the OpenAPI v2 definitions openapi-gen
// generated, in the form applyconfiguration-gen --openapi-schema reads
// (as Kubernetes' own pkg/generated/openapi/cmd/models-schema does).
package main

import (
	"encoding/json"
	"os"
	"strings"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"bench.local/mod/openapi"
)

func main() {
	friendly := func(name string) string {
		parts := strings.Split(name, "/")
		if len(parts) > 0 && strings.Contains(parts[0], ".") {
			host := strings.Split(parts[0], ".")
			for i, j := 0, len(host)-1; i < j; i, j = i+1, j-1 {
				host[i], host[j] = host[j], host[i]
			}
			parts[0] = strings.Join(host, ".")
		}
		return strings.Join(parts, ".")
	}
	ref := func(name string) spec.Ref { return spec.MustCreateRef("#/definitions/" + friendly(name)) }
	defs := openapi.GetOpenAPIDefinitions(common.ReferenceCallback(ref))
	out := map[string]spec.Schema{}
	for k, v := range defs {
		out[friendly(k)] = v.Schema
	}
	json.NewEncoder(os.Stdout).Encode(&spec.Swagger{SwaggerProps: spec.SwaggerProps{Swagger: "2.0", Definitions: out,
		Info: &spec.Info{InfoProps: spec.InfoProps{Title: "models", Version: "v0"}}}})
}
GO
cd "$mod"
go mod tidy >/dev/null 2>&1 || true

refs="k8s.io/apimachinery/pkg/apis/meta/v1 k8s.io/apimachinery/pkg/runtime k8s.io/apimachinery/pkg/version k8s.io/apimachinery/pkg/api/resource k8s.io/apimachinery/pkg/util/intstr k8s.io/api/core/v1 k8s.io/api/rbac/v1"
externals="k8s.io/api/core/v1.PodTemplateSpec:k8s.io/client-go/applyconfigurations/core/v1,k8s.io/api/core/v1.LocalObjectReference:k8s.io/client-go/applyconfigurations/core/v1,k8s.io/api/core/v1.ObjectReference:k8s.io/client-go/applyconfigurations/core/v1,k8s.io/api/rbac/v1.PolicyRule:k8s.io/client-go/applyconfigurations/rbac/v1"

run_ssagen() {
  "$bin/ssagen" generate --output-dir out/ssagen --output-pkg bench.local/mod/out/ssagen ./api/...
  grep -q "func ExtractProject(" out/ssagen/api/v1alpha1/project.go
}
run_acgen() {
  "$bin/openapi-gen" --output-dir openapi --output-pkg bench.local/mod/openapi --output-file zz_generated.openapi.go \
    --go-header-file header.txt --report-filename /dev/null ./api/v1alpha1 $refs
  go run ./hack/models-schema >out/openapi.json
  "$bin/applyconfiguration-gen" --output-dir out/acgen --output-pkg bench.local/mod/out/acgen --go-header-file header.txt \
    --openapi-schema out/openapi.json --external-applyconfigurations "$externals" ./api/v1alpha1
  grep -q "func ExtractProject(" out/acgen/api/v1alpha1/project.go
}
run_controllergen() {
  # controller-gen writes next to the types, whatever output rule it is given.
  rm -rf api/v1alpha1/applyconfiguration
  "$bin/controller-gen" applyconfiguration paths=./api/...
  test -f api/v1alpha1/applyconfiguration/utils.go
  # It does not compile against the kubebuilder scaffold (SchemeGroupVersion,
  # controller-tools #1193), and ./api/... would then fail the next tool.
  rm -rf api/v1alpha1/applyconfiguration
}

export bin refs externals
export -f run_ssagen run_acgen run_controllergen

# measure FUNCTION prints "wall_seconds peak_kib", medians of RUNS runs.
# GNU time reports the peak RSS of the largest process of the pipeline's
# tree (go list and go run children included).
measure() {
  local fn=$1 walls=() rsss=() stats
  rm -rf out openapi && mkdir -p out && bash -c "set -e; $fn" >/dev/null 2>&1 || true # warm-up
  stats=$(mktemp)
  for _ in $(seq "$RUNS"); do
    rm -rf out openapi && mkdir -p out
    if ! /usr/bin/time -f '%e %M' -o "$stats" bash -c "set -e; $fn" >"$work/$fn.log" 2>&1; then
      echo "$fn failed; see $work/$fn.log" >&2
      exit 1
    fi
    read -r w r <"$stats"
    walls+=("$w")
    rsss+=("$r")
  done
  rm -f "$stats"
  echo "$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p") $(printf '%s\n' "${rsss[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")"
}

read -r s_wall s_rss < <(measure run_ssagen)
read -r a_wall a_rss < <(measure run_acgen)
read -r c_wall c_rss < <(measure run_controllergen)

# cold FUNCTION: one run with an empty build cache ("wall_seconds peak_kib").
cold() {
  local fn=$1 stats cache
  stats=$(mktemp) cache=$(mktemp -d)
  rm -rf out openapi && mkdir -p out
  GOCACHE=$cache /usr/bin/time -f '%e %M' -o "$stats" bash -c "set -e; $fn" >"$work/$fn.cold.log" 2>&1 || { echo "$fn failed cold; see $work/$fn.cold.log" >&2; exit 1; }
  cat "$stats"
  rm -rf "$stats" "$cache"
}
read -r sc_wall sc_rss < <(cold run_ssagen)
read -r ac_wall ac_rss < <(cold run_acgen)
read -r cc_wall cc_rss < <(cold run_controllergen)

ratio() { echo "scale=2; $1 / $2" | bc; }
cat <<MD
| generator | Extract | wall (median of $RUNS) | peak RSS | ssagen's share of wall | ssagen's share of RSS |
|---|---|---|---|---|---|
| ssagen generate | yes | ${s_wall}s | $((s_rss / 1024)) MiB | 1.00 | 1.00 |
| openapi-gen + models-schema + applyconfiguration-gen ($codegen_version) | yes | ${a_wall}s | $((a_rss / 1024)) MiB | $(ratio "$s_wall" "$a_wall") | $(ratio "$s_rss" "$a_rss") |
| controller-gen applyconfiguration ($tools_version) | no | ${c_wall}s | $((c_rss / 1024)) MiB | $(ratio "$s_wall" "$c_wall") | $(ratio "$s_rss" "$c_rss") |

With an empty build cache (GOCACHE), one run each:

| generator | wall | peak RSS |
|---|---|---|
| ssagen generate | ${sc_wall}s | $((sc_rss / 1024)) MiB |
| openapi-gen + models-schema + applyconfiguration-gen | ${ac_wall}s | $((ac_rss / 1024)) MiB |
| controller-gen applyconfiguration | ${cc_wall}s | $((cc_rss / 1024)) MiB |
MD
