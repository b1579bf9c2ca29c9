"""Brings the long grids' finished rows into results/ and renders the pages,
so that a session ends with tables that say how far the grids got
(docs/DEVELOPERS.md, "The long grids"):

  sweep     data/sweeps/clrs30-triplet-reduced/cells/*/result.json →
            results/clrs30_reduced.jsonl (one typed row per finished cell,
            replacing that algorithm's earlier row);
  protocol  results/protocol_rows.jsonl and parity results/parity30.jsonl
            are written by their scripts as the rows finish;

then `go run ./cmd/docgen` renders docs/performance.md, docs/results.md
and the README's table from results/*.jsonl (schemas: results/schema.go).

Usage: .venv/bin/python scripts/grid_tables.py
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_rows as rr  # noqa: E402

SWEEP = "data/sweeps/clrs30-triplet-reduced"
BUDGET = {"experiment": "clrs30-triplet-reduced", "processor": "triplet_gmpnn", "steps": 500, "hidden": 64, "batch": 16,
          "seed": 42, "val_samples": 64, "test_samples": 256}


def sweep():
    cells = {}
    for f in glob.glob(os.path.join(rr.ROOT, SWEEP, "cells/*/result.json")):
        d = json.load(open(f))
        cells[d["algorithm"]] = d
    if not cells:
        return
    path = os.path.join(rr.RESULTS, "clrs30_reduced.jsonl")
    rows = [json.loads(line) for line in open(path) if line.strip()]
    keep = [r for r in rows if r["algo"] not in cells]
    for algo, d in sorted(cells.items()):
        keep.append({**rr.provenance(f"narlab sweep run --dir {SWEEP} (docs/results.md)"), **BUDGET, "algo": algo,
                     "test": d["test"], "best_val": d["best_val"]})
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for r in keep:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    os.replace(tmp, path)
    print(f"results/clrs30_reduced.jsonl: {len(cells)} finished cells", file=sys.stderr)


if __name__ == "__main__":
    sweep()
    rr.render()
