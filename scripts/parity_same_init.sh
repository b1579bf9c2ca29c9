#!/usr/bin/env bash
# Same initial parameters, same batches: for each seed, the reference
# (dm-clrs 2.0.3 BaselineModel on JAX CPU, scripts/parity_ref.py
# --dump-steps) is initialised and trained STEPS steps on the CLRS-30 train
# split, and narlab (lib/nn's TestReferenceSameInitScores) loads the
# reference's initial parameters and takes the same steps on the same
# batches; both report val and test scores of their final parameters. What
# differs between the two runs is only floating-point rounding, so the
# spread of the per-seed differences is what rounding alone does to a
# score at this budget, and the difference of the means is what is left
# for the model to explain.
#
# Usage: ALGO=binary_search PROC=gmpnn SEEDS="46 47" STEPS=100 HIDDEN=32 BATCH=16 scripts/parity_same_init.sh
# (BACKEND: narlab's backend, default its own pick: XLA CPU when installed.)
# Results: data/parity/same_init.jsonl (one line per seed) and a table on stdout.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
ALGO=${ALGO:-binary_search}
PROC=${PROC:-gmpnn}
SEEDS=${SEEDS:-"46 47 48 49 50 51"}
STEPS=${STEPS:-100}
HIDDEN=${HIDDEN:-32}
BATCH=${BATCH:-16}
ref=$(scripts/ref-harness.sh)
refpy=$(scripts/ref-harness.sh --jax)
out="$root/data/parity"
mkdir -p "$out/dumps"
CGO_ENABLED=1 go test -c -o "$out/nn.test" ./lib/nn
for seed in $SEEDS; do
  dump="$out/dumps/$ALGO-$PROC-s$seed-n$STEPS-h$HIDDEN-b$BATCH.json"
  echo "== reference $ALGO $PROC seed $seed ($STEPS steps)" >&2
  "$refpy" scripts/parity_ref.py "$ref" "$ALGO" "$PROC" "$STEPS" --hidden "$HIDDEN" --batch "$BATCH" \
    --seed "$seed" --dump-steps "$dump" 2> "$out/logs/same-init-ref-$seed.log"
  echo "== narlab from the reference's initial parameters" >&2
  (cd lib/nn && NARLAB_REF_DUMP="$dump" NARLAB_REF_BACKEND="${BACKEND:-}" "$out/nn.test" \
    -test.run '^TestReferenceSameInitScores$' -test.v) | grep '^{' | tee -a "$out/same_init.jsonl" >&2
done
python3 - "$out/same_init.jsonl" "$ALGO" "$PROC" "$STEPS" <<'PY'
import json, statistics, sys
f, algo, proc, steps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rows = {}
for line in open(f):
    r = json.loads(line)
    if (r["algo"], r["processor"], r["steps"]) == (algo, proc, steps):
        rows[r["seed"]] = r
print(f"{algo} {proc}, {steps} steps, same initial parameters and batches; scores in %\n")
print("| seed | losses agree (0.1 %) to step | narlab val | ref val | narlab test | ref test | test difference |")
print("|---|---|---|---|---|---|---|")
d = []
for s, r in sorted(rows.items()):
    d.append(100 * (r["narlab_test"] - r["ref_test"]))
    print(f"| {s} | {r.get('loss_agrees_to_step', '—')} | {100*r['narlab_val']:.1f} | {100*r['ref_val']:.1f} | {100*r['narlab_test']:.1f} | "
          f"{100*r['ref_test']:.1f} | {d[-1]:+.1f} |")
if d:
    nt = statistics.mean(100 * r["narlab_test"] for r in rows.values())
    rt = statistics.mean(100 * r["ref_test"] for r in rows.values())
    sd = statistics.stdev(d) if len(d) > 1 else float("nan")
    print(f"\nmean test: narlab {nt:.1f}, reference {rt:.1f} ({len(d)} seeds); per-seed difference sd {sd:.1f}")
PY
