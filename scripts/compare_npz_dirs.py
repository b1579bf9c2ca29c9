#!/usr/bin/env python3
"""Loads every .npz file of two folders with numpy and compares them array by
array (names, dtypes, shapes, values); prints the zip methods each side uses.
Exits 1 on any difference. The folders are `narlab clrs generate` outputs, or
the reference's arrays written by scripts/time_reference.py --write.

    python3 scripts/compare_npz_dirs.py [--last-bits ALGO,...] DIR_A DIR_B

--last-bits names algorithms whose float arrays may differ in their last bits
(relative difference at most 1e-12): such arrays are counted and listed
apart and do not fail the comparison. scripts/bench_dataset.sh passes the
convex-hull algorithms when it compares with a reference run on a numpy
other than 1.24 on an AVX-512 CPU, where np.sin/np.cos round differently.

scripts/bench_dataset.sh runs it on narlab's deflated (default) and stored
(--compress=false) train split, and on narlab's and the reference's.
"""
import argparse
import glob
import os
import sys
import zipfile

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--last-bits', default='', help='comma-separated algorithms')
    ap.add_argument('a_dir')
    ap.add_argument('b_dir')
    a = ap.parse_args()
    last_bits_ok = set(filter(None, a.last_bits.split(',')))
    files = sorted(glob.glob(os.path.join(a.a_dir, '*.npz')))
    names_b = sorted(os.path.basename(f) for f in glob.glob(os.path.join(a.b_dir, '*.npz')))
    if [os.path.basename(f) for f in files] != names_b or not files:
        print(f'the two folders hold different files: {len(files)} and {len(names_b)}')
        return 1
    methods = {a.a_dir: set(), a.b_dir: set()}
    arrays = bad = 0
    last_bits = []
    for fa in files:
        base = os.path.basename(fa)
        algo = base.rsplit('_', 1)[0]
        fb = os.path.join(a.b_dir, base)
        for d, f in ((a.a_dir, fa), (a.b_dir, fb)):
            methods[d] |= {i.compress_type for i in zipfile.ZipFile(f).infolist()}
        za, zb = np.load(fa), np.load(fb)
        if sorted(za.files) != sorted(zb.files):
            print(f'{fa}: arrays {sorted(za.files)} vs {sorted(zb.files)}')
            bad += 1
            continue
        for k in za.files:
            x, y = za[k], zb[k]
            arrays += 1
            if x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y):
                continue
            if (algo in last_bits_ok and x.dtype == y.dtype == np.float64 and x.shape == y.shape
                    and np.allclose(x, y, rtol=1e-12, atol=0)):
                last_bits.append(f'{algo} {k} (max |diff| {np.abs(x - y).max():.1e})')
                continue
            print(f'{fa}: {k} differs ({x.dtype}{x.shape} vs {y.dtype}{y.shape})')
            bad += 1
    kinds = {0: 'stored', 8: 'deflated'}
    desc = ', '.join(f'{d}: {"/".join(kinds.get(m, str(m)) for m in sorted(ms))}' for d, ms in methods.items())
    line = f'{len(files)} files, {arrays} arrays compared with numpy, {bad} differ'
    if last_bits:
        line += f', {len(last_bits)} differ only in the last bits: ' + '; '.join(last_bits)
    print(f'{line} ({desc})')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
