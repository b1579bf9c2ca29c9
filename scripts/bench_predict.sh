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
for row in ${rows//,/ }; do
  algo=${row%/*} proc=${row#*/}
  r=$(cd scripts && "$refpy" ref_predict.py "$ref" "$algo" "$proc" "$repeats" 2>/dev/null | tail -1)
  n=$(cd lib/nn && NARLAB_BENCH_ROWS="$row" "$out/nn.test" -test.run '^$' -test.bench '^BenchmarkPredict$' \
      -test.benchtime "${repeats}x" 2>&1 | grep -E "^BenchmarkPredict/" || true)
  .venv/bin/python - "$r" "$n" "$algo" "$proc" "$repeats" <<'PY'
import json, sys
sys.path.insert(0, "scripts")
import results_rows as rr
r, n, algo, proc, repeats = sys.argv[1:]
ref = json.loads(r) if r.startswith("{") else None
parsed = rr.bench_line(n)
nl = None
if parsed:  # BenchmarkPredict: ns/op is one batch, its metric ms/step
    nl = {"s_per_batch": parsed[2] / 1e9, "ms_per_step": parsed[3]["ms/step"] if "ms/step" in parsed[3] else float(n.split()[4])}
rr.append("predict.jsonl", [{**rr.provenance(f"scripts/bench_predict.sh {algo}/{proc} {repeats}"), "device": "cpu", "backend": "xla-cpu",
    "eval_loop": "host", "batches": int(repeats), "algo": algo, "processor": proc,
    "reference": {k: ref[k] for k in ("s_per_batch", "ms_per_step")} if ref else None, "narlab": nl}])
PY
done
go run ./cmd/docgen
