#!/usr/bin/env bash
# Measures, in one run on this machine, CLRS-30 data generation with narlab
# and with the reference samplers (dm-clrs):
#   1. per algorithm, 1,000 trajectories at n=16 (the train-split setting):
#      narlab single-threaded (go test -bench Generate/*/1cpu) and the
#      reference (scripts/time_reference.py --splits train);
#   2. the train split end to end: `narlab clrs generate --split train`,
#      deflated (the default) and stored, RUNS times each (default 5; the
#      median and the range are reported), the deflated run again held to
#      one CPU (taskset -c 0: how it scales with cores), and narlab's samplers alone
#      (BenchmarkTrainSplit/trajectories), against the reference samplers
#      (and, for comparison only, the reference samplers followed by
#      numpy.savez_compressed of their arrays); numpy then checks that both
#      of narlab's outputs hold exactly the reference's arrays
#      (scripts/compare_npz_dirs.py; the script fails if they differ);
#   3. the whole CLRS-30 dataset (train, val, test; 30 algorithms):
#      `narlab clrs generate --split all` (wall time and peak RSS from
#      /usr/bin/time) and the reference samplers for the same splits.
# The report goes to data/bench/dataset.md (and stdout).
#
# Usage: scripts/bench_dataset.sh [REF_DIR]   (default /tmp/clrs-ref; prepared
# from ../shared/tools/clrs-ref with its setup.sh when missing)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
ref=$(REF_DIR="${1:-${REF_DIR:-/tmp/clrs-ref}}" scripts/ref-harness.sh)
py="$root/.venv/bin/python"
[ -x "$py" ] || py=python3
# The reference samplers run on numpy 1.24.4, the numpy the fixtures and the
# performance anchors were made with (a throwaway environment made by
# ref-harness.sh); REF_PYTHON picks another interpreter with numpy and attrs.
refpy="${REF_PYTHON:-$(scripts/ref-harness.sh --numpy)}"
out="$root/data/bench"
mkdir -p "$out"
go build -o bin/narlab ./cmd/narlab

echo "== narlab: 1,000 trajectories at n=16 per algorithm (1 CPU)" >&2
go test -run '^$' -bench 'Generate/.*/1cpu' -benchtime 3x ./lib/clrs/ | tee "$out/go_bench.txt" >&2
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "== reference: train split per algorithm (and its arrays written with numpy.savez_compressed)" >&2
"$refpy" scripts/time_reference.py --ref "$ref" --splits train --write "$tmp/ref_train" | tee "$out/ref_train.txt" >&2
du -sh "$tmp/ref_train" | tee "$out/ref_train_size.txt" >&2

echo "== narlab: whole CLRS-30 dataset in memory (trajectories; then batched)" >&2
go test -run '^$' -bench 'FullDataset' -benchtime 2x ./lib/clrs/ | tee "$out/go_full.txt" >&2
echo "== narlab: the train split's samplers alone, in a fresh process (what clrs generate does before writing)" >&2
go test -run '^$' -bench 'TrainSplit/trajectories' -benchtime 1x ./lib/clrs/ | tee "$out/go_trainsplit.txt" >&2
echo "== narlab: the train split end to end (sampling + writing .npz), compressed (the default) and stored" >&2
# Each is run $runs times (the report gives the median and the range): on a
# small machine one run varies by a fifth with what the kernel is still
# writing back. sync before each run starts it with no dirty pages.
runs=${RUNS:-5}
for i in $(seq "$runs"); do
  rm -rf "$tmp/trainz"; sync
  /usr/bin/time -v bin/narlab clrs generate --split train --out "$tmp/trainz" --quiet 2> "$out/narlab_trainz_time.$i.txt"
done
du -sh "$tmp/trainz" | tee "$out/narlab_trainz_size.txt" >&2
for i in $(seq "$runs"); do
  rm -rf "$tmp/train"; sync
  /usr/bin/time -v bin/narlab clrs generate --split train --compress=false --out "$tmp/train" --quiet 2> "$out/narlab_train_time.$i.txt"
