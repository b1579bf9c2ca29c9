#!/usr/bin/env bash
# Times two or more narlab binaries on `clrs generate --split train`,
# alternating them run by run so that the machine's drift affects each
# alike, and prints for each the median (and minimum) wall time and
# user+sys CPU time. This is how the "alternating runs" figures of docs/performance.md
# were measured; a single run of one binary says little on a machine whose
# speed drifts by a tenth within minutes.
#
# Usage: scripts/compare_generate.sh RUNS BINARY BINARY...
#   e.g. git worktree add /tmp/old OLDREV && (cd /tmp/old && go build -o /tmp/narlab-old ./cmd/narlab)
#        go build -o /tmp/narlab-new ./cmd/narlab
#        scripts/compare_generate.sh 12 /tmp/narlab-old /tmp/narlab-new
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 RUNS BINARY BINARY..." >&2
  exit 2
fi
runs=$1
shift
case $runs in '' | *[!0-9]* | 0) echo "$0: RUNS must be a positive integer, got '$runs'" >&2; exit 2 ;; esac
for b in "$@"; do
  [ -x "$b" ] || { echo "$0: $b is not an executable file" >&2; exit 2; }
done
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for _ in $(seq "$runs"); do
  for b in "$@"; do
    rm -rf "$tmp/out"
    sync
    /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$b" clrs generate --split train --out "$tmp/out" --quiet >/dev/null
    echo "$b $(cat "$tmp/time")" >> "$tmp/times"
  done
done
python3 - "$tmp/times" "$@" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 4]
for b in sys.argv[2:]:
    r = [(float(x[1]), float(x[2]) + float(x[3])) for x in rows if x[0] == b]
    w, c = [x for x, _ in r], [y for _, y in r]
    print(f"{b}: {len(r)} runs, wall median {statistics.median(w):.3f} s (min {min(w):.3f}), "
          f"CPU median {statistics.median(c):.3f} s (min {min(c):.3f})")
PY
