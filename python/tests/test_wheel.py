"""Runs in a new virtual environment where narlab's wheel is installed and no
Go toolchain is on PATH (python/wheel_test.go makes it): the package and its
binary come from the wheel, and the data it makes equal, bit for bit, the
files NARLAB_TEST_GO holds, which the Go test wrote with lib/clrs itself
for the same settings."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import narlab
from narlab import cli


@pytest.fixture(scope='session')
def go_dir():
    d = os.environ.get('NARLAB_TEST_GO')
    if not d or not os.path.isdir(d):
        raise RuntimeError('NARLAB_TEST_GO is not set to a directory: run with go test -run TestWheel ./python')
    return d


def _assert_same_file(got, want_path):
    with np.load(want_path) as z:
        want = {k: z[k] for k in z.files}
    assert sorted(got) == sorted(want)
    for k, w in want.items():
        g = got[k]
        assert (g.dtype, g.shape) == (w.dtype, w.shape), k
        # Bit for bit: the same bytes, NaN and signed zeros included.
        assert g.tobytes() == w.tobytes(), k


def _arrays(ds):
    out = {f'{p.stage}/{p.name}': a for p, a in ds.probes()}
    out['lengths'] = ds.lengths
    return out


def test_installed_from_the_wheel_without_go():
    assert shutil.which('go') is None, 'go is on PATH'
    assert os.path.realpath(narlab.__file__).startswith(os.path.realpath(sys.prefix)), narlab.__file__
    exe = cli.binary()
    assert exe == os.path.join(os.path.dirname(narlab.__file__), 'bin', 'narlab')
    # The narlab command on PATH is the package's, and runs the binary.
    cmd = shutil.which('narlab')
    assert cmd and os.path.realpath(cmd).startswith(os.path.realpath(sys.prefix)), cmd
    out = subprocess.run(['narlab', 'version', '--format', 'json'], capture_output=True, text=True, check=True).stdout
    v = json.loads(out)
    assert v['module'] == 'github.com/narlab/narlab'


@pytest.mark.parametrize('algo,length,seed,count,kwargs', [
    ('bfs', 24, 3, 5, {'p': [0.2]}),
    ('jarvis_march', 9, 4, 6, None),
    ('quickselect', 33, 0, 3, None),
])
def test_sample_equals_go_library(go_dir, algo, length, seed, count, kwargs):
    ds = narlab.sample(algo, length=length, seed=seed, count=count, kwargs=kwargs)
    assert len(ds) == count and ds.inputs['pos'].shape[1] >= 1
    _assert_same_file(_arrays(ds), os.path.join(go_dir, f'sample_{algo}_n{length}_s{seed}.npz'))


def test_generate_equals_go_library(go_dir, tmp_path):
    algos = ['insertion_sort', 'floyd_warshall', 'graham_scan']
    m = narlab.generate(str(tmp_path / 'g'), algos, lengths=[5, 12], seeds=[2, 9], count=7, workers=2)
    assert len(m['files']) == 12
    for f in m['files']:
        ds = narlab.load_split(str(tmp_path / 'g'), f['algorithm'], f['split'])
        assert len(ds) == 7 and ds.split == f['split'] == f"n{f['length']}_s{f['seed']}", f
        _assert_same_file(_arrays(ds), os.path.join(go_dir, 'generate_' + f['file']))


def test_official_split_equals_go_library(go_dir, tmp_path):
    m = narlab.generate(str(tmp_path / 'o'), ['dfs'], split='val')
    assert [f['file'] for f in m['files']] == ['dfs_val.npz']
    _assert_same_file(_arrays(narlab.load_split(str(tmp_path / 'o'), 'dfs', 'val')), os.path.join(go_dir, 'split_dfs_val.npz'))


def test_errors_name_what_was_wrong(tmp_path):
    with pytest.raises(cli.NarlabError, match='unknown algorithm "nosuch"'):
        narlab.sample('nosuch')
    with pytest.raises(cli.NarlabError, match='--lengths'):
        narlab.generate(str(tmp_path / 'x'), ['bfs'], lengths=[0])
    assert not (tmp_path / 'x').exists()
