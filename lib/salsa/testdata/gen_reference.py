#!/usr/bin/env python3
"""Writes reference.json.gz: trajectories made by SALSA-CLRS's own code.

SALSA-CLRS's sampler (salsaclrs/sampler.py), its fast_mis and eccentricity
(salsaclrs/algorithms/) and dm-clrs 2.0.3's bfs, dfs, dijkstra and mst_prim
(the code SALSA-CLRS runs for them) are imported unmodified from their
sources; nothing of them is copied here. Three things are redirected:

  * every random draw comes from one numpy RandomState per sample, keyed
    like narlab's (RandomState([seed, zlib.crc32(set name), i])): the
    sampler's own _rng is replaced by it, NetworkX's erdos_renyi_graph and
    connected_watts_strogatz_graph get it as their seed, and np.random.rand
    (Delaunay points, fast_mis's numbers) draws from it. SALSA-CLRS itself
    draws those from unseeded global generators;
  * SPECS['fast_mis_2'] = SPECS['fast_mis']: the released fast_mis_2 looks
    up a spec of that name, which salsaclrs/specs.py does not define (a
    KeyError on every call);
  * the datasets' parameters are read from salsaclrs/data.py's
    SALSA_CLRS_DATASETS (its er_probabilities and the dict, evaluated alone:
    data.py itself imports torch).

Each trajectory is then laid out on its edge list as SALSA-CLRS's
to_sparse_data does (edge_index = the non-zeros of adj in row-major order;
edge probes gathered at edge_index), except that node pointers stay node
indices (SALSA-CLRS turns them into one-hot edge masks; the script checks
that they follow edges, as its verify_sparseness does) and fast_mis's
randomness is [T, N] (SALSA-CLRS: [N, T]).

Usage (a scratch environment; numpy, scipy, networkx, loguru, tqdm, attrs):
    scripts/ref-harness.sh                       # dm-clrs 2.0.3 + stubs in /tmp/clrs-ref
    git clone https://github.com/jkminder/SALSA-CLRS /tmp/SALSA-CLRS
    git -C /tmp/SALSA-CLRS checkout 3c12bde1f2b45b3fec7b82fb6c8a951c1209fe88
    python gen_reference.py /tmp/SALSA-CLRS /tmp/clrs-ref | gzip -n -9 > reference.json.gz

--seed S and --scale K (K times the samples of every case) make larger
files for a one-off check: NARLAB_SALSA_REFERENCE=FILE go test -run
TestSALSAReference ./lib/salsa compares with FILE instead.
"""
import argparse
import ast
import json
import math
import os
import sys
import types
import zlib

import networkx
import numpy as np
import scipy

ALGORITHMS = ['bfs', 'dfs', 'dijkstra', 'mst_prim', 'fast_mis', 'eccentricity']
# (set, samples with hints, samples without): full traces on the small
# graphs, inputs, outputs and lengths on larger ones.
CASES = [('train', 6, 0), ('val', 2, 0),
         ('er_16', 3, 0), ('ws_16', 3, 0), ('delaunay_16', 3, 0),
         ('er_80', 0, 2), ('ws_80', 0, 2), ('delaunay_80', 0, 2),
         ('er_160', 0, 1), ('ws_160', 0, 1), ('delaunay_160', 0, 1)]


