#!/usr/bin/env python3
"""Generate extra reference cases for narlab's CLRS parity tests.

Runs the reference CLRS samplers (dm-clrs, through the numpy-only harness of
../shared/tools/clrs-ref: `cp -r ../shared/tools/clrs-ref /tmp/clrs-ref &&
/tmp/clrs-ref/setup.sh pip`) for many algorithms, seeds, sizes, official
splits and transforms, and records for each case the SHA-256 and size of the
reference JSON (the compact `dump.py` layout, which `narlab clrs sample
--format reference-json` reproduces byte for byte). Small cases are also
stored whole (gzipped) so that a failing test can say where it differs.

The shared fixtures were produced on a CPU with AVX-512, where numpy 1.24
computes float64 np.cos/np.sin with Intel SVML (__svml_cos8/__svml_sin8, low
accuracy variants). This script reproduces that machine: it evaluates np.cos
and np.sin with scripts/numpy_svml.py, an exact emulation of those routines,
so that the convex-hull samplers match the fixtures' platform on any x86-64.
math.atan2 is the machine's glibc.

Usage: gen_reference.py --ref /tmp/clrs-ref [--out DIR] [--quick | --splits-only]
"""
import argparse
import gzip
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


CLRS30 = ['articulation_points', 'activity_selector', 'bellman_ford', 'bfs', 'binary_search', 'bridges',
          'bubble_sort', 'dag_shortest_paths', 'dfs', 'dijkstra', 'find_maximum_subarray_kadane',
          'floyd_warshall', 'graham_scan', 'heapsort', 'insertion_sort', 'jarvis_march', 'kmp_matcher',
          'lcs_length', 'matrix_chain_order', 'minimum', 'mst_kruskal', 'mst_prim', 'naive_string_matcher',
          'optimal_bst', 'quickselect', 'quicksort', 'segments_intersect', 'strongly_connected_components',
          'task_scheduling', 'topological_sort']


def cases(quick, splits_only=False):
    if splits_only:
        return [dict(algo=a, split=sp) for a in CLRS30 for sp in ('train', 'test')]
    out = []
    for a in CLRS30:
        out.append(dict(algo=a, length=7, seed=11, num_samples=3, store=True))
        out.append(dict(algo=a, length=12, seed=123456789, num_samples=4, store=True))
        out.append(dict(algo=a, length=64, seed=5, num_samples=1))
        out.append(dict(algo=a, length=2, seed=3, num_samples=3))
        out.append(dict(algo=a, split='val'))
        if not quick:
            out.append(dict(algo=a, split='train'))
            out.append(dict(algo=a, split='test'))
    # Sampler options, batching and the run.py transforms.
    out += [
        dict(algo='bfs', length=10, seed=4, num_samples=5, kwargs={'p': [0.1, 0.5, 0.9]}, store=True),
        dict(algo='mst_kruskal', length=9, seed=2, num_samples=4, kwargs={'p': [0.05, 0.1, 0.45]}, store=True),
        dict(algo='naive_string_matcher', length=20, seed=9, num_samples=6, kwargs={'length_needle': -8}, store=True),
        dict(algo='kmp_matcher', length=20, seed=9, num_samples=6, kwargs={'length_needle': -8}, store=True),
        dict(algo='lcs_length', length=9, seed=8, num_samples=3, kwargs={'length_2': 3, 'chars': 2}, store=True),
        dict(algo='task_scheduling', length=8, seed=6, num_samples=3, kwargs={'max_deadline': 3}, store=True),
        dict(algo='strongly_connected_components', length=16, seed=3, num_samples=3, kwargs={'k': 3, 'eps': 0.2}, store=True),
        dict(algo='quicksort', length=16, seed=1, num_samples=8, batch=5, store=True),
        dict(algo='quicksort', length=16, seed=1, num_samples=4, random_pos=7, pred_as_input=True, permutations=True, store=True),
        dict(algo='insertion_sort', length=10, seed=2, num_samples=3, permutations=True, store=True),
        dict(algo='lcs_length', length=12, seed=2, num_samples=3, random_pos=3, pred_as_input=True, store=True),
        dict(algo='kmp_matcher', length=16, seed=5, num_samples=3, random_pos=11, pred_as_input=True, store=True),
        dict(algo='jarvis_march', length=10, seed=4, num_samples=3, pred_as_input=True, random_pos=1, store=True),
        dict(algo='dijkstra', length=8, seed=0, num_samples=3, random_pos=5, store=True),
    ]
    return out


