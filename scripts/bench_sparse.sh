#!/usr/bin/env bash
# Evaluation cost against graph size, the sparse model (edge lists) beside
# the dense one (every pair of nodes), on lib/salsa's Erdős–Rényi test
# graphs of 16 to 1,600 nodes (bfs, hidden 64, 4 graphs per batch):
# BenchmarkSparseVsDense in lib/nn, one process per row so that its peak
# resident memory is the row's. The rows go to results/sparse.jsonl (typed:
# results/schema.go), rendered into docs/performance.md and the README.
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
# The rows, typed (results/schema.go's SparseRow), into results/sparse.jsonl;
# then the pages.
.venv/bin/python - "$rows" <<'PY'
import json, re, sys
sys.path.insert(0, "scripts")
import results_rows as rr
out = []
for r in (json.loads(l) for l in open(sys.argv[1])):
    m = dict((k, float(v)) for v, k in re.findall(r'([\d.eE+-]+) (first_s|eval_s|peak_rss_mb)', r['result']))
    if len(m) < 3:
        print(f"bench_sparse: {r['path']} n={r['n']} failed: {r['result']}", file=sys.stderr)
        continue
    p = rr.provenance("scripts/bench_sparse.sh")
    p["commit"] = r["commit"]
    out.append({**p, "device": "cpu", "backend": "xla-cpu", "algo": "bfs", "graphs": 4, "hidden": 64, "n": r["n"], "path": r["path"],
                "first_s": m["first_s"], "again_s": m["eval_s"], "peak_mb": m["peak_rss_mb"]})
rr.append("sparse.jsonl", out)
PY
go run ./cmd/docgen
