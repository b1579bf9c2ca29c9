#!/usr/bin/env bash
# Evaluation cost against graph size, the sparse model (edge lists) beside
# the dense one (every pair of nodes), on lib/salsa's Erdős–Rényi test
# graphs of 16 to 1,600 nodes (bfs, hidden 64, 4 graphs per batch):
# BenchmarkSparseVsDense in lib/nn, one process per row so that its peak
# resident memory is the row's. The table goes to data/bench/sparse.md
# (docs/salsa.md and docs/performance.md record it).
#
# Usage: scripts/bench_sparse.sh [SIZES] [PATHS]
#   SIZES default "16 80 160 800 1600"; PATHS default "sparse dense"
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/data/bench"
mkdir -p "$out"
sizes="${1:-16 80 160 800 1600}"
paths="${2:-sparse dense}"
CGO_ENABLED=1 go test -c -o "$out/nn.test" ./lib/nn
commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- lib || echo "+changes")
rows="$out/sparse_rows.jsonl"
: > "$rows"
for n in $sizes; do
  for p in $paths; do
    echo "== $p n=$n ($(date +%T))" >&2
    r=$(cd lib/nn && NARLAB_BENCH_PATH=$p NARLAB_BENCH_N=$n "$out/nn.test" -test.run '^$' \
        -test.bench '^BenchmarkSparseVsDense$' -test.benchtime 1x 2>&1 | grep -E "^BenchmarkSparseVsDense/" | tr -s "\t " " " || echo failed)
    echo "{\"n\": $n, \"path\": \"$p\", \"commit\": \"$commit\", \"date\": \"$(date -I)\", \"result\": \"$r\"}" | tee -a "$rows" >&2
  done
done
.venv/bin/python - "$rows" <<'PY' | tee "$out/sparse.md"
import json, os, platform, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
cpu = next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')), '')
print(f"Measured {rows[0]['date']} on {platform.machine()} Linux, {os.cpu_count()} CPUs ({cpu}), narlab at {rows[0]['commit']}, "
      "XLA CPU, by scripts/bench_sparse.sh: bfs on 4 Erdős–Rényi graphs of n nodes (lib/salsa's er_n), hidden 64.\n")
print('| n | sparse: first (s) | sparse: again (s) | sparse: peak memory (MB) | dense: first (s) | dense: again (s) | dense: peak memory (MB) |')
print('|---:|---:|---:|---:|---:|---:|---:|')
by = {}
for r in rows:
    m = dict((k, float(v)) for v, k in re.findall(r'([\d.eE+-]+) (first_s|eval_s|peak_rss_mb)', r['result']))
    by.setdefault(r['n'], {})[r['path']] = m
for n in sorted(by):
    cells = []
    for p in ('sparse', 'dense'):
        m = by[n].get(p)
        cells += [f"{m['first_s']:.2f}", f"{m['eval_s']:.3f}", f"{m['peak_rss_mb']:.0f}"] if m else ['failed'] * 3
    print(f"| {n} | " + ' | '.join(cells) + ' |')
PY
