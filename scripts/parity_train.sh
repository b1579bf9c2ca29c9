#!/usr/bin/env bash
# Learning parity with the reference, in one run on this machine: for each
# algorithm × processor × seed, trains narlab (`narlab train --train-data
# split`, XLA CPU when available) and the reference (dm-clrs 2.0.3
# BaselineModel on JAX CPU, scripts/parity_ref.py) on the same data (the
# fixed CLRS-30 train split), budget (steps, batch, hidden), validation
# (CLRS-30 val split every EVAL_EVERY steps) and seed, then tests each
# side's best-validation parameters on the CLRS-30 test split (n=64).
# Both sides: permutations enforced, pred_h as input, soft hint
# re-prediction, teacher forcing 0, gradient clipping 1.0, layer norm, the
# split's own pos inputs (no random_pos).
#
# Prints and writes data/parity/parity.md: val and test of both and the
# test gap (narlab − reference, points) per row, and the mean gap.
# Results accumulate in data/parity/results.jsonl (RESULTS names another
# file: scripts/grids.sh keeps the 30-algorithm grid's rows in the
# committed results/parity30.jsonl): a rerun skips the rows already there
# (delete the file to start over). A reference run that fails
# (killed for memory, say) is recorded as such ("failed": why) and the grid
# goes on; it is tried again by a run whose TEST_BATCH differs from the
# failed one's.
#
# Usage: scripts/parity_train.sh          (settings from the environment:)
#   ALGOS  (default: 8 algorithms over every CLRS-30 output type and stage;
#          all: the 30 CLRS-30 algorithms)
#   PROCS  (default "mpnn triplet_gmpnn")   SEEDS (default "42 43")
#   STEPS (300)  HIDDEN (128)  BATCH (32)  EVAL_EVERY (50)
#   SIDES  ("ref narlab": which systems to run)
#   TEST_BATCH (8: the reference predicts the test split 8 samples at a
#          time and scores the joined predictions, the same score as at
#          once, in a fraction of the memory; 0: at once, as the rows before
#          2026-11-27 04:30 UTC did)
#   ORDER  (forward; reverse: the algorithms last to first, so that a second
#          copy of this script, on another lane, works from the other end)
#   REF_DIR (/tmp/clrs-ref)  REF_VENV (/tmp/narlab-refenv)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
ALGOS=${ALGOS:-"insertion_sort binary_search find_maximum_subarray_kadane lcs_length dijkstra naive_string_matcher graham_scan segments_intersect"}
if [ "$ALGOS" = all ]; then
  ALGOS=$(bin/narlab clrs algos --format json | .venv/bin/python -c \
    'import json,sys; print(" ".join(a["name"] for a in json.load(sys.stdin) if a["clrs30"]))')
fi
if [ "${ORDER:-forward}" = reverse ]; then
  ALGOS=$(printf '%s\n' $ALGOS | tac | tr '\n' ' ')
fi
PROCS=${PROCS:-"mpnn triplet_gmpnn"}
SEEDS=${SEEDS:-"42 43"}
STEPS=${STEPS:-300}
HIDDEN=${HIDDEN:-128}
BATCH=${BATCH:-32}
EVAL_EVERY=${EVAL_EVERY:-50}
SIDES=${SIDES:-"ref narlab"}
TEST_BATCH=${TEST_BATCH:-8}
out="$root/data/parity"
mkdir -p "$out/logs" "$out/locks"
res="${RESULTS:-$out/results.jsonl}"
mkdir -p "$(dirname "$res")"
touch "$res"

if [[ " $SIDES " == *" ref "* ]]; then
  ref=$(scripts/ref-harness.sh)
  refpy=$(scripts/ref-harness.sh --jax)
fi
if [[ " $SIDES " == *" narlab "* ]]; then
  CGO_ENABLED=1 go build -o bin/narlab ./cmd/narlab
  commit=$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- '*.go' go.mod go.sum || echo "+changes")
  bin/narlab backends >&2 || true
fi

have() { # have SYSTEM ALGO PROC SEED STEPS HIDDEN BATCH: the row is in results.jsonl
  # (a failed row counts only under the TEST_BATCH it failed with)
  python3 - "$res" "$TEST_BATCH" "$@" <<'EOF'
import json, sys
f, test_batch, sysname, algo, proc, seed, steps, hidden, batch = sys.argv[1:]
for line in open(f):
    r = json.loads(line)
    if (r["system"], r["algo"], r["processor"], str(r["seed"]), str(r["steps"]), str(r["hidden"]), str(r["batch"])) == \
       (sysname, algo, proc, seed, steps, hidden, batch):
        if "failed" in r and str(r.get("test_batch", 0)) != test_batch:
            continue
        sys.exit(0)
sys.exit(1)
EOF
}

