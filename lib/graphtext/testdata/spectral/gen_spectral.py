"""Reference values for narlab's spectral tasks, computed with numpy.

Reads graphs.jsonl (one narlab graph JSON per line, written by
`go test ./lib/graphtext -run TestSpectralFixtureGraphs -update`) and writes
values.json: for every graph, the twelve task values under the default
options and the option variants, computed independently with
numpy.linalg.eigvalsh / eigh.

Run from the repository root:

    .venv/bin/python lib/graphtext/testdata/spectral/gen_spectral.py
"""
import json
import math
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TOL = 1e-9


def matrices(g):
    n = g["n"]
    a = np.zeros((n, n))
    for e in g["edges"]:
        u, v = int(e[0]) - 1, int(e[1]) - 1
        w = e[2] if len(e) == 3 else 1.0
        a[u, v] = a[v, u] = w
    d = a.sum(axis=1)
    lap = np.diag(d) - a
    inv = np.array([1 / math.sqrt(x) if x > 0 else 0.0 for x in d])
    nl = inv[:, None] * lap * inv[None, :]
    return a, lap, nl


def clamp(x):
    return np.where(np.abs(x) < TOL, 0.0, x)


def values(g):
    a, lap, nl = matrices(g)
    n = g["n"]
    lam, vec = np.linalg.eigh(a)  # ascending
    mu = clamp(np.linalg.eigvalsh(lap))
    nu = clamp(np.linalg.eigvalsh(nl))
    top = lam[-1]
    idx = [k for k in range(n) if top - lam[k] <= TOL * max(1.0, abs(top))]
    sub = vec[:, idx]
    cent = float(np.max(np.sqrt((sub ** 2).sum(axis=1))))
    tr = mu.sum()
    p = mu[mu > 0] / tr if tr > 0 else np.array([])
    ent = float(-(p * np.log(p)).sum())
    sec = lambda x: float(x[1]) if len(x) > 1 else 0.0
    base = {
        "graph_energy": float(np.abs(lam).sum()),
        "n_components": float((mu == 0).sum()),
        "sum_lambda_squared": float((lam ** 2).sum()),
        "algebraic_connectivity": sec(mu),
        "estrada_index": float(np.exp(lam).sum()),
        "laplacian_energy": float(np.abs(mu - tr / n).sum()),
        "natural_connectivity": float(np.log(np.exp(lam).mean())),
        "spectral_gap": float(lam[-1] - lam[-2]) if n > 1 else 0.0,
        "spectral_radius": float(np.abs(lam).max()),
        "eigenvector_centrality_top": cent,
        "heat_trace_t1": float(np.exp(-mu).sum()),
        "von_neumann_entropy": ent,
    }
    variants = {
        "algebraic_connectivity/normalized_laplacian": sec(nu),
        "spectral_gap/laplacian": sec(mu),
        "spectral_gap/normalized_laplacian": sec(nu),
        "heat_trace_t1/normalized_laplacian": float(np.exp(-nu).sum()),
        "heat_trace_t1/t=0.5": float(np.exp(-0.5 * mu).sum()),
        "von_neumann_entropy/log2": ent / math.log(2),
    }
    return base, variants


def main():
    out = []
    with open(os.path.join(HERE, "graphs.jsonl")) as f:
        for line in f:
            if not line.strip():
                continue
            g = json.loads(line)
            base, variants = values(g)
            out.append({"values": base, "variants": variants})
    tmp = os.path.join(HERE, "values.json.tmp")
    with open(tmp, "w") as f:
        json.dump({"numpy": np.__version__, "graphs": out}, f, indent=1)
        f.write("\n")
    os.replace(tmp, os.path.join(HERE, "values.json"))
    print(f"wrote {len(out)} graphs to values.json (numpy {np.__version__})")


if __name__ == "__main__":
    main()
