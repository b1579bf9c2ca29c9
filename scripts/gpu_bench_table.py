"""The tables of the GPU benchmark (scripts/gpu_bench.sh) from its rows.

Usage: gpu_bench_table.py GPU_BENCH.jsonl [MORE.jsonl ...]   → Markdown on stdout
       gpu_bench_table.py --append --commit C --machine M [--date D] GPU_BENCH.jsonl ...
           → the same rows, typed, appended to results/ (gpu_protocol.jsonl,
             predict.jsonl, step_calls.jsonl, sparse.jsonl, steady.jsonl; schemas in
             results/schema.go), then the pages rendered (go run ./cmd/docgen).
             C: the commit the carried binaries were built from; M: the
             card's machine, e.g. "one NVIDIA H100 80GB HBM3 (driver …), 16 CPU cores".

Each file is one `bash .gpu/run.sh` run's $OUT/gpu_bench.jsonl; a row that
appears in several files is taken from the last. Four tables: the CLRS-30
protocol rows (narlab's BenchmarkProtocol beside the reference's
ref_protocol.py), the evaluation-alone rows (predict:..., BenchmarkPredict
beside ref_predict.py), the per-call rows (calls:..., BenchmarkStepCall)
and the sparse/dense evaluation rows (BenchmarkSparseVsDense). A row named
ROW@OPTION... (@device, @host: evaluation's loop on the device, on the
host; @loop, @unroll: a fixed training step loop; @kN: N training
steps a call; @noautotune: XLA's GPU autotuning off) is narlab alone, beside the plain row's reference. A side
that did not finish within the run's time limit shows as "did not
finish".
"""
import json
import re
import sys


def metrics(text):
    """The benchmark metrics in one narlab cell ("1.5 first_step_s …")."""
    found = re.findall(r"(\d[\d.eE+-]*) ([a-z_/]+(?:/s)?)(?=[ ;]|$)", text or "")
    out = {}
    for v, k in found:
        try:
            out[k] = float(v)
        except ValueError:  # an error message's text, not a metric
            pass
    return out


def options(name):
    """A row name's base and the words for its @options ("dfs/mpnn@device@k8")."""
    base, *opts = name.split("@")
    words = {"device": "device loop", "host": "host loop", "noautotune": "XLA autotuning off",
             "loop": "step loop throughout", "unroll": "unrolled throughout"}
    return base, ", ".join(words.get(o, f"{o[1:]} steps a call" if o[:1] == "k" else o) for o in opts)


def fmt(x, digits=1):
    return "—" if x is None else f"{x:,.{digits}f}"


