#!/usr/bin/env bash
# Records the main job (make bench-demo): runs `bin/narlab demo` (after
# building it), takes the summary.json the demo writes beside its run (the
# figures its own summary printed), adds the date, commit and machine, appends
# it to results/demo.jsonl and renders the pages (go run ./cmd/docgen): the
# README's demo transcript and summary row, docs/performance.md's main job.
# So the README shows what the demo printed, by the demo's own code
# (results.Demo.Summary), never figures typed by hand.
#
# Usage: scripts/bench_demo.sh [NOTE]   NOTE: what ran beside it, e.g. "load average 4-10"
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scripts/build-narlab.sh
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bin/narlab demo | tee "$log"
summary=$(sed -n 's/^  summary (JSON): *//p' "$log")
[ -f "$summary" ] || { echo "bench_demo: the demo printed no summary file" >&2; exit 1; }
.venv/bin/python - "$summary" "${1:-}" <<'PY'
import json, sys
sys.path.insert(0, "scripts")
import results_rows as rr
row = json.load(open(sys.argv[1]))
row.update(rr.provenance("make run (bin/narlab demo)"))
if sys.argv[2]:
    row["note"] = sys.argv[2]
rr.append("demo.jsonl", [row])
PY
go run ./cmd/docgen