done
du -sh "$tmp/train" | tee "$out/narlab_train_size.txt" >&2
# The same command held to one CPU (taskset): how the end-to-end time
# scales with cores on this machine.
if [ "$(nproc)" -gt 1 ] && command -v taskset >/dev/null; then
  echo "== narlab: the train split end to end on one CPU (taskset -c 0)" >&2
  for i in $(seq "$runs"); do
    rm -rf "$tmp/train1"; sync
    taskset -c 0 /usr/bin/time -v bin/narlab clrs generate --split train --out "$tmp/train1" --quiet 2> "$out/narlab_train1_time.$i.txt"
  done
  rm -rf "$tmp/train1"
fi
echo "== numpy: the deflated and the stored train split hold the same arrays" >&2
"$py" scripts/compare_npz_dirs.py "$tmp/trainz" "$tmp/train" | sed "s|$tmp/||g" | tee "$out/compare_train.txt" >&2
echo "== numpy: narlab's train split holds the reference's arrays" >&2
# On numpy 1.24 with AVX-512 every array is identical. Another numpy or CPU
# rounds np.sin/np.cos differently in the last bit, which the convex-hull
# coordinates (and Graham scan's angles) show: reported apart, not a failure.
"$py" scripts/compare_npz_dirs.py --last-bits graham_scan,jarvis_march "$tmp/trainz" "$tmp/ref_train" | sed "s|$tmp/||g" | tee "$out/compare_ref.txt" >&2
rm -rf "$tmp/trainz" "$tmp/train" "$tmp/ref_train"
echo "== narlab: whole CLRS-30 dataset written as .npz" >&2
sync
/usr/bin/time -v bin/narlab clrs generate --split all --out "$tmp/clrs30" --quiet 2> "$out/narlab_all_time.txt"
du -sh "$tmp/clrs30" | tee "$out/narlab_all_size.txt" >&2
rm -rf "$tmp"
echo "== reference: whole CLRS-30 dataset (val and test splits; train above)" >&2
"$refpy" scripts/time_reference.py --ref "$ref" --splits val,test | tee "$out/ref_valtest.txt" >&2

# The figures, typed (results/schema.go's DatasetRow), into results/dataset.jsonl;
# then the pages. The numpy comparisons are printed above and in data/bench.
RUNS="$runs" REFPY="$refpy" "$py" - "$out" <<'PY'
import re, sys, os, platform
out = sys.argv[1]
go = {}
for line in open(os.path.join(out, 'go_bench.txt')):
    m = re.match(r'BenchmarkGenerate/(\w+)/1cpu\S*\s+\d+\s+(\d+) ns/op', line)
    if m:
        go[m.group(1)] = int(m.group(2)) / 1e9
ref, reftot = {}, {}
refwrite = None  # the reference's train split written with numpy.savez_compressed
for f in ('ref_train.txt', 'ref_valtest.txt'):
    for line in open(os.path.join(out, f)):
        p = line.rstrip('\n').split('\t')
        if p[0] == 'write':
            if p[2] == 'TOTAL':
                refwrite = float(p[3].rstrip('s'))
            continue
        if p[0] == 'ALL':
            continue
        if p[1] == 'TOTAL':
            reftot[p[0]] = float(p[-1].rstrip('s'))
        elif p[0] == 'train':
            ref[p[1]] = float(p[-1].rstrip('s'))
full = {}
for line in open(os.path.join(out, 'go_full.txt')):
    m = re.match(r'BenchmarkFullDataset/(\w+)\S*\s+\d+\s+(\d+) ns/op', line)
    if m:
        full[m.group(1)] = int(m.group(2)) / 1e9