def main(paths):
    rows = read(paths)
    dnf = "did not finish"
    print("| algorithm / processor | side | first step (s) | protocol (s) | val (s) | test (s) | steps/s | "
          "host peak (MB) | GPU memory (MB) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in rows.items():
        if name.split("/")[0] in ("sparse", "dense") or name.startswith(("predict:", "calls:", "steady:")):
            continue
        n = metrics(r.get("narlab"))
        side = "narlab"
        if "@" in name:
            name, desc = options(name)
            side = f"narlab, {desc}"
        if "protocol_s" in n:
            print(f"| {name} | {side} | {fmt(n['first_step_s'])} | {fmt(n['protocol_s'])} | {fmt(n['val_s'])} | "
                  f"{fmt(n['test_s'])} | {fmt(n['steps/s'], 0)} | {fmt(n['peak_rss_mb'], 0)} | "
                  f"{fmt(r.get('narlab_gpu_mb'), 0)} |")
        else:
            print(f"| {name} | {side} | {dnf} | | | | | | {fmt(r.get('narlab_gpu_mb'), 0)} (seen) |")
        if side != "narlab":
            continue  # narlab alone: the reference's side is the plain row's
        f = r.get("ref")
        if f:
            gpu = fmt(r.get("ref_gpu_mb"), 0)
            if "device_peak_mb" in f:
                gpu += f" (JAX's count: {fmt(f['device_peak_mb'], 0)})"
            print(f"| | reference | {fmt(f['first_step_s'])} | {fmt(f['protocol_s'])} | {fmt(f['val_s'])} | "
                  f"{fmt(f['test_s'])} | {fmt(f['steps_per_s'], 0)} | {fmt(f['peak_rss_mb'], 0)} | {gpu} |")
        else:
            print(f"| | reference | {dnf} | | | | | | {fmt(r.get('ref_gpu_mb'), 0)} (seen) |")
    print()
    predict = [k for k in rows if k.startswith("predict:")]
    if predict:
        print("| algorithm / processor | reference s/batch | narlab s/batch | reference ms/step | narlab ms/step | "
              "speed-up |")
        print("|---|---:|---:|---:|---:|---:|")
        for name in predict:
            r = rows[name]
            n, f = metrics(r.get("narlab")), r.get("ref") or {}
            label = name[len("predict:"):]
            if "@" in name:  # narlab alone, the reference's from the plain row
                base, desc = options(name)
                label = f"{base[len('predict:'):]} ({desc})"
                f = (rows.get(base) or {}).get("ref") or {}
            ns = n.get("ns/op", 0) / 1e9 or None
            up = f"{f['s_per_batch'] / ns:.2f}×" if ns and "s_per_batch" in f else "—"
            missing = "—" if "@" in name else dnf  # no plain row: not run
            print(f"| {label} | {fmt(f.get('s_per_batch'), 3) if f else missing} | "
                  f"{fmt(ns, 3) if ns else dnf} | {fmt(f.get('ms_per_step'), 2) if f else ''} | "
                  f"{fmt(n.get('ms/step'), 2)} | {up} |")
        print()
    calls = [k for k in rows if k.startswith("calls:")]
    if calls:
        print("| algorithm / processor | steps | step program call (µs) | near-empty program call (µs) |")
        print("|---|---:|---:|---:|")
        for name in calls:
            n = metrics(rows[name].get("narlab"))
            if "call_us" in n:
                print(f"| {name[len('calls:'):]} | {fmt(n.get('steps'), 0)} | {fmt(n['call_us'], 0)} | "
                      f"{fmt(n['null_us'], 0)} |")
            else:
                print(f"| {name[len('calls:'):]} | {dnf} | | |")
        print()
    sizes = sorted({int(k.split("/")[1]) for k in rows if k.split("/")[0] in ("sparse", "dense")})
    if not sizes:
        return
    print("| n | sparse: first (s) | sparse: again (s) | sparse: GPU memory (MB) | "
          "dense: first (s) | dense: again (s) | dense: GPU memory (MB) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for size in sizes:
        cells = []
        for path in ("sparse", "dense"):
            r = rows.get(f"{path}/{size}")
            m = metrics(r and r.get("narlab"))
            if "eval_s" in m:
                cells += [fmt(m["first_s"], 2), fmt(m["eval_s"], 4), fmt(r.get("narlab_gpu_mb"), 0)]
            else:
                cells += [dnf if r else "—", "", ""]
        print(f"| {size} | " + " | ".join(cells) + " |")


def steady_row(prov, name, r, n, rows):
    """A steady:ALGO/PROC[@options] row as results/steady.jsonl's SteadyRow (narlab alone with @options, its
    reference the plain row's)."""
    base, _ = options(name)
    opts = name.split("@")[1:]
    a, p = base[len("steady:"):].split("/")
    exec_ = ",".join("step_loop=" + o if o in ("loop", "unroll", "program") else
                     "steps_per_call=" + o[1:] if o[:1] == "k" else o for o in opts)
    narlab = None
    if "steps/s" in n:
        narlab = {"steps_per_s": n["steps/s"], "cpu_s_per_step": n["cpu_s/step"], "first_step_s": n["first_step_s"],
                  "peak_rss_mb": n["peak_rss_mb"], "host_ms_per_step": n["host_ms/step"],
                  "mflop_per_step": n["mflop/step"], "gflop_per_s": n["gflop/s"],
                  "program_share": n["program/step"], "unrolled_share": n["unrolled/step"]}
        if r.get("narlab_gpu_mb") is not None:
            narlab["gpu_mb"] = float(r["narlab_gpu_mb"])
    plain = r if not opts else rows.get(base, {})
    f = plain.get("ref")
    ref = None
    if f:
        ref = {k: f[k] for k in ("steps_per_s", "cpu_s_per_step", "first_step_s", "peak_rss_mb")}
        ref["device"] = f.get("device", "")
        if plain.get("ref_gpu_mb") is not None:
            ref["gpu_mb"] = float(plain["ref_gpu_mb"])
    row = {**prov, "backend": "xla-cuda", "steps": int(r.get("steps", 20)), "algo": a, "processor": p}
    if exec_:
        row["exec"] = exec_
    row.update({"load1": float(r.get("load1", 0)), "reference": ref, "narlab": narlab})
    return row


def read(paths):
    rows = {}
    for p in paths:
        for line in open(p):
            line = line.strip()
            if line:
                r = json.loads(line)
                rows[r["row"]] = r
    return rows


def append(paths, commit, machine, date):
    """The lease's rows, typed, into results/ (then the pages rendered)."""
    import os
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import results_rows as rr
    rows = read(paths)
    prov = {"date": date, "commit": commit, "machine": machine, "command": "bash .gpu/run.sh"}
    out = {"gpu_protocol.jsonl": [], "predict.jsonl": [], "step_calls.jsonl": [], "sparse.jsonl": [], "steady.jsonl": []}
    for name, r in rows.items():
        n = metrics(r.get("narlab"))
        head = name.split("/")[0]
        if name.startswith("steady:"):
            out["steady.jsonl"].append(steady_row(prov, name, r, n, rows))
            continue
        if head in ("sparse", "dense"):
            if "eval_s" in n:
                out["sparse.jsonl"].append({**prov, "device": "H100", "backend": "xla-cuda", "algo": "bfs", "graphs": 4,
                                            "hidden": 64, "n": int(name.split("/")[1]), "path": head,
                                            "first_s": n["first_s"], "again_s": n["eval_s"], "gpu_mb": r.get("narlab_gpu_mb")})
            continue
        if name.startswith("calls:"):
            if "call_us" in n:
                a, p = name[len("calls:"):].split("/")
                out["step_calls.jsonl"].append({**prov, "device": "H100", "algo": a, "processor": p, "steps": int(n.get("steps", 0)),
                                                "step_call_us": n["call_us"], "empty_call_us": n["null_us"]})
            continue
        if name.startswith("predict:"):
            base, desc = options(name)
            f = r.get("ref") or (rows.get(base) or {}).get("ref")
            ns = n.get("ns/op", 0) / 1e9
            if f and ns:
                a, p = base[len("predict:"):].split("/")
                out["predict.jsonl"].append({**prov, "device": "H100", "backend": "xla-cuda",
                                             "eval_loop": "host" if "host" in desc else "device", "batches": 5, "algo": a, "processor": p,
                                             "reference": {"s_per_batch": f["s_per_batch"], "ms_per_step": f["ms_per_step"]},
                                             "narlab": {"s_per_batch": ns, "ms_per_step": n["ms/step"]}})
            continue
        base, desc = options(name) if "@" in name else (name, "")
        a, p = base.split("/")
        side = {**prov, "algo": a, "processor": p, "side": "narlab"}
        if desc:
            side["variant"] = desc
        if "protocol_s" in n:
            side.update({"first_step_s": n["first_step_s"], "protocol_s": n["protocol_s"], "val_s": n["val_s"],
                         "test_s": n["test_s"], "steps_per_s": n["steps/s"], "host_peak_mb": n["peak_rss_mb"]})
        else:
            side.update({"unfinished": "did not finish", "gpu_mb_seen": True})
        side["gpu_mb"] = r.get("narlab_gpu_mb") or 0.0
        out["gpu_protocol.jsonl"].append(side)
        if desc:
            continue  # narlab alone: the reference's side is the plain row's
        ref = {**prov, "algo": a, "processor": p, "side": "reference", "gpu_mb": r.get("ref_gpu_mb") or 0.0}
        f = r.get("ref")
        if f:
            ref.update({"first_step_s": f["first_step_s"], "protocol_s": f["protocol_s"], "val_s": f["val_s"],
                        "test_s": f["test_s"], "steps_per_s": f["steps_per_s"], "host_peak_mb": f["peak_rss_mb"]})
            if "device_peak_mb" in f:
                ref["jax_gpu_mb"] = f["device_peak_mb"]
        else:
            ref.update({"unfinished": "did not finish", "gpu_mb_seen": True})
        out["gpu_protocol.jsonl"].append(ref)
    for file, new in out.items():
        rr.append(file, new)
        print(f"results/{file}: {len(new)} rows", file=sys.stderr)
    rr.render()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--append":
        import argparse
        import datetime
        ap = argparse.ArgumentParser()
        ap.add_argument("--append", action="store_true")
        ap.add_argument("--commit", required=True)
        ap.add_argument("--machine", required=True)
        ap.add_argument("--date", default=datetime.date.today().isoformat())
        ap.add_argument("files", nargs="+")
        a = ap.parse_args()
        append(a.files, a.commit, a.machine, a.date)
    else:
        main(sys.argv[1:])
