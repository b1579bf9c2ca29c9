#!/usr/bin/env bash
# Training speed, narlab beside the JAX reference, in one run on this machine
# (make bench-train). For bfs, floyd_warshall and insertion_sort × mpnn, pgn,
# triplet_mpnn at the paper's size (batch 32, hidden 128, n=16, hints encoded
# and decoded, teacher forcing 0), each row measures the reference
# (scripts/ref_trainbench.py: dm-clrs 2.0.3 on jax 0.4.38 CPU, in a throwaway
# venv) and then narlab (BenchmarkTrainStep in lib/nn, on narlab's backend
# pick: XLA CPU after make setup): steady-state steps/s and the time of the
# first step (compilation). The report goes to data/bench/train.md.
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
"$root/.venv/bin/python" - "$out" "$steps" "$backend" <<'PY' | tee "$out/train.md"
import json, os, re, sys, platform, datetime
out, steps, backend = sys.argv[1], sys.argv[2], sys.argv[3]
cpu = ''
for line in open('/proc/cpuinfo'):
    if line.startswith('model name'):
        cpu = line.split(':', 1)[1].strip(); break
print(f'Measured {datetime.date.today()} on {platform.machine()} Linux, {os.cpu_count()} CPUs ({cpu}), by scripts/bench_train.sh '
      f'({steps} steady-state steps per row; narlab backend: {backend}; reference: dm-clrs 2.0.3, jax 0.4.38 CPU)\n')
print('| algorithm | processor | reference steps/s | narlab steps/s | speed-up | reference first step (s) | narlab first step (s) | narlab warm-up (s) | narlab host (ms/step) |')
print('|---|---|---:|---:|---:|---:|---:|---:|---:|')
for line in open(os.path.join(out, 'train_rows.jsonl')):
    r = json.loads(line)
    ref = r['ref'] or {'steps_per_s': float('nan'), 'first_step_s': float('nan')}
    got = {unit: float(v) for v, unit in re.findall(r'([\d.]+) (\S+)', r['narlab'])}
    algo, proc = r['row'].split('/')
    if 'steps/s' not in got:
        print(f'| {algo} | {proc} | {ref["steps_per_s"]:.2f} | failed | | {ref["first_step_s"]:.1f} | | | |'); continue
    rate, first, warm = got['steps/s'], got['first_step_s'], got.get('warmup_s', 0)
    host = f"{got['host_ms/step']:.1f}" if 'host_ms/step' in got else ''
    print(f'| {algo} | {proc} | {ref["steps_per_s"]:.2f} | {rate:.2f} | {rate/ref["steps_per_s"]:.1f}× | {ref["first_step_s"]:.1f} | {first:.1f} | {warm:.1f} | {host} |')
print('\nwarm-up: the training steps (in the step loop, while the unrolled programs compile in the background) '
      'until the default step-loop mode trains every batch unrolled; steps/s is measured after it. '
      'host: the part of a steady-state step spent preparing the batch on the host (BenchmarkBatchPrep times it alone).')
PY
