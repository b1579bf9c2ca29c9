#!/usr/bin/env python3
"""Times the reference CLRS samplers (dm-clrs) on the whole CLRS-30 dataset.

For each algorithm and split (train, val, test) it builds the reference
sampler with the CLRS-30 settings (length, seed, number of samples, times the
algorithm's multiplier for val and test) -- which is where the reference
generates every trajectory -- and prints one tab-separated line per
(split, algorithm) and the totals. Run it with a prepared reference harness
(see ../shared/tools/clrs-ref; `setup.sh pip`):

    python3 scripts/time_reference.py --ref /tmp/clrs-ref [--splits train,val,test] [--algos a,b] [--write DIR]

With --write DIR it also saves each sampler's batched arrays with
numpy.savez_compressed as DIR/ALGO_SPLIT.npz, named as `narlab clrs generate`
names them (input/NAME, hint/NAME, output/NAME, lengths), and prints the time
that takes on separate lines starting with "write" (not counted in the totals).
With --svml it evaluates np.cos/np.sin as the project's fixtures' platform did
(scripts/numpy_svml.py: numpy 1.24 on AVX-512), so that the convex-hull
samplers' arrays are the fixtures' bit for bit on any x86-64 CPU; the
emulation is slow, so its times are not the reference's.

`make bench-dataset` runs it beside `narlab clrs generate --split all`.
"""
import argparse
import os
import sys
import time
import types


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ref', required=True, help='prepared copy of shared/tools/clrs-ref')
    ap.add_argument('--splits', default='train,val,test')
    ap.add_argument('--algos', default='')
    ap.add_argument('--write', default='', help='folder for the arrays as .npz (numpy.savez_compressed)')
    ap.add_argument('--svml', action='store_true',
                    help="np.cos/np.sin as the fixtures' numpy 1.24 on AVX-512 (exact emulation; not for timing)")
    a = ap.parse_args()
    if a.svml:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import numpy_svml
        numpy_svml.install()
    sys.path.insert(0, os.path.join(a.ref, 'stubs'))
    sys.path.insert(1, a.ref)
    pkg = types.ModuleType('clrs')
    pkg.__path__ = [os.path.join(a.ref, 'clrs')]
    sys.modules['clrs'] = pkg
    from clrs._src import samplers, specs
    if a.write:
        os.makedirs(a.write, exist_ok=True)
    algos = a.algos.split(',') if a.algos else list(specs.CLRS_30_ALGS)
    grand = 0.0
    for split in a.splits.split(','):
        cfg = samplers.CLRS30[split]
        total = written = 0.0
        for algo in algos:
            n = cfg['num_samples']
            if split != 'train':
                n *= specs.CLRS_30_ALGS_SETTINGS[algo]['num_samples_multiplier']
            t = time.perf_counter()
            sampler, _ = samplers.build_sampler(algo, num_samples=n, length=cfg['length'], seed=cfg['seed'])
            dt = time.perf_counter() - t
            total += dt
            print(f'{split}\t{algo}\t{n}\t{cfg["length"]}\t{dt:.3f}s', flush=True)
            if a.write:
                wt = write_npz(os.path.join(a.write, f'{algo}_{split}.npz'), sampler)
                written += wt
                print(f'write\t{split}\t{algo}\t{wt:.3f}s', flush=True)
        print(f'{split}\tTOTAL\t\t\t{total:.2f}s', flush=True)
        if a.write:
            print(f'write\t{split}\tTOTAL\t{written:.2f}s', flush=True)
        grand += total
    print(f'ALL\tTOTAL\t\t\t{grand:.2f}s', flush=True)


def write_npz(path, sampler):
    """Saves the sampler's batched feedback (the reference's own arrays)
    with numpy.savez_compressed and returns the seconds it took."""
    import numpy as np
    arrays = {}
    for prefix, dps in (('input/', sampler._inputs), ('hint/', sampler._hints), ('output/', sampler._outputs)):
        for dp in dps:
            arrays[prefix + dp.name] = dp.data
    arrays['lengths'] = sampler._lengths
    t = time.perf_counter()
    np.savez_compressed(path, **arrays)
    return time.perf_counter() - t


if __name__ == '__main__':
    main()
