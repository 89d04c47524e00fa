#!/usr/bin/env bash
# Times ssagen against the two generators it replaces, on the same API
# packages, with a warm and an empty build cache, and writes
# docs/generator-benchmark.md (tables and a growth chart).
#
#  1. ssagen generate (apply configurations with Extract).
#  2. applyconfiguration-gen with Extract: openapi-gen over the package and
#     every package it references, a models-schema program that dumps the
#     OpenAPI definitions, then applyconfiguration-gen --openapi-schema —
#     the pipeline kube_codegen.sh and Kubernetes' own update-codegen use.
#  3. controller-gen applyconfiguration (it cannot produce Extract at all).
#
# Inputs, each copied into a scratch module with the markers the other
# tools require (+genclient, +k8s:openapi-gen, +kubebuilder:ac:generate):
#  - example: examples/api/v1alpha1;
#  - gateway: sigs.k8s.io/gateway-api v1.6.3 apis/v1;
#  - kube: all of k8s.io/api (51 group/versions), and its first 1 and 10
#    for the growth curve.
# Warm: the median of RUNS runs (default 5; 3 for kube) after one warm-up
# run. Cold: the median of 3 runs, each with an empty GOCACHE. QUICK=1 measures the example
# only (a smoke run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-5}
work=${WORK:-$root/.cache/bench-gen}
bin=$work/bin
rm -rf "$work/mod" && mkdir -p "$bin" "$work/mod"
out_md=${OUT:-$root/docs/generator-benchmark.md}
QUICK=${QUICK:-}
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

# The scratch module: the inputs with the other tools' markers.
mod=$work/mod
sed 's#^module .*#module bench.local/mod#' "$root/go.mod" | grep -v '^tool ' >"$mod/go.mod"
cp "$root/go.sum" "$mod/go.sum"
# example: examples/api/v1alpha1.
mkdir -p "$mod/api/v1alpha1"
for f in "$root"/examples/api/v1alpha1/*.go; do
  sed -e 's#^// +kubebuilder:object:root=true$#// +kubebuilder:object:root=true\n// +genclient#' \
      -e 's#^// +kubebuilder:resource:scope=Cluster$#// +kubebuilder:resource:scope=Cluster\n// +genclient:nonNamespaced#' \
      -e 's#^// +groupName=#// +k8s:openapi-gen=true\n// +kubebuilder:ac:generate=true\n// +groupName=#' "$f" >"$mod/api/v1alpha1/$(basename "$f")"
done
# List kinds carry object:root too but must not get +genclient.
sed -i -z 's#// +kubebuilder:object:root=true\n// +genclient\n\n// \([A-Za-z]*\)List #// +kubebuilder:object:root=true\n\n// \1List #g' "$mod"/api/v1alpha1/*_types.go
# gateway: Gateway API's apis/v1 (it has +genclient and +k8s:openapi-gen).
gwdir=$(cd "$root" && GOFLAGS=-mod=mod go mod download -json sigs.k8s.io/gateway-api@v1.6.3 | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
mkdir -p "$mod/gw/apis/v1"
for f in "$gwdir"/apis/v1/*.go; do
  case $f in *_test.go) continue ;; esac
  sed -e 's#^// +groupName=#// +kubebuilder:ac:generate=true\n// +groupName=#' "$f" >"$mod/gw/apis/v1/$(basename "$f")"
done
chmod -R u+w "$mod/gw"
# kube: every group/version of k8s.io/api client-go has apply
# configurations for, its imports of itself rewritten.
kapidir=$(cd "$root" && go list -m -f '{{.Dir}}' k8s.io/api)
kube_gvs=$(cd "$root" && go list k8s.io/client-go/applyconfigurations/... |
  sed -n 's#^k8s.io/client-go/applyconfigurations/\([a-z0-9]*/v[a-z0-9]*\)$#\1#p' | grep -v '^meta/')
