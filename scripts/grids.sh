#!/usr/bin/env bash
# The round-3 grids that take days of this 2-core machine, in two lanes run
# side by side, each step resumable: run this script again after an
# interruption (a reboot, the end of a working session) and every step
# skips or keeps what it finished and resumes the rest.
#
#   lane 1: make bench-protocol (the CLRS-30 protocol, narlab beside the
#           reference, 30 algorithms x MPNN, Triplet-GMPNN), then the
#           learning-parity grid over the 30 algorithms (one seed per
#           side, MPNN and Triplet-GMPNN, the reduced budget of
#           docs/results.md's parity table)
#   lane 2: the SALSA-CLRS extrapolation run (narlab salsa run --dir
#           data/salsa-run), then the CLRS-30 Triplet-GMPNN sweep
#           (data/sweeps/clrs30-triplet-reduced, docs/results.md), then
#           the same parity grid from its last algorithm backwards (the
#           script's per-row locks keep the two lanes off each other's rows)
#
# Two lanes, not more: each step's XLA uses both cores, and the protocol
# benchmark's two sides must see the same background load. A step whose
# command is already running (started by hand, or by an earlier copy of
# this script) is waited for, not started twice.
#
# Usage: setsid nohup scripts/grids.sh > data/grids.log 2>&1 &
#   LANES ("1 2": which lanes to run)
# The grids' rows live in results/ (protocol_rows.jsonl, parity30.jsonl,
# finished.txt), which is committed: commit it at the end of a session and a
# fresh clone resumes where this machine stopped. Each lane logs to
# data/grids/laneN.log; the steps' own logs are where
# their commands put them (data/bench/, data/parity/, data/salsa-run*.log,
# data/sweeps/clrs30-triplet-reduced/logs/).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
LANES=${LANES:-"1 2"}
mkdir -p data/grids
export GOMLX_NO_AUTO_INSTALL=1
scripts/build-narlab.sh >/dev/null

# step NAME PATTERN CMD...: waits while a process matching PATTERN runs,
# then runs CMD (which resumes on its own). A step listed in
# results/finished.txt (committed, so a fresh clone knows it too) is
# skipped; one that ends well is added there.
finished=results/finished.txt
step() {
  local name=$1 pattern=$2
  shift 2
  if grep -qx -- "$name" "$finished" 2>/dev/null; then
    echo "$(date -u +%FT%TZ) $name: finished before ($finished); skipped"
    return 0
  fi
  while pgrep -f -- "$pattern" > /dev/null; do
    echo "$(date -u +%FT%TZ) $name: already running; waiting" && sleep 300
  done
  echo "$(date -u +%FT%TZ) $name: start"
  local rc=0
  "$@" || rc=$?
  if [ "$rc" = 0 ]; then
    echo "$(date -u +%FT%TZ) $name: done"
    echo "$name" >> "$finished"
  else
    echo "$(date -u +%FT%TZ) $name: failed (exit status $rc)"
  fi
}

lane1() {
  step bench-protocol "scripts/bench_protocol.sh" scripts/bench_protocol.sh
  step parity-train-all "scripts/parity_train.sh" env RESULTS=results/parity30.jsonl ALGOS=all SEEDS=42 STEPS=100 HIDDEN=32 BATCH=16 \
    EVAL_EVERY=25 scripts/parity_train.sh
}

lane2() {
  # The short-trajectory algorithms first (fast_mis, eccentricity: tens of
  # steps; dijkstra and mst_prim n+1; dfs 3n), so that finished columns come
  # early; the table keeps SALSA-CLRS's order.
  step salsa "narlab salsa run --dir data/salsa-run" bin/narlab salsa run --dir data/salsa-run \
    --algos fast_mis,eccentricity,bfs,dijkstra,mst_prim,dfs
  step clrs30-sweep "narlab sweep run --dir data/sweeps/clrs30-triplet-reduced" \
    bin/narlab sweep run --dir data/sweeps/clrs30-triplet-reduced --executor local
  [ -d data/sweeps/clrs30-triplet-reduced ] &&
    { bin/narlab sweep report --dir data/sweeps/clrs30-triplet-reduced > data/grids/clrs30-report.md || true; }
  # Never matches a running process (env's own arguments are gone once it
  # runs the script): lane 1's copy is expected beside this one.
  step parity-train-all-reverse "env ORDER=reverse" env RESULTS=results/parity30.jsonl ORDER=reverse ALGOS=all SEEDS=42 STEPS=100 HIDDEN=32 \
    BATCH=16 EVAL_EVERY=25 scripts/parity_train.sh
}

for lane in $LANES; do
  "lane$lane" >> "data/grids/lane$lane.log" 2>&1 &
done
wait