samplers = None  # the train split's samplers alone, one fresh process
for line in open(os.path.join(out, 'go_trainsplit.txt')):
    m = re.match(r'BenchmarkTrainSplit/trajectories\S*\s+\d+\s+(\d+) ns/op', line)
    if m:
        samplers = int(m.group(1)) / 1e9
def timed(name):
    t = open(os.path.join(out, name)).read()
    wall = re.search(r'Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)', t).group(1)
    secs = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall.split(':'))))
    rss = int(re.search(r'Maximum resident set size \(kbytes\): (\d+)', t).group(1)) / 1024
    return secs, rss
def size(name):
    return open(os.path.join(out, name)).read().split()[0]
def timed_runs(prefix):
    """Median wall time, its range, and the largest peak RSS of the runs."""
    ts = [timed(f'{prefix}.{i}.txt') for i in range(1, int(os.environ['RUNS']) + 1)]
    walls = sorted(t for t, _ in ts)
    return walls[len(walls) // 2], walls[0], walls[-1], max(r for _, r in ts)
secs, rss = timed('narlab_all_time.txt')
trs, trsmin, trsmax, trrss = timed_runs('narlab_train_time')
trz, trzmin, trzmax, trzrss = timed_runs('narlab_trainz_time')
runs = int(os.environ['RUNS'])
cpu = os.cpu_count()
import subprocess
refnp = subprocess.run([os.environ['REFPY'], '-c', 'import numpy; print(numpy.__version__)'], capture_output=True, text=True).stdout.strip()
sys.path.insert(0, "scripts")
import results_rows as rr
p = {**rr.provenance(f"RUNS={runs} scripts/bench_dataset.sh"), "note": f"reference samplers on numpy {refnp}"}
rows = [{**p, "split": "train", "algo": a, "reference_s": ref[a], "narlab_s": go[a]} for a in sorted(ref) if a in go]
rt = sum(ref.values())
def end(split, what, secs, **kw):
    rows.append({**p, "split": split, "what": what, "seconds": secs, **{k: v for k, v in kw.items() if v is not None}})
end("train", "reference samplers (sampling only, 1 CPU)", rt, baseline=True)
if refwrite is not None:
    end("train", "reference samplers + `numpy.savez_compressed` of their arrays (1 CPU; for comparison only)", rt + refwrite,
        size=size("ref_train_size.txt"))
if samplers is not None:
    end("train", f"narlab samplers alone, nothing written ({cpu} CPUs, fresh process; BenchmarkTrainSplit/trajectories)", samplers)
end("train", f"`narlab clrs generate --split train` (deflated .npz, the default; median of {runs} runs, range)", trz,
    min_s=trzmin, max_s=trzmax, size=size("narlab_trainz_size.txt"), peak_mib=trzrss, key="default")
if os.path.exists(os.path.join(out, 'narlab_train1_time.1.txt')):
    t1, t1min, t1max, t1rss = timed_runs('narlab_train1_time')
    end("train", f"the default, held to 1 CPU (`taskset -c 0`; median of {runs} runs, range; {cpu} CPUs are {t1/trz:.2f}× faster)", t1,
        min_s=t1min, max_s=t1max, peak_mib=t1rss)
end("train", f"`narlab clrs generate --split train --compress=false` (stored .npz; median of {runs} runs, range)", trs,
    min_s=trsmin, max_s=trsmax, size=size("narlab_train_size.txt"), peak_mib=trrss)
allref = sum(reftot.values())
end("all", "reference samplers: trajectories batched into padded arrays, in memory (1 CPU)", allref, baseline=True)
end("all", f"narlab samplers: every trajectory, in memory ({cpu} CPUs; BenchmarkFullDataset/trajectories)", full["trajectories"])
end("all", "narlab samplers, then batched into padded arrays like the reference (BenchmarkFullDataset/batched)", full["batched"])
end("all", "`narlab clrs generate --split all`: generated and written as deflated .npz, streamed", secs, peak_mib=rss, key="all")
rr.append("dataset.jsonl", rows)
PY
go run ./cmd/docgen
