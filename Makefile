# ssagen's developer entry points. `make help` lists them.
SHELL := bash
GO ?= go

.PHONY: help seeds vet-heldout vet-sample generate verify test test-matrix test-unit envtest-assets oracle-tools kubebuilder lint fuzz bench bench-micro bench-removal bench-report bench-smoke bench-gen example soak

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

generate: ## regenerate examples/generated and the conformance packages
	bash hack/update-codegen.sh

verify: ## fail when any generated file is stale
	bash hack/update-codegen.sh --verify

envtest-assets: ## build kube-apiserver and etcd for envtest into .cache/envtest (once)
	bash hack/envtest-assets.sh

lint: ## go vet and gofmt (ssagen, the runtime module ensure/, its multicluster-runtime module ensure/mcensure, the bench module)
	$(GO) vet ./...
	cd ensure && $(GO) vet ./...
	cd ensure/mcensure && $(GO) vet ./...
	cd bench && $(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

test-unit: ## tests that need no API server
	$(GO) test ./...
	cd ensure && $(GO) test ./...
	cd ensure/mcensure && $(GO) test ./...

kubebuilder: ## build kubebuilder v4.16.0, which the plugin ssagen.io/v1-alpha is tested with, into .cache/tools (once)
	bash hack/kubebuilder.sh

oracle-tools: ## build controller-gen v0.23 (the differential tests' oracle) into .cache/tools (once)
	bash hack/oracle-tools.sh

# The ssagen binary every package's scratch modules run, built once a run.
SSAGEN_BIN = $(CURDIR)/.cache/tools/ssagen
TEST_ENV = KUBEBUILDER_ASSETS="$$(bash hack/envtest-assets.sh | tail -n1)" SSAGEN_REQUIRE_ENVTEST=1 SSAGEN_BIN=$(SSAGEN_BIN) SSAGEN_ORACLE="$$(bash hack/oracle-tools.sh | tail -n1)"
# kubebuilder is needed only by the matrix's tests (TestInitAndCreateAPI, TestEditProject).
MATRIX_ENV = $(TEST_ENV) SSAGEN_KUBEBUILDER="$$(bash hack/kubebuilder.sh | tail -n1)"
# The version matrix's tests: make test runs the floor cell of the scratch operator and the real APIs at ssagen's own k8s.io; make test-matrix the rest.
MATRIX_TESTS = ^(TestOperatorKeepsItsVersions|TestSuitesAcrossVersions|TestGolangciLintPlugin|TestEditProject|TestRealAPIs)$$
# Slow checks that need not run on every change: make test skips them (go test -skip), make test-matrix runs them. docs/testing.md has the budget they keep make test within.
SLOW_TESTS = ^(TestSoak|TestSourceLoaderSameOutput|TestInitAndCreateAPI)$$

test: ## what every change needs, within its time budget (10 min warm, 30 cold; docs/testing.md): lint, verify, the tests on a real kube-apiserver (controller-gen the oracle, real public APIs), the matrix's floor cell; ends with where the time went (.cache/test-report) and the budget check
	bash hack/test-budget.sh start
	MAKE="$(MAKE)" bash hack/test-prepare.sh
	$(TEST_ENV) SLOW_TESTS='$(SLOW_TESTS)' bash hack/test-all.sh
	bash hack/test-budget.sh check

test-matrix: envtest-assets kubebuilder oracle-tools ## the version matrix and the slow checks .ci/run runs after make test: scratch operators at controller-runtime v0.23–v0.25, ssagen's suites at v0.22–v0.25, the golangci-lint plugin in two releases, kubebuilder edit end to end, the real APIs at their own k8s.io pins (v0.29–v0.36), the multicluster-runtime integration at multicluster-runtime v0.23.1's own pins (controller-runtime v0.23.1, k8s.io v0.35); and what make test leaves out: the soak's fixed seeds (with and without a cache that strips managedFields), the runtime's envtest suite with such a cache, the two loaders compared on every golden, kubebuilder init + create api end to end, the benchmark smoke run
	$(GO) build -o $(SSAGEN_BIN) ./cmd/ssagen
	$(MATRIX_ENV) MATRIX_TESTS='$(MATRIX_TESTS)' SLOW_TESTS='$(SLOW_TESTS)' bash hack/test-matrix.sh

fuzz: envtest-assets oracle-tools ## run each fuzz target for a short while; TestOracleRandom checks random APIs against controller-gen and kube-apiserver for 3 minutes
	KUBEBUILDER_ASSETS="$$(bash hack/envtest-assets.sh | tail -n1)" SSAGEN_ORACLE="$$(bash hack/oracle-tools.sh | tail -n1)" \
		SSAGEN_ORACLE_FOR=3m SSAGEN_ORACLE_SEED=$$(date +%s) $(GO) test ./generator -run='^TestOracleRandom$$' -count=1 -v -timeout=10m | grep -E 'random APIs|FAIL|ok'
	$(GO) test ./generator/load -run='^$$' -fuzz=FuzzMarkers -fuzztime=30s
	$(GO) test ./generator/load -run='^$$' -fuzz=FuzzParseExternal -fuzztime=15s
	$(GO) test ./generator/load -run='^$$' -fuzz=FuzzTypeWalker -fuzztime=30s

bench: envtest-assets ## run the write-pattern benchmarks on envtest (about 25 min) and the fleet scale test of ensure/mcensure, and write docs/benchmarks.md and its charts
	@set -eo pipefail; assets="$$(bash hack/envtest-assets.sh | tail -n1)"; mkdir -p .cache/bench; \
	KUBEBUILDER_ASSETS="$$assets" $(GO) test -run '^$$' -bench 'BenchmarkApply' -count 6 ./internal/ensuretest | tee .cache/bench/micro.txt; \
	(cd ensure && $(GO) test -run '^$$' -bench 'BenchmarkSkipCacheMemory' -count 6 .) | tee -a .cache/bench/micro.txt; \
	(cd ensure/mcensure && SSAGEN_FLEET_OUT=$(CURDIR)/.cache/bench/fleet.json $(GO) test -count=1 -run '^TestScale$$' .); \
	cd bench; $(GO) tool benchstat -filter '.name:Apply' -col '/call@(raw-client-apply ensure-apply ensure-cache-hit)' ../.cache/bench/micro.txt | tee ../.cache/bench/benchstat.txt; \
	KUBEBUILDER_ASSETS="$$assets" $(GO) run ./cmd/benchreport -micro ../.cache/bench/micro.txt -benchstat ../.cache/bench/benchstat.txt -fleet ../.cache/bench/fleet.json -out ../docs/benchmarks.md -charts ../docs/benchmarks

bench-micro: envtest-assets ## measure only the per-call micro-benchmarks again (about 3 min) and render docs/benchmarks.md with the patterns `make bench` saved
	@set -eo pipefail; assets="$$(bash hack/envtest-assets.sh | tail -n1)"; test -f .cache/bench/results.json || { echo "run make bench first" >&2; exit 1; }; \
	KUBEBUILDER_ASSETS="$$assets" $(GO) test -run '^$$' -bench 'BenchmarkApply' -count 6 ./internal/ensuretest | tee .cache/bench/micro.txt; \
	(cd ensure && $(GO) test -run '^$$' -bench 'BenchmarkSkipCacheMemory' -count 6 .) | tee -a .cache/bench/micro.txt; \
	cd bench; $(GO) tool benchstat -filter '.name:Apply' -col '/call@(raw-client-apply ensure-apply ensure-cache-hit)' ../.cache/bench/micro.txt | tee ../.cache/bench/benchstat.txt; \
	$(GO) run ./cmd/benchreport -from ../.cache/bench/results.json -micro ../.cache/bench/micro.txt -benchstat ../.cache/bench/benchstat.txt -out ../docs/benchmarks.md -charts ../docs/benchmarks

bench-removal: envtest-assets ## measure only the removal scenario again (prune, finalize, the hand-written loop) and render docs/benchmarks.md with the rest `make bench` saved
	@set -eo pipefail; test -f .cache/bench/results.json || { echo "run make bench first" >&2; exit 1; }; \
	cd bench && KUBEBUILDER_ASSETS="$$(bash ../hack/envtest-assets.sh | tail -n1)" $(GO) run ./cmd/benchreport -from ../.cache/bench/results.json -removal -save ../.cache/bench/results.json -out ../docs/benchmarks.md -charts ../docs/benchmarks

bench-report: envtest-assets ## render docs/benchmarks.md again from the results `make bench` saved in .cache/bench (no measuring)
	cd bench && KUBEBUILDER_ASSETS="$$(bash ../hack/envtest-assets.sh | tail -n1)" $(GO) run ./cmd/benchreport -from ../.cache/bench/results.json -out ../docs/benchmarks.md -charts ../docs/benchmarks

bench-smoke: envtest-assets ## the small benchmark run make test-matrix makes: every pattern and scenario, report into a temp folder, counts asserted
	KUBEBUILDER_ASSETS="$$(bash hack/envtest-assets.sh | tail -n1)" SSAGEN_REQUIRE_ENVTEST=1 bash hack/test.sh bench bench -count=1 -timeout=20m ./...

bench-gen: ## time ssagen against applyconfiguration-gen (+openapi-gen) and controller-gen, warm and cold, on the example, Gateway API and k8s.io/api (about 20 min); writes docs/generator-benchmark.md and its chart
	bash hack/bench-gen.sh

seeds: envtest-assets ## the seed operators fixed in their own code, before and after on envtest (docs/seeds.md; needs their clones, see hack/seeds.sh)
	bash hack/seeds.sh all

vet-heldout: ## ssagen vet's precision and recall on operators kept apart for measuring, against their judged verdicts (hack/vet-heldout/; needs their clones, see hack/vet-heldout.sh)
	bash hack/vet-heldout.sh

vet-sample: ## ssagen vet on the operators docs/vet.md measured it on, compared site by site with hack/vet-sample/ (needs their clones, see hack/vet-sample.sh)
	bash hack/vet-sample.sh

soak: envtest-assets ## the seeded chaos soak on envtest (internal/soak): the short fixed seeds, or SOAK_FOR=60m with SOAK_SEED=n (default: the time) and SOAK_OPS=n; the last line counts operations, checks, violations, requests and changes
	@set -o pipefail; log=$$(mktemp); \
	KUBEBUILDER_ASSETS="$$(bash hack/envtest-assets.sh | tail -n1)" SSAGEN_REQUIRE_ENVTEST=1 SOAK_FOR="$(SOAK_FOR)" SOAK_SEED="$(SOAK_SEED)" SOAK_OPS="$(SOAK_OPS)" \
		$(GO) test -count=1 -v -run '^TestSoak$$' -timeout="$${SOAK_TIMEOUT:-4h}" ./internal/soak 2>&1 | tee "$$log" | grep -v '^soak: '; rc=$${PIPESTATUS[0]}; \
	grep '^soak: ' "$$log" | tail -n1; rm -f "$$log"; exit $$rc

example: envtest-assets ## run the example operator (examples/controller) on a local kube-apiserver and print what it costs
	KUBEBUILDER_ASSETS="$$(bash hack/envtest-assets.sh | tail -n1)" $(GO) run ./examples/controller/run
