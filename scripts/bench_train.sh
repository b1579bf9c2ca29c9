#!/usr/bin/env bash
# Training speed, narlab beside the JAX reference, in one run on this machine
# (make bench-train). For bfs, floyd_warshall and insertion_sort × mpnn, pgn,
# triplet_mpnn at the paper's size (batch 32, hidden 128, n=16, hints encoded
# and decoded, teacher forcing 0), each row measures the reference
# (scripts/ref_trainbench.py: dm-clrs 2.0.3 on jax 0.4.38 CPU, in a throwaway
# venv) and then narlab (BenchmarkTrainStep in lib/nn, on narlab's backend
# pick: XLA CPU after make setup): steady-state steps/s and the time of the
# first step (compilation). The rows go to results/train_bench.jsonl (typed:
# results/schema.go), rendered into docs/performance.md and the README.
#
# Usage: scripts/bench_train.sh [STEPS] [ROWS]   (default 20 steps per row;
# ROWS like bfs/mpnn,floyd_warshall/pgn; the reference harness is prepared in
# /tmp/clrs-ref and /tmp/narlab-refenv from ../shared/tools/clrs-ref when missing)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
steps="${1:-20}"
rows="${2:-bfs/mpnn,bfs/pgn,bfs/triplet_mpnn,floyd_warshall/mpnn,floyd_warshall/pgn,floyd_warshall/triplet_mpnn,insertion_sort/mpnn,insertion_sort/pgn,insertion_sort/triplet_mpnn}"
ref=$(scripts/ref-harness.sh)
refpy=$(scripts/ref-harness.sh --jax)
out="$root/data/bench"
mkdir -p "$out"
: > "$out/train_rows.jsonl"
go test -c -o "$out/nn-train.test" ./lib/nn
for row in ${rows//,/ }; do
  algo=${row%/*} proc=${row#*/}
  echo "== $row: reference" >&2
  r=$("$refpy" scripts/ref_trainbench.py "$ref" "$algo" "$proc" "$steps" 2>/dev/null | tail -1 | grep '^{' || echo null)
  echo "== $row: narlab" >&2
  n=$(cd lib/nn && NARLAB_BENCH_ROWS="$row" "$out/nn-train.test" -test.run '^$' -test.bench BenchmarkTrainStep \
      -test.benchtime "${steps}x" 2>&1 | grep -E "^BenchmarkTrainStep/" | tr -s "\t " " " || true)
  echo "{\"row\": \"$row\", \"ref\": $r, \"narlab\": \"$n\"}" | tee -a "$out/train_rows.jsonl" >&2
done
backend=$(bin/narlab backends --format json 2>/dev/null | "$root/.venv/bin/python" -c 'import json,sys; print(json.load(sys.stdin)["choice"]["kind"])' || echo "?")
# The rows, typed (results/schema.go's TrainRow), into results/train_bench.jsonl;
# then the pages (docs/performance.md's training table, the README's row).
"$root/.venv/bin/python" - "$out" "$steps" "$backend" <<'PY'
import json, os, sys
sys.path.insert(0, "scripts")
import results_rows as rr
out, steps, backend = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = []
for line in open(os.path.join(out, 'train_rows.jsonl')):
    r = json.loads(line)
    algo, proc = r['row'].split('/')
    parsed = rr.bench_line(r['narlab'])
    nl = None
    if parsed and 'steps_per_s' in parsed[3]:
        m = parsed[3]
        nl = {'steps_per_s': m['steps_per_s'], 'first_step_s': m['first_step_s'], 'warmup_s': m.get('warmup_s', 0.0)}
        if 'host_ms_per_step' in m:
            nl['host_ms_per_step'] = m['host_ms_per_step']
    ref = {k: r['ref'][k] for k in ('steps_per_s', 'first_step_s')} if r['ref'] else None
    rows.append({**rr.provenance(f'scripts/bench_train.sh {steps}'), 'backend': backend, 'steps': steps,
                 'algo': algo, 'processor': proc, 'reference': ref, 'narlab': nl})
rr.append('train_bench.jsonl', rows)
PY
go run ./cmd/docgen
