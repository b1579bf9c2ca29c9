#!/usr/bin/env python3
"""Loads every .npz file of two `narlab clrs generate` outputs with numpy and
compares them array by array (names, dtypes, shapes, values); prints the zip
methods each side uses. Exits 1 on any difference.

    python3 scripts/compare_npz_dirs.py DIR_A DIR_B

scripts/bench_dataset.sh runs it on the deflated (default) and stored
(--compress=false) train split.
"""
import glob
import os
import sys
import zipfile

import numpy as np


def main():
    a_dir, b_dir = sys.argv[1:3]
    files = sorted(glob.glob(os.path.join(a_dir, '*.npz')))
    names_b = sorted(os.path.basename(f) for f in glob.glob(os.path.join(b_dir, '*.npz')))
    if [os.path.basename(f) for f in files] != names_b or not files:
        print(f'the two folders hold different files: {len(files)} and {len(names_b)}')
        return 1
    methods = {a_dir: set(), b_dir: set()}
    arrays = bad = 0
    for fa in files:
        fb = os.path.join(b_dir, os.path.basename(fa))
        for d, f in ((a_dir, fa), (b_dir, fb)):
            methods[d] |= {i.compress_type for i in zipfile.ZipFile(f).infolist()}
        za, zb = np.load(fa), np.load(fb)
        if za.files != zb.files:
            print(f'{fa}: arrays {za.files} vs {zb.files}')
            bad += 1
            continue
        for k in za.files:
            x, y = za[k], zb[k]
            arrays += 1
            if x.dtype != y.dtype or x.shape != y.shape or not np.array_equal(x, y):
                print(f'{fa}: {k} differs ({x.dtype}{x.shape} vs {y.dtype}{y.shape})')
                bad += 1
    kinds = {0: 'stored', 8: 'deflated'}
    desc = ', '.join(f'{d}: {"/".join(kinds.get(m, str(m)) for m in sorted(ms))}' for d, ms in methods.items())
    print(f'{len(files)} files, {arrays} arrays compared with numpy, {bad} differ ({desc})')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
