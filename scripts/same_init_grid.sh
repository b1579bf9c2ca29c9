#!/usr/bin/env bash
# The same-initialisation grid (results/same_init.jsonl, docs/results.md):
# for each (algorithm, processor) row of the parity table
# (results/parity30.jsonl: the 30 algorithms × MPNN and Triplet-GMPNN), the
# reference (dm-clrs 2.0.3's BaselineModel on JAX CPU, scripts/parity_ref.py
# --dump-steps --no-scores) is initialised with the parity table's seed and
# trained STEPS steps on the CLRS-30 train split, and narlab (lib/nn's
# TestReferenceSameInitLosses) loads the reference's initial parameters and
# takes the same steps on the same batches. The row records both sides'
# losses and the number of leading steps whose losses agree within 0.1 %.
#
# Resumable: a row already in results/same_init.jsonl for the same
# (algorithm, processor, seed, steps, hidden, batch) is skipped, and each
# finished row is appended at once (then `go generate ./results` renders
# docs/results.md). Meant to run in the background, under nice:
#
#   nice -n 15 scripts/same_init_grid.sh            # every row
#   ONLY="mst_kruskal:mpnn bfs:triplet_gmpnn" scripts/same_init_grid.sh
#
# A row whose losses part gets NARLAB_ULP_CONTROLS (default 4) one-ulp
# controls (lib/nn's nudge patterns). REDO_CONTROLS=1 measures again the
# rows that part and were recorded with a single control (reusing the
# reference's dump where it is kept); a row measured again replaces its
# earlier line. FORCE=1 measures the rows again whatever is recorded (with
# ONLY, those rows). A row that parts earlier than every one-ulp control
# also gets the backend control: narlab on the pure-Go backend against
# narlab on XLA from the same parameters.
#
# STEPS (default 35), HIDDEN (32), BATCH (16), SEED (42): the parity table's
# settings; BACKEND: narlab's backend (default its own pick: XLA CPU when
# installed). Dumps and logs go to $NARLAB_DATA/same_init (default data/).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
STEPS=${STEPS:-35}
HIDDEN=${HIDDEN:-32}
BATCH=${BATCH:-16}
SEED=${SEED:-42}
results="$root/results/same_init.jsonl"
out="${NARLAB_DATA:-$root/data}/same_init"
mkdir -p "$out/dumps" "$out/logs"
ref=$(scripts/ref-harness.sh)
refpy=$(scripts/ref-harness.sh --jax)
failed=0
# The commit of the narlab binary built here (edits to lib/ after this
# point do not enter it).
commit=$(python3 -c 'import sys; sys.path.insert(0, "scripts"); import results_rows as rr; print(rr.commit())')
CGO_ENABLED=1 go test -c -o "$out/nn.test" ./lib/nn

rows=${ONLY:-$(python3 - <<'PY'
import json
seen = set()
for line in open("results/parity30.jsonl"):
    r = json.loads(line)
    seen.add((r["algo"], r["processor"]))
print(" ".join(f"{a}:{p}" for a, p in sorted(seen)))
PY
)}

done_already() { # algo processor
  python3 - "$results" "$1" "$2" "$SEED" "$STEPS" "$HIDDEN" "$BATCH" "${REDO_CONTROLS:-}" "${FORCE:-}" <<'PY'
import json, sys
f, algo, proc = sys.argv[1:4]
seed, steps, hidden, batch = map(int, sys.argv[4:8])
redo = sys.argv[8] == "1"
if sys.argv[9] == "1":
    sys.exit(1)
for line in open(f):
    if line.strip():
        r = json.loads(line)
        if (r["algo"], r["processor"], r["seed"], r["steps"], r["hidden"], r["batch"]) == (algo, proc, seed, steps, hidden, batch):
            if redo and r["agrees_to_step"] < r["steps"] and "ulp_control_steps" not in r:
                sys.exit(1)
            sys.exit(0)
sys.exit(1)
PY
}

for row in $rows; do
  algo=${row%%:*}
  proc=${row#*:}
  if done_already "$algo" "$proc"; then
    echo "== $algo $proc: in $results, skipped" >&2
    continue
  fi
  tag="$algo-$proc-s$SEED-n$STEPS-h$HIDDEN-b$BATCH"
  dump="$out/dumps/$tag.json"
  if [ ! -s "$dump" ]; then
    echo "== reference $algo $proc ($STEPS steps)" >&2
    "$refpy" scripts/parity_ref.py "$ref" "$algo" "$proc" "$STEPS" --hidden "$HIDDEN" --batch "$BATCH" \
      --seed "$SEED" --dump-steps "$dump.tmp" --no-scores 2> "$out/logs/$tag-ref.log"
    mv "$dump.tmp" "$dump"
  fi
  echo "== narlab $algo $proc from the reference's initial parameters" >&2
  if ! line=$(cd lib/nn && NARLAB_REF_DUMP="$dump" NARLAB_REF_BACKEND="${BACKEND:-}" "$out/nn.test" \
      -test.run '^TestReferenceSameInitLosses$' -test.v 2>&1 | tee "$out/logs/$tag-narlab.log" | grep '^{'); then
    echo "== $algo $proc: narlab failed, see $out/logs/$tag-narlab.log; row not recorded" >&2
    failed=$((failed + 1))
    continue
  fi
  python3 - "$results" "$line" "$commit" "$STEPS" "$HIDDEN" "$BATCH" "$SEED" "$algo" "$proc" <<'PY'
import json, os, sys
sys.path.insert(0, "scripts")
import results_rows as rr
f = sys.argv[1]
row = json.loads(sys.argv[2])
commit, steps, hidden, batch, seed, algo, proc = sys.argv[3:]
cmd = f"STEPS={steps} HIDDEN={hidden} BATCH={batch} SEED={seed} ONLY={algo}:{proc} scripts/same_init_grid.sh"
new = {**rr.provenance(cmd), "commit": commit, **row}
key = lambda r: (r["algo"], r["processor"], r["seed"], r["steps"], r["hidden"], r["batch"])
# A row measured again replaces its earlier line; written whole, then renamed.
lines = [l for l in open(f) if l.strip() and key(json.loads(l)) != key(new)]
with open(f + ".tmp", "w") as out:
    out.writelines(lines)
    out.write(json.dumps(new) + "\n")
os.replace(f + ".tmp", f)
PY
  tail -1 "$results" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
print("== %s %s: losses agree to step %d of %d (reference %s s, narlab %s s)" % (r["algo"], r["processor"],
      r["agrees_to_step"], r["steps"], r["ref_seconds"], r["narlab_seconds"]))' >&2
done
[ "$failed" = 0 ] || { echo "same_init_grid: $failed rows failed" >&2; exit 1; }
