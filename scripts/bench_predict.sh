#!/usr/bin/env bash
# Evaluation alone, narlab beside the JAX reference in one run on this
# machine: one batch of 32 of the CLRS-30 test split (n=64) predicted at the
# paper's size after a first, compiling, prediction (BenchmarkPredict in
# lib/nn; scripts/ref_predict.py). Prints a Markdown table: seconds per
# batch and milliseconds per step, both sides.
#
# Usage: scripts/bench_predict.sh [ROWS] [REPEATS]
#   ROWS     like find_maximum_subarray_kadane/triplet_gmpnn,minimum/mpnn
#            (default: find_maximum_subarray_kadane with triplet_gmpnn and mpnn)
#   REPEATS  timed predictions per row and side (default 3)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
rows="${1:-find_maximum_subarray_kadane/triplet_gmpnn,find_maximum_subarray_kadane/mpnn}"
repeats="${2:-3}"
ref=$(scripts/ref-harness.sh)
refpy=$(scripts/ref-harness.sh --jax)
out="$root/data/bench"
mkdir -p "$out"
CGO_ENABLED=1 go test -c -o "$out/nn.test" ./lib/nn
echo "Measured $(date -I) on $(uname -m) Linux, $(nproc) CPUs, narlab at $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- lib || echo "+changes"), by scripts/bench_predict.sh ($repeats timed batches per side)"
echo
echo "| algorithm | processor | reference s/batch | narlab s/batch | reference ms/step | narlab ms/step | speed-up |"
echo "|---|---|---:|---:|---:|---:|---:|"
for row in ${rows//,/ }; do
  algo=${row%/*} proc=${row#*/}
  r=$(cd scripts && "$refpy" ref_predict.py "$ref" "$algo" "$proc" "$repeats" 2>/dev/null | tail -1)
  n=$(cd lib/nn && NARLAB_BENCH_ROWS="$row" "$out/nn.test" -test.run '^$' -test.bench '^BenchmarkPredict$' \
      -test.benchtime "${repeats}x" 2>&1 | grep -E "^BenchmarkPredict/" || true)
  .venv/bin/python - "$r" "$n" "$algo" "$proc" <<'PY'
import json, sys
r, n, algo, proc = sys.argv[1:]
ref = json.loads(r) if r.startswith("{") else None
f = n.split()
ns = float(f[2]) / 1e9 if len(f) > 4 else None
ms = float(f[4]) if len(f) > 4 else None
cell = lambda x, p: f"{x:.{p}f}" if x is not None else "—"
up = f"{ref['s_per_batch'] / ns:.2f}×" if ref and ns else "—"
print(f"| {algo} | {proc} | {cell(ref and ref['s_per_batch'], 2)} | {cell(ns, 2)} | "
      f"{cell(ref and ref['ms_per_step'], 1)} | {cell(ms, 1)} | {up} |")
PY
done
