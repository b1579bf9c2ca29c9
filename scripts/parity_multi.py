"""Several algorithms in one model, narlab beside the reference (issue 48 item 5).

For each seed, trains one model of the algorithms ALGOS on each side with
the same settings and data, and appends one row per side to
results/multi_algo.jsonl (schema results.MultiAlgoRow):

  reference  dm-clrs 2.0.3's BaselineModel of the algorithms on JAX CPU,
             trained as run.py trains --algorithms (scripts/parity_multi_ref.py)
  narlab     narlab train --algo A,B,C (XLA CPU when available)

Both: the fixed CLRS-30 train split of each algorithm (narlab --train-data
split, the splits' own pos inputs), each step one batch per algorithm in
the list's order and one update each, validation on the whole val splits
every EVAL_EVERY steps and at the last, the best checkpoint by the sum of
the algorithms' validation scores, each algorithm tested with it on its
whole test split (n=64). A row records each algorithm's validation score at
the best step and its test score, the side's wall time (model creation,
training, validation and test), its CPU time (user and system, all
threads) and its peak resident memory (the process's maximum RSS; both
from wait4), on this machine, under `nice -n NICE` (default 19). With
--parallel the two sides of a seed run at the same time (on a machine
loaded by other work, each then meets the same load; their CPU times are
the comparison that load changes least).

Resumable: a rerun skips the (side, seed) rows already in the results file;
narlab's side resumes its run directory (data/parity-multi/...) where a
killed run stopped (its row then says so: its time is the last session's);
the reference's side starts over. Run it in the background:

  nohup nice -n 19 .venv/bin/python scripts/parity_multi.py > data/parity-multi/log.txt 2>&1 &

Settings (flags, or the defaults below): --algos, --processor, --steps,
--hidden, --batch, --eval-every, --seeds, --sides, --test-batch, --results,
--nice, --parallel.
Then `go generate ./results` renders docs/results.md's table.
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import results_rows as rr  # noqa: E402

DEFAULT_ALGOS = "bfs,dfs,dijkstra,insertion_sort,activity_selector,graham_scan"


def run(cmd, log, nice):
    """Runs cmd under nice -n NICE; returns (exit code, seconds, CPU seconds, peak RSS MB)."""
    with open(log, "ab") as f:
        f.write(("\n$ " + " ".join(cmd) + "\n").encode())
        f.flush()
        t0 = time.time()
        # nice -n adds to the driver's own niceness: the side runs at NICE.
        p = subprocess.Popen(["nice", "-n", str(nice - os.nice(0))] + cmd, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        return p.returncode, time.time() - t0, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def have(path, side, a):
    if not os.path.exists(path):
        return False
    for line in open(path):
        r = json.loads(line)
        if (r["system"], r["algorithms"], r["processor"], r["steps"], r["hidden"], r["batch"], r["eval_every"],
                r["seed"]) == (side, a.algos.split(","), a.processor, a.steps, a.hidden, a.batch, a.eval_every,
                               a.seed):
            return True
    return False


def last_json(log):
    for line in reversed(open(log).read().splitlines()):
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            return json.loads(line)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--algos", default=DEFAULT_ALGOS)
    ap.add_argument("--processor", default="mpnn")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--seeds", default="42,43")
    ap.add_argument("--sides", default="reference,narlab")
    ap.add_argument("--test-batch", type=int, default=8)
    ap.add_argument("--results", default=os.path.join(ROOT, "results", "multi_algo.jsonl"))
    ap.add_argument("--nice", type=int, default=19)
    ap.add_argument("--parallel", action="store_true", help="run a seed's sides at the same time")
    a = ap.parse_args()
    out = os.path.join(ROOT, "data", "parity-multi")
    os.makedirs(out, exist_ok=True)
    sides = a.sides.split(",")
    if "narlab" in sides:
        subprocess.run(["nice", "-n", str(a.nice - os.nice(0)), "go", "build", "-o", "bin/narlab", "./cmd/narlab"], cwd=ROOT,
                       check=True)
    if "reference" in sides:
        ref = subprocess.run([os.path.join(ROOT, "scripts", "ref-harness.sh")], capture_output=True, text=True,
                             check=True).stdout.strip()
        refpy = subprocess.run([os.path.join(ROOT, "scripts", "ref-harness.sh"), "--jax"], capture_output=True,
                               text=True, check=True).stdout.strip()
    commit = rr.commit()
    lock = threading.Lock()

    def side_run(side, seed):
        tag = f"{a.algos.replace(',', '+')}-{a.processor}-h{a.hidden}-b{a.batch}-{a.steps}-s{seed}"
        log = os.path.join(out, f"{side}-{tag}.log")
        row = {"system": side, "algorithms": a.algos.split(","), "processor": a.processor, "steps": a.steps,
               "hidden": a.hidden, "batch": a.batch, "eval_every": a.eval_every, "seed": seed}
        if side == "reference":
            cmd = [refpy, "scripts/parity_multi_ref.py", ref, a.algos, a.processor, str(a.steps),
                   "--hidden", str(a.hidden), "--batch", str(a.batch), "--seed", str(seed),
                   "--eval-every", str(a.eval_every), "--test-batch", str(a.test_batch)]
            row["test_batch"] = a.test_batch
        else:
            rundir = os.path.join(out, "narlab-" + tag)
            resumed = os.path.exists(os.path.join(rundir, "state.json"))
            cmd = ["bin/narlab", "train", "--algo", a.algos, "--processor", a.processor, "--steps", str(a.steps),
                   "--hidden", str(a.hidden), "--batch", str(a.batch), "--seed", str(seed),
                   "--eval-every", str(a.eval_every), "--train-data", "split", "--random-pos=false",
                   "--no-mlflow", "--dir", rundir]
        print(f"{side} seed {seed}: {' '.join(cmd)}", flush=True)
        rc, seconds, cpu, rss = run(cmd, log, a.nice)
        row.update(rr.provenance(" ".join(cmd)))
        row["commit"] = commit
        if rc != 0:
            row["failed"] = f"exit status {rc} (log {os.path.relpath(log, ROOT)})"
        elif side == "reference":
            r = last_json(log)
            row.update(best_step=r["best_step"], best_val=r["best_val"], test=r["test"])
        else:
            r = json.load(open(os.path.join(rundir, "result.json")))
            per = r["algorithms"]
            row.update(best_step=r["best_step"], best_val={k: v["best_val"] for k, v in per.items()},
                       test={k: v["test"] for k, v in per.items()}, backend=r["backend"])
            if resumed:
                row["note"] = "resumed from its run directory: seconds and memory are the last session's"
        if rc == 0:
            row.update(seconds=round(seconds, 1), cpu_seconds=round(cpu, 1), peak_rss_mb=round(rss, 1), nice=a.nice)
        with lock:
            with open(a.results, "a") as f:
                f.write(json.dumps(row) + "\n")
        print(f"{side} seed {seed}: {json.dumps(row)}", flush=True)

    for seed in [int(s) for s in a.seeds.split(",")]:
        a.seed = seed
        todo = []
        for side in sides:
            if have(a.results, side, a):
                print(f"{side} seed {seed}: in {a.results}", flush=True)
            else:
                todo.append(side)
        if a.parallel:
            threads = [threading.Thread(target=side_run, args=(side, seed)) for side in todo]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        else:
            for side in todo:
                side_run(side, seed)

if __name__ == "__main__":
    main()
