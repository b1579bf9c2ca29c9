"""Writes the long grids' finished rows into the docs, so that a session ends
with tables that say how far the grids got (docs/DEVELOPERS.md, "The long
grids"):

  protocol  results/protocol_rows.jsonl → docs/performance.md's protocol
            table (scripts/bench_protocol_table.py), its row count and
            commits, and the README's row count;
  sweep     data/sweeps/clrs30-triplet-reduced/cells/*/result.json →
            docs/results.md's CLRS-30 table (test and best validation per
            algorithm, the class means, the count of finished cells);
  parity    results/parity30.jsonl → docs/results.md's 30-algorithm
            parity table (the rows of its budget: seed 42, 100 steps,
            hidden 32, batch 16; both sides' best validation and test, the
            test gap, the mean gaps over the rows with both sides).

Usage: .venv/bin/python scripts/grid_tables.py [protocol] [sweep] [parity]   (default all three)
"""
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rewrite(path, fn):
    p = os.path.join(ROOT, path)
    with open(p) as f:
        s = f.read()
    t = fn(s)
    if t != s:
        with open(p, "w") as f:
            f.write(t)
        print(f"{path}: updated")


def protocol():
    rows_file = os.path.join(ROOT, "results/protocol_rows.jsonl")
    rows = [json.loads(line) for line in open(rows_file) if line.strip()]
    table = subprocess.run([sys.executable, os.path.join(ROOT, "scripts/bench_protocol_table.py"), rows_file,
                            "xla-cpu"], capture_output=True, text=True, check=True).stdout.strip()
    commits = []
    for r in rows:
        for c in r["commit"].replace("+changes", "").split("|"):  # a|b: one of these (rows recovered from the docs)
            if c not in commits:
                commits.append(c)
    listed = ", ".join(commits[:-1]) + " and " + commits[-1] if len(commits) > 1 else commits[0]

    def perf(s):
        i = s.index("### The CLRS-30 protocol on every algorithm")
        start = s.index("Measured ", s.index("\n\n", s.index("*How the rows ran", i)))
        end = s.index("\n", s.index("rows meet the bar (first step and short protocol no slower", start))
        s = s[:start] + table + s[end:]
        s = re.sub(r"\*How the rows ran: \d+ of 60 rows", f"*How the rows ran: {len(rows)} of 60 rows", s)
        return re.sub(r"measured at commits [0-9a-f, and]+\n", f"measured at commits {listed}\n", s, count=1)
    rewrite("docs/performance.md", perf)
    summary = "all 60 rows" if len(rows) == 60 else f"{len(rows)} of 60 rows so far"
    rewrite("README.md", lambda s: re.sub(r"\d+ of 60 rows so far|all 60 rows", summary, s))


def sweep():
    res = {}
    for f in glob.glob(os.path.join(ROOT, "data/sweeps/clrs30-triplet-reduced/cells/*/result.json")):
        d = json.load(open(f))
        res[d["algorithm"]] = d
    row = re.compile(r"^\| ([^|]+) \| ([a-z_]+) \| ([^|]*) \| ([^|]*) \| ([^|]+) \| ([^|]+) \|$")
    mean = re.compile(r"^\| ([A-Z][^|]+) \| ((?:—|[\d.]+) \(\d+ of \d+\)) \| ([^|]+) \|$", re.M)

    def results(s):
        scores, count, out = {}, {}, []
        for line in s.split("\n"):
            m = row.match(line)
            if m and m.group(1).strip() != "class":
                cls, algo = m.group(1).strip(), m.group(2).strip()
                count[cls] = count.get(cls, 0) + 1
                if algo in res:
                    d = res[algo]
                    line = (f"| {cls} | {algo} | {100 * d['test']:.2f} | {100 * d['best_val']:.2f} | "
                            f"{m.group(5).strip()} | {m.group(6).strip()} |")
                    scores.setdefault(cls, []).append(100 * d["test"])
            out.append(line)
        s = "\n".join(out)

        def class_mean(m):
            cls = m.group(1).strip()
            sc, n = scores.get(cls, []), count.get(cls, 0)
            cell = f"{sum(sc) / len(sc):.2f} ({len(sc)} of {n})" if sc else f"— (0 of {n})"
            return f"| {cls} | {cell} | {m.group(3).strip()} |"
        s = mean.sub(class_mean, s)
        if scores:
            means = [sum(v) / len(v) for v in scores.values()]
            s = re.sub(r"narlab's mean of the class means: [^ ]+ \(\d+ of \d+ classes\)",
                       f"narlab's mean of the class means: {sum(means) / len(means):.2f} ({len(means)} of {len(count)} classes)", s)
        s = re.sub(r"\d+ of 30 cells finished at this writing", f"{len(res)} of 30 cells finished at this writing", s)
        return s
    rewrite("docs/results.md", results)


PARITY_BUDGET = {"seed": 42, "steps": 100, "hidden": 32, "batch": 16}


def parity():
    rows = {}
    for line in open(os.path.join(ROOT, "results/parity30.jsonl")):
        if not line.strip():
            continue
        r = json.loads(line)
        if all(r[k] == v for k, v in PARITY_BUDGET.items()):
            rows.setdefault((r["algo"], r["processor"]), {})[r["system"]] = r
    pct = lambda r, k: "—" if not r else "failed" if "failed" in r else f"{100 * r[k]:.1f}"
    lines = ["| algorithm | processor | reference val | reference test | narlab val | narlab test | test gap |",
             "|---|---|---:|---:|---:|---:|---:|"]
    gaps = {}
    for (algo, proc), d in sorted(rows.items()):
        ref, nl = d.get("reference"), d.get("narlab")
        gap = "—"
        if ref and nl and "failed" not in ref:
            g = 100 * (nl["test"] - ref["test"])
            if "recovered_from" in ref and "test_gap_points" in nl:
                g = nl["test_gap_points"]  # the gap as first printed, from the unrounded scores
            gaps.setdefault(proc, []).append(g)
            gap = f"{g:+.1f}"
        lines.append(f"| {algo} | {proc} | {pct(ref, 'best_val')} | {pct(ref, 'test')} | {pct(nl, 'best_val')} | "
                     f"{pct(nl, 'test')} | {gap} |")
    paired = sum(len(v) for v in gaps.values())
    summary = f"{paired} of 60 rows with both sides"
    if paired:
        every = [g for v in gaps.values() for g in v]
        summary += f"; mean test gap {sum(every) / len(every):+.1f} points (" + ", ".join(
            f"{p} {sum(v) / len(v):+.1f} over {len(v)}" for p, v in sorted(gaps.items())) + ")"
    failed = [f"{a}/{p} ({d['reference']['failed'].split(';')[0]})" for (a, p), d in sorted(rows.items())
              if "failed" in d.get("reference", {})]
    if failed:
        summary += "; the reference failed on " + ", ".join(failed)
    table = "\n".join(lines) + "\n\n" + summary + ". Test: the best-validation parameters on the CLRS-30 test split (n=64)."

    def results(s):
        start = s.index("<!-- parity30-table -->") + len("<!-- parity30-table -->")
        end = s.index("<!-- /parity30-table -->")
        s = s[:start] + "\n" + table + "\n" + s[end:]
        return re.sub(r"\d+ of 60 rows with both sides at this writing", f"{paired} of 60 rows with both sides at this writing", s)
    rewrite("docs/results.md", results)


if __name__ == "__main__":
    for what in sys.argv[1:] or ["protocol", "sweep", "parity"]:
        {"protocol": protocol, "sweep": sweep, "parity": parity}[what]()