for gv in $kube_gvs; do
  mkdir -p "$mod/kube/$gv"
  for f in "$kapidir/$gv"/*.go; do
    case $f in *_test.go) continue ;; esac
    sed -e 's#"k8s.io/api/#"bench.local/mod/kube/#' \
        -e 's#^// +groupName=#// +kubebuilder:ac:generate=true\n// +groupName=#' "$f" >"$mod/kube/$gv/$(basename "$f")"
  done
done
chmod -R u+w "$mod/kube"
kube_all=$(for gv in $kube_gvs; do echo "./kube/$gv"; done)
kube_1=$(echo "$kube_all" | grep '^./kube/core/v1$')
kube_10=$(echo "$kube_all" | grep -v '^./kube/core/v1$' | head -9; echo "$kube_1")
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
# The openapi package must exist for go mod tidy; openapi-gen rewrites it.
mkdir -p "$mod/openapi"
printf 'package openapi\n\nimport "k8s.io/kube-openapi/pkg/common"\n\nfunc GetOpenAPIDefinitions(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition { return nil }\n' >"$mod/openapi/zz_generated.openapi.go"
cd "$mod"
go mod tidy >/dev/null 2>&1 || true

refs="k8s.io/apimachinery/pkg/apis/meta/v1 k8s.io/apimachinery/pkg/runtime k8s.io/apimachinery/pkg/version k8s.io/apimachinery/pkg/api/resource k8s.io/apimachinery/pkg/util/intstr"
ext_core="k8s.io/api/core/v1.PodTemplateSpec:k8s.io/client-go/applyconfigurations/core/v1,k8s.io/api/core/v1.LocalObjectReference:k8s.io/client-go/applyconfigurations/core/v1,k8s.io/api/core/v1.ObjectReference:k8s.io/client-go/applyconfigurations/core/v1,k8s.io/api/rbac/v1.PolicyRule:k8s.io/client-go/applyconfigurations/rbac/v1"

# The input of the run functions: IN (packages), REFS (what openapi-gen
# needs besides), EXT (applyconfiguration-gen's external mappings).
run_ssagen() {
  # shellcheck disable=SC2086
  "$bin/ssagen" generate --output-dir out/ssagen --output-pkg bench.local/mod/out/ssagen $IN
  test -n "$(find out/ssagen -name '*.go' | head -1)"
}
run_acgen() {
  # shellcheck disable=SC2086
  "$bin/openapi-gen" --output-dir openapi --output-pkg bench.local/mod/openapi --output-file zz_generated.openapi.go \
    --go-header-file header.txt --report-filename /dev/null $IN $REFS
  go run ./hack/models-schema >out/openapi.json
  # shellcheck disable=SC2086
  "$bin/applyconfiguration-gen" --output-dir out/acgen --output-pkg bench.local/mod/out/acgen --go-header-file header.txt \
    --openapi-schema out/openapi.json ${EXT:+--external-applyconfigurations "$EXT"} $IN
  test -n "$(find out/acgen -name '*.go' | head -1)"
}
run_controllergen() {
  # controller-gen writes next to the types, whatever output rule it is
  # given; its output is removed after each run (it does not compile
  # against the kubebuilder scaffold, controller-tools #1193, and would
  # break the next tool's load).
  local paths=""
  for p in $IN; do paths="$paths paths=$p"; done
  # shellcheck disable=SC2086
  "$bin/controller-gen" applyconfiguration $paths
  local n
  n=$(find $IN -path '*/applyconfiguration/*' -name '*.go' | wc -l)
  find $IN -type d -name applyconfiguration -prune -exec rm -rf {} +
  test "$n" -gt 0
}
export bin IN REFS EXT
export -f run_ssagen run_acgen run_controllergen

clean() { rm -rf out && mkdir -p out && printf 'package openapi\n\nimport "k8s.io/kube-openapi/pkg/common"\n\nfunc GetOpenAPIDefinitions(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition { return nil }\n' >openapi/zz_generated.openapi.go; }

# measure FUNCTION RUNS prints "wall_seconds peak_kib", medians of RUNS
# runs after a warm-up. GNU time reports the peak RSS of the largest
# process of the pipeline's tree (go list and go run children included).
measure() {
  local fn=$1 runs=$2 walls=() rsss=() stats
  clean && bash -c "set -e; $fn" >"$work/$fn.log" 2>&1 || { echo "$fn failed on $IN; see $work/$fn.log" >&2; exit 1; }
  stats=$(mktemp)
  for _ in $(seq "$runs"); do
    clean
    /usr/bin/time -f '%e %M' -o "$stats" bash -c "set -e; $fn" >"$work/$fn.log" 2>&1 || { echo "$fn failed; see $work/$fn.log" >&2; exit 1; }
    read -r w r <"$stats"
    walls+=("$w")
    rsss+=("$r")
  done
  rm -f "$stats"
  echo "$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p") $(printf '%s\n' "${rsss[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")"
}
# cold FUNCTION: the median of COLD_RUNS runs (default 3), each with an
# empty build cache ("wall_seconds peak_kib").
COLD_RUNS=${COLD_RUNS:-3}
cold() {
  local fn=$1 stats cache walls=() rsss=()
  stats=$(mktemp)
  for _ in $(seq "$COLD_RUNS"); do
    cache=$(mktemp -d)
    clean
    GOCACHE=$cache /usr/bin/time -f '%e %M' -o "$stats" bash -c "set -e; $fn" >"$work/$fn.cold.log" 2>&1 || { echo "$fn failed cold; see $work/$fn.cold.log" >&2; exit 1; }
    read -r w r <"$stats"
    walls+=("$w")
    rsss+=("$r")
    chmod -R u+w "$cache" 2>/dev/null; rm -rf "$cache"
  done
  rm -f "$stats"
  echo "$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(( (COLD_RUNS + 1) / 2 ))p") $(printf '%s\n' "${rsss[@]}" | sort -n | sed -n "$(( (COLD_RUNS + 1) / 2 ))p")"
}

# rows INPUT RUNS TOOLS...: one TSV row per tool and cache state:
# input, tool, packages, cache, wall, peak KiB.
results=$work/results.tsv
: >"$results"
rows() {
  local input=$1 runs=$2 n
  shift 2
  n=$(echo $IN | wc -w)
  for tool in "$@"; do
    read -r w r < <(measure "run_$tool" "$runs")
    printf '%s\t%s\t%s\twarm\t%s\t%s\n' "$input" "$tool" "$n" "$w" "$r" >>"$results"
    read -r w r < <(cold "run_$tool")
    printf '%s\t%s\t%s\tcold\t%s\t%s\n' "$input" "$tool" "$n" "$w" "$r" >>"$results"
    echo "$input ($n packages) $tool: $(tail -n2 "$results" | cut -f4-6 | tr '\t\n' '  ')" >&2
  done
}

IN="./api/v1alpha1" REFS="$refs k8s.io/api/core/v1 k8s.io/api/rbac/v1" EXT="$ext_core" rows example "$RUNS" ssagen acgen controllergen
if [ -z "$QUICK" ]; then
  IN="./gw/apis/v1" REFS="$refs" EXT="" rows gateway "$RUNS" ssagen acgen controllergen
  IN="$kube_1" REFS="$refs" EXT="" rows kube-1 3 ssagen controllergen
  IN=$(echo $kube_10) REFS="$refs" EXT="" rows kube-10 3 ssagen controllergen
  IN=$(echo $kube_all) REFS="$refs" EXT="" rows kube 3 ssagen acgen controllergen
fi

cd "$root"
go run ./hack/bench-gen-report -results "$results" -out "$out_md" -chart "${out_md%.md}.svg" \
  -machine "$(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version | cut -d' ' -f3-)" \
  -versions "code-generator $codegen_version, kube-openapi $openapi_version, controller-tools $tools_version, gateway-api v1.6.3, k8s.io/api $(go list -m -f '{{.Version}}' k8s.io/api)"
echo "wrote $out_md" >&2