def datasets(salsa):
    """SALSA_CLRS_DATASETS, evaluated from data.py's own source."""
    src = open(os.path.join(salsa, 'salsaclrs', 'data.py')).read()
    keep = [n for n in ast.parse(src).body
            if (isinstance(n, ast.FunctionDef) and n.name == 'er_probabilities')
            or (isinstance(n, ast.Assign) and any(getattr(t, 'id', '') in ('SALSA_CLRS_DATASETS', '__ws_k') for t in n.targets))]
    ns = {'math': math}
    exec(compile(ast.Module(body=keep, type_ignores=[]), 'data.py', 'exec'), ns)
    return ns['SALSA_CLRS_DATASETS']


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('salsa')
    ap.add_argument('ref')
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--scale', type=int, default=1)
    args = ap.parse_args()
    salsa, ref, seed = args.salsa, args.ref, args.seed
    sys.path.insert(0, os.path.join(ref, 'stubs'))
    for name, path in (('clrs', os.path.join(ref, 'clrs')), ('salsaclrs', os.path.join(salsa, 'salsaclrs'))):
        pkg = types.ModuleType(name)  # bare packages: their __init__ imports jax / torch
        pkg.__path__ = [path]
        sys.modules[name] = pkg
    from clrs._src import specs as clrs_specs
    from salsaclrs import sampler as salsa_sampler
    from salsaclrs import specs as salsa_specs
    from salsaclrs.algorithms import mis as salsa_mis

    salsa_specs.SPECS['fast_mis_2'] = salsa_specs.SPECS['fast_mis']
    current = {}

    class NX:
        def __getattr__(self, name):
            return getattr(networkx, name)

        def erdos_renyi_graph(self, n, p, directed=False):
            return networkx.erdos_renyi_graph(n, p, seed=current['rng'], directed=directed)

        def connected_watts_strogatz_graph(self, n, k, p):
            return networkx.connected_watts_strogatz_graph(n, k, p, seed=current['rng'])

    class Random:
        def __getattr__(self, name):
            return getattr(np.random, name)

        def rand(self, *shape):
            return current['rng'].rand(*shape)

    class NP:
        random = Random()

        def __getattr__(self, name):
            return getattr(np, name)

    salsa_sampler.nx = NX()
    salsa_sampler.np = NP()
    salsa_mis.np = NP()

    table = datasets(salsa)
    cases = []
    for set_name, with_hints, without in CASES:
        with_hints, without = with_hints * args.scale, without * args.scale
        if set_name in ('train', 'val'):
            family, kwargs = 'er', table[set_name]
        else:
            family, kwargs = set_name.split('_')[0], table['test'][set_name]
        for algo in ALGORITHMS:
            for i in range(with_hints + without):
                sampler, spec = salsa_sampler.build_sampler(algo, graph_generator=family, graph_generator_kwargs=dict(kwargs))
                rng = np.random.RandomState([seed, zlib.crc32(set_name.encode()), i])
                sampler._rng = current['rng'] = rng
                inp, outp, hints = sampler.next()
                cases.append(sparse(algo, set_name, i, spec, inp, outp, hints, keep_hints=i < with_hints, clrs_specs=clrs_specs))
    json.dump({'about': __doc__.split('\n')[0],
               'salsa_clrs_commit': os.popen(f'git -C {salsa} rev-parse HEAD 2>/dev/null').read().strip(),
               'versions': {'numpy': np.__version__, 'networkx': networkx.__version__, 'scipy': scipy.__version__},
               'seed': seed, 'cases': cases}, sys.stdout, separators=(',', ':'))


def sparse(algo, set_name, i, spec, inp, outp, hints, keep_hints, clrs_specs):
    """One trajectory on its edge list (see the module documentation)."""
    adj = next(dp for dp in inp if dp.name == 'adj').data[0]
    src, dst = np.nonzero(adj)
    n = adj.shape[0]
    probes = {}

    def put(stage, dp, data):
        data = np.asarray(data, dtype=np.float64)
        if dp.location == clrs_specs.Location.EDGE:
            data = data[..., src, dst] if data.ndim == 2 else data[:, src, dst]
        if dp.type_ == clrs_specs.Type.POINTER and dp.location == clrs_specs.Location.NODE:
            ptr = data.reshape(-1, n).astype(int)
            for row in ptr:  # SALSA-CLRS's verify_sparseness: pointers follow edges
                assert np.all(adj[np.arange(n), row] > 0), (algo, dp.name)
        probes[dp.name] = {'stage': stage, 'location': dp.location, 'type': dp.type_,
                           'shape': list(data.shape), 'data': data.ravel().tolist()}

    for dp in inp:
        data = dp.data[0]
        if dp.name == 'randomness':
            data = data.T
        put('input', dp, data)
    for dp in outp:
        put('output', dp, dp.data[0])
    length = hints[0].data.shape[0]
    if keep_hints:
        for dp in hints:
            put('hint', dp, dp.data[:, 0])
    return {'algorithm': algo, 'set': set_name, 'index': i, 'n': int(n), 'length': int(length),
            'hints': bool(keep_hints), 'edge_index': [src.tolist(), dst.tolist()], 'probes': probes}


if __name__ == '__main__':
    main()