def dump_args(c):
    args = [c['algo'], str(c.get('length', 0)), str(c.get('seed', 0)), '--compact']
    if 'split' in c:
        args += ['--clrs30', c['split']]
    else:
        args += ['--num-samples', str(c['num_samples'])]
    if c.get('kwargs'):
        args += ['--kwargs', json.dumps(c['kwargs'])]
    if c.get('batch'):
        args += ['--batch', str(c['batch'])]
    if c.get('random_pos') is not None:
        args += ['--random-pos', str(c['random_pos'])]
    if c.get('pred_as_input'):
        args += ['--pred-as-input']
    if c.get('permutations'):
        args += ['--permutations']
    return args


def case_name(c):
    parts = [c['algo']]
    if 'split' in c:
        parts.append(c['split'])
    else:
        parts += ['n%d' % c['length'], 's%d' % c['seed'], 'k%d' % c['num_samples']]
    for k in ('batch', 'random_pos'):
        if c.get(k) is not None:
            parts.append('%s%s' % (k, c[k]))
    if c.get('kwargs'):
        parts.append('kw' + hashlib.sha256(json.dumps(c['kwargs'], sort_keys=True).encode()).hexdigest()[:6])
    for k in ('pred_as_input', 'permutations'):
        if c.get(k):
            parts.append(k)
    return '_'.join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ref', required=True, help='prepared copy of shared/tools/clrs-ref')
    ap.add_argument('--out', default=os.path.join(HERE, 'reference'))
    ap.add_argument('--quick', action='store_true', help='skip the full train/test splits')
    ap.add_argument('--splits-only', action='store_true',
                    help='only the full train/test splits, merged into an existing manifest')
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    dump = [sys.executable, os.path.join(HERE, '..', '..', '..', 'scripts', 'numpy_svml.py'), os.path.join(a.ref, 'dump.py')]
    manifest = []
    path = os.path.join(a.out, 'manifest.json')
    if a.splits_only and os.path.exists(path):
        with open(path) as f:
            manifest = [m for m in json.load(f) if m.get('split') not in ('train', 'test')]
    for c in cases(a.quick, a.splits_only):
        name = case_name(c)
        proc = subprocess.run(dump + dump_args(c), capture_output=True)
        if proc.returncode != 0:
            # The reference rejects this setting (e.g. no room for a needle):
            # narlab must reject it too.
            err = proc.stderr.decode().strip().splitlines()[-1]
            manifest.append({k: v for k, v in dict(c, name=name, error=err).items() if k != 'store'})
            print(name, 'ERROR', err, flush=True)
            continue
        out = proc.stdout.rstrip(b'\n')
        entry = dict(c, name=name, sha256=hashlib.sha256(out).hexdigest(), bytes=len(out))
        entry.pop('store', None)
        if c.get('store') and len(out) < 400_000:
            with open(os.path.join(a.out, name + '.json.gz'), 'wb') as raw:
                with gzip.GzipFile(fileobj=raw, mode='wb', compresslevel=9, mtime=0) as f:
                    f.write(out)
            entry['file'] = name + '.json.gz'
        manifest.append(entry)
        print(name, entry['bytes'], entry['sha256'][:12], flush=True)
    with open(path, 'w') as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write('\n')


if __name__ == '__main__':
    main()
