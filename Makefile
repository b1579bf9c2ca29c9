# narlab — the two commands of the README are `make run` (set up, then the
# main job) and `make test` (set up, then every test). Both work on a fresh
# machine with Go and python3: scripts/setup.sh installs everything else.

GO ?= go
export NARLAB_ROOT := $(CURDIR)

.PHONY: setup run test test-short vet bench bench-dataset time-notebooks ui-screenshot clean

setup:
	scripts/setup.sh

## The main job: see `narlab demo -h`.
run: setup
	bin/narlab demo

## Every test (CI runs this through .ci/run).
test: setup vet
	$(GO) test -timeout 45m ./...

## The fast tier: no servers, no Jupyter, no long runs (tests behind
## testing.Short() say what they skip with -v). No set-up needed.
test-short:
	$(GO) test -short -timeout 10m ./...

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt would change:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

## Benchmarks (figures recorded in the README).
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./lib/...

## CLRS-30 generation, narlab beside the reference samplers (needs ../shared/tools/clrs-ref).
bench-dataset: setup
	scripts/bench_dataset.sh

## Cold and warm execution time of every notebook (figures recorded in the README).
time-notebooks: setup
	scripts/time_notebooks.sh

ui-screenshot: setup
	scripts/ui-screenshot.sh

clean:
	rm -rf bin data
