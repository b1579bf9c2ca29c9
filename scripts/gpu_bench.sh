#!/usr/bin/env bash
# The GPU part of the step-loop benchmark (issue 31): narlab beside the JAX
# reference on one NVIDIA card, in a few minutes, on a machine that has
# Python with jax and its CUDA PJRT plugin but no Go and no network (the
# device machine of this workplace; any CUDA box with `pip install jax[cuda13]`
# too).
#
#   scripts/gpu_bench.sh prepare     here (Go, network; `make gpu-prepare`):
#                                    builds the cgo test binary of lib/nn
#                                    (stripped: 21 MB, so that .gpu/ and the
#                                    repository stay under the device call's
#                                    64 MiB), copies the reference harness
#                                    and downloads the pure-Python wheels the
#                                    reference needs beyond jax (dm-haiku,
#                                    jmp, tabulate) into .gpu/
#   bash .gpu/run.sh                 there: finds the CUDA plugin of the
#                                    Python at hand and runs the rows
#                                    (CLRS-30 protocol rows: narlab's
#                                    BenchmarkProtocol beside the
#                                    reference's ref_protocol.py; sparse
#                                    rows: BenchmarkSparseVsDense; predict
#                                    rows: BenchmarkPredict beside
#                                    ref_predict.py), each
#                                    in a process of its own under a time
#                                    limit, with the GPU memory each
#                                    process took; writes
#                                    $OUT/gpu_bench.jsonl, gpu.txt, log.txt
#   scripts/gpu_bench_table.py F...  here: the Markdown tables of one or
#                                    more runs' gpu_bench.jsonl; with
#                                    --append --commit C --machine M, their
#                                    rows typed into results/*.jsonl and the
#                                    pages rendered (docs/performance.md)
#
# With the device tool: `run(command="bash .gpu/run.sh", carry=[".gpu"],
# timeout_s=540)` (the default rows end within 460 s); .gpu/ is listed in
# .git/info/exclude by prepare. `make gpu-check` runs the same script here
# on the CPU (CPU=1, two steps a row) so that it is known to run. ROWS,
# STEPS (steady-state steps, default 20), ROW_TIMEOUT, DEADLINE and
# HARD_DEADLINE are read there (defaults and meaning: the head of
# scripts/gpu_bench_run.sh). The first lease (H100, 2026-11-26) got
# through the rows that docs/performance.md "On a GPU" records in two
# calls of 514 and 155 s.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
case "${1:-}" in
prepare)
  out="$root/.gpu"
  rm -rf "$out" && mkdir -p "$out/wheels"
  exclude=$(git rev-parse --git-path info/exclude) # a worktree's .git is a file
  mkdir -p "$(dirname "$exclude")"
  grep -qx '/.gpu/' "$exclude" 2>/dev/null || echo '/.gpu/' >> "$exclude"
  CGO_ENABLED=1 go test -c -ldflags="-s -w" -o "$out/nn.test" ./lib/nn
  ref=$(scripts/ref-harness.sh)
  mkdir -p "$out/clrs-ref"
  cp -r "$ref/clrs" "$ref/jaxstubs" "$out/clrs-ref/"
  cp scripts/ref_protocol.py scripts/ref_predict.py scripts/ref_steady.py "$out/"
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$out/wheels" \
    dm-haiku==0.0.17 jmp==0.0.4 tabulate==0.10.0
  cp scripts/gpu_bench_run.sh "$out/run.sh"
  du -sh "$out" >&2
  echo "prepared $out: run it there with: bash .gpu/run.sh (carry .gpu)" >&2
  ;;
*)
  echo "usage: scripts/gpu_bench.sh prepare   (then bash .gpu/run.sh on the GPU machine)" >&2
  exit 2
  ;;
esac
