# narlab — the two commands of the README are `make run` (set up, then the
# main job) and `make test` (set up, then every test). Both work on a fresh
# machine with Go and python3: scripts/setup.sh installs everything else.

GO ?= go
export NARLAB_ROOT := $(CURDIR)

.PHONY: setup gpu run test vet bench bench-dataset bench-train parity-train time-notebooks ui-screenshot clean

setup:
	scripts/setup.sh

## GPU: the CUDA PJRT plugin and NVIDIA's libraries from PyPI into .venv
## (narlab then picks XLA CUDA on a machine with an NVIDIA GPU).
gpu: setup
	scripts/setup-gpu.sh

## The main job: see `narlab demo -h`.
run: setup
	bin/narlab demo

## Every test (CI runs this through .ci/run).
## NARLAB_REQUIRE_XLA=1: the model tests must run on XLA CPU too (the
## plugin is installed by setup), not quietly narrow to the pure-Go backend.
test: setup vet
	NARLAB_REQUIRE_XLA=1 CGO_ENABLED=1 $(GO) test -timeout 45m ./...

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt would change:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

## Benchmarks (figures recorded in the README).
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./lib/...

## CLRS-30 generation, narlab beside the reference samplers (needs ../shared/tools/clrs-ref).
bench-dataset: setup
	scripts/bench_dataset.sh

## Training steps/s, narlab beside the JAX reference, in one run (figures in the README).
bench-train: setup
	scripts/bench_train.sh

## Learning parity: narlab and the JAX reference trained alike, val/test and
## the gap per row (table in data/parity/parity.md; settings from the
## environment, see the script's header; results in docs/results.md).
parity-train: setup
	scripts/parity_train.sh

## Cold and warm execution time of every notebook (figures recorded in the README).
time-notebooks: setup
	scripts/time_notebooks.sh

ui-screenshot: setup
	scripts/ui-screenshot.sh

clean:
	rm -rf bin data
