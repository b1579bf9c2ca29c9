#!/usr/bin/env bash
# The CLRS-30 protocol, narlab beside the JAX reference, every algorithm, in
# one run on this machine (make bench-protocol). For each row ALGO/PROCESSOR
# it runs the reference (scripts/ref_protocol.py: dm-clrs 2.0.3 on jax 0.4.38
# CPU, in a throwaway venv) and then narlab (BenchmarkProtocol in lib/nn, on
# narlab's backend pick: XLA CPU after make setup), each in a process of its
# own, at the paper's size (hidden 128, batches of 32): model creation and
# first training step (compilation), the short protocol (two training steps,
# the whole val split, the whole n=64 test split), the test split's time,
# steady-state steps/s and peak resident memory.
#
# Rows already in results/protocol_rows.jsonl (committed: a fresh clone
# resumes too; ROWS_FILE names another file) are skipped, so an interrupted
# run resumes where it stopped (FRESH=1 starts over). Within a row, the test
# split resumes too (quickselect's takes longer than a working session): each
# side records its progress (every 30 s) in
# results/protocol_progress/ROW-SIDE-MACHINE.json (NARLAB_BENCH_PROGRESS; see
# scripts/ref_protocol.py; MACHINE is the machine's description as a file
# name), and a rerun on the same machine goes on from there (committed with
# the rows, so a fresh clone on a machine of the same description does too;
# each machine keeps its own, so a session on another machine loses nothing);
# a row's files go once the row is recorded.
# Each side's progress (its phases, the test split's batches) goes to
# data/bench/ref_protocol.err and data/bench/narlab_protocol.err.
# Each row is appended to results/protocol_rows.jsonl in its schema
# (results/schema.go, by scripts/results_rows.py), and the pages are rendered
# from the rows at the end (go run ./cmd/docgen: docs/performance.md, the
# README's table).
#
# Usage: scripts/bench_protocol.sh [ROWS] [STEPS]
#   ROWS  like bfs/mpnn,heapsort/triplet_gmpnn (default: each of the 30
#         CLRS-30 algorithms with mpnn and with triplet_gmpnn)
#   STEPS steady-state training steps per row (default 5)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/data/bench"
mkdir -p "$out"
rows_file="${ROWS_FILE:-$root/results/protocol_rows.jsonl}"
mkdir -p "$(dirname "$rows_file")"
[ "${FRESH:-0}" = 1 ] && : > "$rows_file"
touch "$rows_file"
steps="${2:-5}"
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
ref=$(scripts/ref-harness.sh)
refpy=$(scripts/ref-harness.sh --jax)
CGO_ENABLED=1 go test -c -o "$out/nn.test" ./lib/nn
machine="$(uname -m) Linux, $(nproc) CPUs ($(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'))"
machine_slug=$(echo "$machine" | tr 'A-Z' 'a-z' | tr -cs 'a-z0-9_' '-' | sed 's/^-//; s/-$//')
commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- lib || echo "+changes")  # what nn.test was built from
for row in $rows; do
  if grep -q "\"algo\": \"${row%/*}\", \"processor\": \"${row#*/}\"" "$rows_file"; then
    echo "== $row: done before, skipped" >&2
    continue
  fi
  algo=${row%/*} proc=${row#*/}
  progress="$(dirname "$rows_file")/protocol_progress/$algo-$proc"
  export NARLAB_BENCH_MACHINE="$machine"
  echo "== $row: reference ($(date +%T))" >&2
  r=$(NARLAB_BENCH_PROGRESS="$progress-ref-$machine_slug.json" "$refpy" scripts/ref_protocol.py "$ref" "$algo" "$proc" "$steps" 2>"$out/ref_protocol.err" | tail -1 | grep '^{' || echo null)
  echo "== $row: narlab ($(date +%T))" >&2
  n=$(cd lib/nn && NARLAB_BENCH_PROGRESS="$progress-narlab-$machine_slug.json" NARLAB_BENCH_ROWS="$row" NARLAB_BENCH_STEPS="$steps" "$out/nn.test" -test.run '^$' \
      -test.bench '^BenchmarkProtocol$' -test.benchtime 1x 2>"$out/narlab_protocol.err" | grep -E "^BenchmarkProtocol/" | tr -s "\t " " " || true)
  .venv/bin/python scripts/results_rows.py protocol "$row" "$r" "$n" "$commit"
  rm -f "$progress"-ref-*.json "$progress"-narlab-*.json  # every machine's: the row is recorded
done
go run ./cmd/docgen
