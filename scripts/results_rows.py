"""Typed rows for results/*.jsonl, for the benchmark scripts.

Each file of results/ has one schema (results/schema.go, checked by
`go test ./results`); the scripts append rows through these functions and
then render the pages (docs/performance.md, docs/results.md, the README's
table) with `go run ./cmd/docgen`. A figure is never typed into a page.

Library use:  sys.path.insert(0, "scripts"); import results_rows as rr
Command line (for the shell scripts):
  results_rows.py protocol ALGO/PROC REF_JSON NARLAB_BENCH_LINE COMMIT
      append one CLRS-30 protocol row (scripts/bench_protocol.sh)
  results_rows.py steady ALGO/PROC REF_JSON NARLAB_BENCH_LINE COMMIT STEPS LOAD1 BACKEND EXEC PEAK MESSAGE
      append one steady-state row (scripts/bench_steady.sh); PEAK and MESSAGE are
      BenchmarkMatmulPeak's gflop/s ("" if not measured), EXEC narlab's options ("" default)
  results_rows.py render
      go run ./cmd/docgen
"""
import datetime
import json
import os
import platform
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "results")


def machine():
    """This machine as the rows name it: "x86_64 Linux, 2 CPUs (model)"."""
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.machine()} Linux, {os.cpu_count()} CPUs ({cpu})"


def commit(paths=("lib",)):
    """The checkout's short commit, "+changes" when paths differ from it."""
    c = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", *paths], cwd=ROOT).returncode != 0
    return c + ("+changes" if dirty else "")


def provenance(command, **extra):
    """date, commit, machine and command of a row measured now."""
    p = {"date": datetime.date.today().isoformat(), "commit": commit(), "machine": machine(), "command": command}
    p.update(extra)
    return p


UNITS = {"steps/s": "steps_per_s", "host_ms/step": "host_ms_per_step"}


def bench_line(line):
    """A `go test -bench` result line → (name, procs, ns_per_op, {metric: value}).

    Metric names are the line's units with "/" spelled out (steps/s →
    steps_per_s). Returns None for a line that is not a result."""
    m = re.match(r"^(Benchmark\S+?)(?:-(\d+))?\s+\d+\s+(\d+(?:\.\d+)?) ns/op(.*)$", line.strip())
    if not m:
        return None
    metrics = {}
    for v, k in re.findall(r"([\d.eE+-]+) (\S+)", m.group(4)):
        metrics[UNITS.get(k, k)] = float(v)
    return m.group(1), int(m.group(2) or 0), int(float(m.group(3))), metrics


def append(name, rows):
    """Appends rows (dicts in the file's schema) to results/NAME."""
    with open(os.path.join(RESULTS, name), "a") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def render():
    """Renders the pages from results/ (go run ./cmd/docgen)."""
    subprocess.run(["go", "run", "./cmd/docgen"], cwd=ROOT, check=True)


def protocol_row(row, ref_json, narlab_line, commit_):
    """One CLRS-30 protocol row in protocol_rows.jsonl's schema. A side that
    failed (no JSON, no benchmark line) is null."""
    algo, proc = row.split("/")
    ref = None
    if ref_json.strip().startswith("{"):
        ref = json.loads(ref_json)
        for k in ("algo", "processor"):
            if ref.pop(k, None) not in (None, algo if k == "algo" else proc):
                raise SystemExit(f"results_rows: the reference's JSON is for another row than {row}")
        if "test_processes" in ref:
            ref["test_processes"] = int(ref["test_processes"])
    narlab = None
    parsed = bench_line(narlab_line) if narlab_line.strip() else None
    if parsed:
        name, procs, ns, metrics = parsed
        if name != "BenchmarkProtocol/" + row:
            raise SystemExit(f"results_rows: the benchmark line is {name}, not row {row}")
        narlab = {"procs": procs, "ns_per_op": ns}
        for k, v in metrics.items():
            narlab[k] = int(v) if k == "test_processes" else v
    p = provenance("scripts/bench_protocol.sh")
    p["commit"] = commit_
    return {**p, "algo": algo, "processor": proc, "reference": ref, "narlab": narlab}


def steady_row(row, ref_json, narlab_line, commit_, steps, load1, backend, exec_, peak, message):
    """One steady-state row in steady.jsonl's schema. A side that failed is null."""
    algo, proc = row.split("/")
    ref = None
    if ref_json.strip().startswith("{"):
        r = json.loads(ref_json)
        if (r.get("algo"), r.get("processor")) != (algo, proc):
            raise SystemExit(f"results_rows: the reference's JSON is for another row than {row}")
        ref = {k: r[k] for k in ("steps_per_s", "cpu_s_per_step", "first_step_s", "peak_rss_mb")}
        ref["device"] = r.get("device", "")
    narlab = None
    parsed = bench_line(narlab_line) if narlab_line.strip() else None
    if parsed:
        name, _, _, m = parsed
        if name != "BenchmarkSteady/" + row:
            raise SystemExit(f"results_rows: the benchmark line is {name}, not row {row}")
        narlab = {"steps_per_s": m["steps_per_s"], "cpu_s_per_step": m["cpu_s/step"], "first_step_s": m["first_step_s"],
                  "peak_rss_mb": m["peak_rss_mb"], "host_ms_per_step": m["host_ms_per_step"],
                  "mflop_per_step": m["mflop/step"], "gflop_per_s": m["gflop/s"],
                  "program_share": m["program/step"], "unrolled_share": m["unrolled/step"]}
    p = provenance("scripts/bench_steady.sh")
    p["commit"] = commit_
    out = {**p, "backend": backend, "steps": int(steps), "algo": algo, "processor": proc}
    if exec_:
        out["exec"] = exec_
    out["load1"] = float(load1)
    if peak:
        out["peak_gflop_per_s"] = float(peak)
    if message:
        out["message_gflop_per_s"] = float(message)
    out.update({"reference": ref, "narlab": narlab})
    return out


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "protocol" and len(sys.argv) == 6:
        r = protocol_row(*sys.argv[2:6])
        rows_file = os.environ.get("ROWS_FILE")  # bench_protocol.sh's other file
        if rows_file:
            with open(rows_file, "a") as f:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        else:
            append("protocol_rows.jsonl", [r])
        print(json.dumps(r, ensure_ascii=False), file=sys.stderr)
    elif what == "steady" and len(sys.argv) == 12:
        r = steady_row(*sys.argv[2:12])
        rows_file = os.environ.get("ROWS_FILE")  # bench_steady.sh's other file
        if rows_file:
            with open(rows_file, "a") as f:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        else:
            append("steady.jsonl", [r])
        ref, nl = r["reference"], r["narlab"]
        if ref and nl:
            print(f"   {ref['steps_per_s']:.3f} -> {nl['steps_per_s']:.3f} steps/s "
                  f"({nl['steps_per_s'] / ref['steps_per_s']:.2f}x), CPU {ref['cpu_s_per_step']:.2f} -> "
                  f"{nl['cpu_s_per_step']:.2f} s/step, narlab {nl['gflop_per_s']:.1f} GFLOP/s", file=sys.stderr)
        else:
            print("   failed: " + " ".join(k for k in ("reference", "narlab") if not r[k]), file=sys.stderr)
    elif what == "render":
        render()
    else:
        sys.exit(__doc__)
