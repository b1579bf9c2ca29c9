"""The arrays narlab's files hold, read by narlab's loader, are those of
dm-clrs's own samplers for the same split: the reference's arrays come
from dm-clrs 2.0.3's samplers run on numpy 1.24.4 (scripts/ref-harness.sh,
scripts/time_reference.py --write --svml: each sampler's batched inputs, hints,
outputs and lengths), compared name by name, dtype, shape and value,
exactly (for all 30 algorithms' val split and every split of bfs and
insertion_sort)."""

import glob
import os

import numpy as np

import narlab


def _ref_files(ref_dir):
    files = sorted(glob.glob(os.path.join(ref_dir, '*', '*.npz')))
    assert len(files) == 30 + 6, files  # val of 30, and train/val/test of 2
    return files


def pytest_generate_tests(metafunc):
    if 'ref_file' in metafunc.fixturenames:
        ref = os.environ.get('NARLAB_TEST_REF', '')
        files = sorted(glob.glob(os.path.join(ref, '*', '*.npz')))
        metafunc.parametrize('ref_file', files, ids=[os.path.relpath(f, ref) for f in files])


def test_reference_files_are_there(ref_dir):
    _ref_files(ref_dir)


def test_same_arrays_as_dmclrs(ref_file, ref_dir, data_dir):
    sub = os.path.basename(os.path.dirname(ref_file))
    algo, split = narlab.parse_file_name(ref_file)
    ds = narlab.load_split(os.path.join(data_dir, sub), algo, split)
    with np.load(ref_file) as z:
        want = {k: z[k] for k in z.files}
    got = {'lengths': ds.lengths}
    got.update({f'{p.stage}/{p.name}': a for p, a in ds.probes()})
    assert sorted(got) == sorted(want)
    for k, w in want.items():
        g = got[k]
        assert (g.dtype, g.shape) == (w.dtype, w.shape), k
        np.testing.assert_array_equal(g, w, err_msg=f'{algo} {split} {k}')