for algo in $ALGOS; do
  for proc in $PROCS; do
    for seed in $SEEDS; do
      tag="$algo-$proc-s$seed-n$STEPS-h$HIDDEN-b$BATCH"
      # A row another copy of this script is running is left to it (the
      # lock goes with the process that holds it, so a killed run's row is
      # taken up again).
      exec {lock}>"$out/locks/$tag.lock"
      if ! flock -n "$lock"; then
        echo "== $tag: another run has it; skipped" >&2
        exec {lock}>&-
        continue
      fi
      if [[ " $SIDES " == *" ref "* ]] && ! have reference "$algo" "$proc" "$seed" "$STEPS" "$HIDDEN" "$BATCH"; then
        echo "== reference $tag" >&2
        rc=0
        "$refpy" scripts/parity_ref.py "$ref" "$algo" "$proc" "$STEPS" --hidden "$HIDDEN" --batch "$BATCH" \
          --seed "$seed" --eval-every "$EVAL_EVERY" --test-batch "$TEST_BATCH" 2> "$out/logs/ref-$tag.log" > "$out/logs/ref-$tag.out" || rc=$?
        if [ "$rc" = 0 ] && tail -1 "$out/logs/ref-$tag.out" | grep -q '^{'; then
          tail -1 "$out/logs/ref-$tag.out" >> "$res"
        else
          # The row is recorded as failed, so that the grid goes on (and a
          # rerun skips it: delete its line to try again).
          why="exit status $rc"
          [ "$rc" -gt 128 ] && why="killed by signal $((rc - 128)) (SIGKILL is also the kernel's out-of-memory killer)"
          python3 - "$algo" "$proc" "$seed" "$STEPS" "$HIDDEN" "$BATCH" "$TEST_BATCH" "$why; log: data/parity/logs/ref-$tag.log" >> "$res" <<'EOF'
import json, sys
algo, proc, seed, steps, hidden, batch, test_batch, why = sys.argv[1:]
print(json.dumps({"system": "reference", "algo": algo, "processor": proc, "steps": int(steps), "hidden": int(hidden),
                  "batch": int(batch), "seed": int(seed), "test_batch": int(test_batch), "failed": why}))
EOF
        fi
        tail -1 "$res" >&2
      fi
      if [[ " $SIDES " == *" narlab "* ]] && ! have narlab "$algo" "$proc" "$seed" "$STEPS" "$HIDDEN" "$BATCH"; then
        echo "== narlab $tag" >&2
        dir="$out/runs/$tag"
        rm -rf "$dir"
        bin/narlab train --algo "$algo" --processor "$proc" --steps "$STEPS" --hidden "$HIDDEN" --batch "$BATCH" \
          --seed "$seed" --eval-every "$EVAL_EVERY" --train-data split --random-pos=false --dir "$dir" --no-mlflow \
          > "$out/logs/narlab-$tag.log" 2>&1
        python3 - "$dir/result.json" "$commit" >> "$res" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print(json.dumps({"system": "narlab", "algo": r["algorithm"], "processor": r["processor"], "steps": r["steps"],
                  "hidden": r["hidden"], "batch": r["batch"], "seed": r["seed"], "best_val": r["best_val"],
                  "best_step": r["best_step"], "test": r["test"], "final_loss": r["final_loss"],
                  "seconds": r["seconds"], "backend": r["backend"], "commit": sys.argv[2]}))
EOF
        tail -1 "$res" >&2
      fi
      exec {lock}>&-
    done
  done
done

python3 - "$res" "$STEPS" "$HIDDEN" "$BATCH" > "$out/parity.md" <<'EOF'
import json, sys
from collections import defaultdict
f, steps, hidden, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows = defaultdict(dict)
for line in open(f):
    r = json.loads(line)
    if (r["steps"], r["hidden"], r["batch"]) != (steps, hidden, batch):
        continue
    rows[(r["algo"], r["processor"], r["seed"])][r["system"]] = r
print(f"steps {steps}, hidden {hidden}, batch {batch}; scores in percent; gap = narlab − reference (points)\n")
print("| algorithm | processor | seed | narlab val | narlab test | ref val | ref test | val gap | test gap |")
print("|---|---|---|---|---|---|---|---|---|")
gaps, vgaps = [], []
for (algo, proc, seed), d in sorted(rows.items()):
    n, r = d.get("narlab"), d.get("reference")
    cell = lambda x, k: "failed" if x and "failed" in x else f"{100 * x[k]:.1f}" if x else "—"
    vg = tg = "—"
    if n and r and "failed" not in r:
        v, t = 100 * (n["best_val"] - r["best_val"]), 100 * (n["test"] - r["test"])
        vgaps.append(v); gaps.append(t)
        vg, tg = f"{v:+.1f}", f"{t:+.1f}"
    print(f"| {algo} | {proc} | {seed} | {cell(n, 'best_val')} | {cell(n, 'test')} | {cell(r, 'best_val')} | "
          f"{cell(r, 'test')} | {vg} | {tg} |")
if gaps:
    print(f"\nmean val gap {sum(vgaps) / len(vgaps):+.1f}, mean test gap {sum(gaps) / len(gaps):+.1f} "
          f"over {len(gaps)} paired rows")
    # Per algorithm, so that an algorithm run on more seeds does not weigh more.
    per = defaultdict(list)
    for (algo, proc, seed), d in rows.items():
        if "narlab" in d and "reference" in d and "failed" not in d["reference"]:
            per[algo].append(100 * (d["narlab"]["test"] - d["reference"]["test"]))
    means = {a: sum(v) / len(v) for a, v in per.items()}
    print("\nmean test gap per algorithm: " + ", ".join(f"{a} {m:+.1f} ({len(per[a])} rows)" for a, m in sorted(means.items())) +
          f"; mean over algorithms {sum(means.values()) / len(means):+.1f}")
EOF
cat "$out/parity.md"
