#!/usr/bin/env bash
# Steady-state training, narlab beside the JAX reference, every CLRS-30
# protocol row, in one run on this machine (make bench-steady). For each row
# ALGO/PROCESSOR it runs the reference (scripts/ref_steady.py: dm-clrs 2.0.3
# on jax 0.4.38 CPU, in a throwaway venv) and then narlab (BenchmarkSteady in
# lib/nn, on narlab's backend pick: XLA CPU after make setup), each in a
# process of its own, as the protocol trains (the train split's first eight
# batches of 32, hidden 128, run.py's settings): the first step, steps/s and
# CPU seconds a step over STEPS steps after a pass over the batches, peak
# memory; narlab's matrix-product FLOPs a step and its GFLOP/s. Once per run,
# the machine's float32 matrix-product peak on narlab's backend
# (BenchmarkMatmulPeak) goes into every row beside them, and each row records
# the one-minute load average when it began.
#
# Rows already in results/steady.jsonl (ROWS_FILE names another file) with the
# same narlab options are skipped, so an interrupted run resumes where it
# stopped (FRESH=1 starts over). Progress goes to stderr, each side's own to
# data/bench/ref_steady.err and data/bench/narlab_steady.err. Rows are typed
# (results/schema.go's SteadyRow, by scripts/results_rows.py) and the pages
# rendered at the end (go run ./cmd/docgen).
#
# Usage: scripts/bench_steady.sh [ROWS] [STEPS]
#   ROWS  like bfs/mpnn,jarvis_march/triplet_gmpnn (default: each of the 30
#         CLRS-30 algorithms with mpnn and with triplet_gmpnn)
#   STEPS steady-state steps timed per side (default 10)
# Environment: PEAK_REPEATS (calls of each product of the peak, default
# 100); NARLAB_STEP_LOOP, NARLAB_STEPS_PER_CALL (narlab's options,
# recorded in the row's "exec"); NN_TEST (a prebuilt lib/nn test binary);
# SIDES=narlab (narlab only: the reference side recorded as failed, for
# probes of narlab's options; the default both).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/data/bench"
mkdir -p "$out"
rows_file="${ROWS_FILE:-$root/results/steady.jsonl}"
mkdir -p "$(dirname "$rows_file")"
[ "${FRESH:-0}" = 1 ] && : > "$rows_file"
touch "$rows_file"
steps="${2:-10}"
if [ -n "${1:-}" ]; then
  rows="${1//,/ }"
else
  algos=$(bin/narlab clrs algos --format json | .venv/bin/python -c \
    'import json,sys; print(" ".join(a["name"] for a in json.load(sys.stdin) if a["clrs30"]))')
  rows=""
  for a in $algos; do
    for p in mpnn triplet_gmpnn; do rows="$rows $a/$p"; done
  done
fi
exec_opts=""
[ -n "${NARLAB_STEP_LOOP:-}" ] && exec_opts="step_loop=$NARLAB_STEP_LOOP"
[ -n "${NARLAB_STEPS_PER_CALL:-}" ] && exec_opts="${exec_opts:+$exec_opts,}steps_per_call=$NARLAB_STEPS_PER_CALL"
sides="${SIDES:-both}"
if [ "$sides" = both ]; then
  ref=$(scripts/ref-harness.sh)
  refpy=$(scripts/ref-harness.sh --jax)
fi
nntest="${NN_TEST:-$out/nn-steady.test}"
[ -n "${NN_TEST:-}" ] || CGO_ENABLED=1 go test -c -o "$nntest" ./lib/nn
commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- lib || echo "+changes") # what the test binary was built from

# The machine's matrix-product peak, once per run.
echo "== matrix-product peak ($(date +%T))" >&2
# The best of PEAK_REPEATS calls (default 100): on a loaded machine most
# calls of the square product (tens of ms) are preempted, and the best of
# a few falls well short of what the cores do.
peak_lines=$(cd lib/nn && NARLAB_BENCH_REPEATS="${PEAK_REPEATS:-100}" "$nntest" -test.run '^$' -test.bench '^BenchmarkMatmulPeak$' -test.benchtime 1x -test.v 2>&1 | tr -s "\t " " " || true)
backend=$(echo "$peak_lines" | sed -n 's/.*: backend \([^ ]*\) .*/\1/p' | head -1)
peak=$(echo "$peak_lines" | sed -n 's/^BenchmarkMatmulPeak\/square1024.* \([0-9.]*\) gflop\/s .*/\1/p')
message=$(echo "$peak_lines" | sed -n 's/^BenchmarkMatmulPeak\/message_mlp.* \([0-9.]*\) gflop\/s .*/\1/p')
echo "   square ${peak:-?} GFLOP/s, message MLP ${message:-?} GFLOP/s on ${backend:-?}" >&2

total=$(echo $rows | wc -w) i=0
for row in $rows; do
  i=$((i + 1))
  algo=${row%/*} proc=${row#*/}
  if .venv/bin/python - "$rows_file" "$algo" "$proc" "$exec_opts" <<'PY'; then
import json, sys
path, algo, proc, ex = sys.argv[1:]
for line in open(path):
    r = json.loads(line)
    if (r["algo"], r["processor"], r.get("exec", "")) == (algo, proc, ex):
        sys.exit(0)
sys.exit(1)
PY
    echo "== [$i/$total] $row${exec_opts:+ ($exec_opts)}: done before, skipped" >&2
    continue
  fi
  load1=$(cut -d' ' -f1 /proc/loadavg)
  r=null
  if [ "$sides" = both ]; then
    echo "== [$i/$total] $row: reference ($(date +%T), load $load1)" >&2
    r=$("$refpy" scripts/ref_steady.py "$ref" "$algo" "$proc" "$steps" 2>"$out/ref_steady.err" | tail -1 | grep '^{' || echo null)
  fi
  echo "== [$i/$total] $row: narlab ($(date +%T), load $(cut -d' ' -f1 /proc/loadavg))" >&2
  n=$(cd lib/nn && NARLAB_BENCH_ROWS="$row" NARLAB_BENCH_STEPS="$steps" "$nntest" -test.run '^$' \
      -test.bench '^BenchmarkSteady$' -test.benchtime 1x 2>"$out/narlab_steady.err" | grep -E "^BenchmarkSteady/" | tr -s "\t " " " || true)
  .venv/bin/python scripts/results_rows.py steady "$row" "$r" "$n" "$commit" "$steps" "$load1" "${backend:-unknown}" \
    "$exec_opts" "${peak:-}" "${message:-}"
done
[ -z "${ROWS_FILE:-}" ] && go run ./cmd/docgen
exit 0
