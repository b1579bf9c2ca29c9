"""narlab's loader on files of `narlab clrs generate`, with NumPy alone."""

import json
import os
import shutil
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import narlab


def test_import_needs_only_numpy():
    # import narlab pulls in neither dm-clrs nor JAX nor PyTorch.
    code = (
        'import sys, narlab; bad = [m for m in ("clrs", "jax", "torch", "torch_geometric") if m in sys.modules]; '
        'sys.exit(f"imported {bad}" if bad else 0)'
    )
    subprocess.run([sys.executable, '-c', code], check=True)


def test_package_is_the_checkout():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    assert os.path.dirname(os.path.abspath(narlab.__file__)) == os.path.join(here, 'narlab')


def test_specs():
    assert len(narlab.CLRS30) == 30 and set(narlab.CLRS30) <= set(narlab.SPECS)
    assert narlab.SPECS['bfs'] == (
        narlab.Probe('pos', 'input', 'node', 'scalar'),
        narlab.Probe('s', 'input', 'node', 'mask_one'),
        narlab.Probe('A', 'input', 'edge', 'scalar'),
        narlab.Probe('adj', 'input', 'edge', 'mask'),
        narlab.Probe('pi', 'output', 'node', 'pointer'),
        narlab.Probe('reach_h', 'hint', 'node', 'mask'),
        narlab.Probe('pi_h', 'hint', 'node', 'pointer'),
    )


def test_load_every_val_file(data_dir):
    manifest = narlab.read_manifest(os.path.join(data_dir, 'val'))
    assert [f['algorithm'] for f in manifest['files']] == list(narlab.CLRS30)
    for entry in manifest['files']:
        ds = narlab.load(os.path.join(data_dir, 'val', entry['file']))
        assert (ds.algorithm, ds.split) == (entry['algorithm'], 'val')
        assert len(ds) == entry['num_samples'] and ds.max_steps == entry['max_steps']
        assert [p for p, _ in ds.probes()] == list(narlab.SPECS[ds.algorithm])
        for p, a in ds.probes():
            if p.stage == 'hint':
                assert a.shape[:2] == (ds.max_steps, len(ds)) and a.dtype == np.float64
            else:
                assert a.shape[0] == len(ds)
        assert ds.lengths.dtype == np.float64 and ds.lengths.max() == ds.max_steps


def test_load_split_and_views(data_dir):
    ds = narlab.load_split(os.path.join(data_dir, 'clrs30'), 'bfs', 'train')
    assert repr(ds).startswith("Dataset('bfs', split='train', samples=1000")
    assert ds.inputs['A'].dtype == np.int64 and ds.inputs['A'].shape == (1000, 16, 16)
    # select keeps all steps, like dm-clrs's Sampler.next(batch_size).
    sub = ds.select([5, 0, 5])
    assert len(sub) == 3 and sub.max_steps == ds.max_steps
    np.testing.assert_array_equal(sub.hints['pi_h'][:, 0], ds.hints['pi_h'][:, 5])
    np.testing.assert_array_equal(sub.inputs['A'][1], ds.inputs['A'][0])
    tr = ds.trajectory(5)
    assert tr['length'] == int(ds.lengths[5]) and tr['hints']['pi_h'].shape == (tr['length'], 16)
    np.testing.assert_array_equal(tr['outputs']['pi'], ds.outputs['pi'][5])
    # Padding past a sample's length is zeros.
    assert not ds.hints['pi_h'][tr['length'] :, 5].any()


def test_batches(data_dir):
    ds = narlab.load(os.path.join(data_dir, 'clrs30', 'insertion_sort_val.npz'))
    sizes = [len(b) for b in ds.batches(10)]
    assert sizes == [10, 10, 10, 2]
    assert [len(b) for b in ds.batches(10, drop_last=True)] == [10, 10, 10]
    seen = np.concatenate([b.inputs['key'] for b in ds.batches(7, shuffle=True, seed=3)])
    assert sorted(map(tuple, seen)) == sorted(map(tuple, ds.inputs['key']))  # a permutation of the samples
    it = ds.batches(20, repeat=True)
    first, second = next(it), next(it)
    # The second batch runs over into the next pass: samples 20..31, then 0..7.
    np.testing.assert_array_equal(
        second.inputs['key'], np.concatenate([ds.inputs['key'][20:], ds.inputs['key'][:8]])
    )
    assert len(first) == len(second) == 20
    with pytest.raises(ValueError):
        ds.batches(0)


def test_algorithm_from_name_or_argument(data_dir, tmp_path):
    src = os.path.join(data_dir, 'clrs30', 'bfs_val.npz')
    # Without a manifest: from the file's name, or given.
    shutil.copy(src, tmp_path / 'bfs_val.npz')
    assert narlab.load(tmp_path / 'bfs_val.npz').algorithm == 'bfs'
    shutil.copy(src, tmp_path / 'mine.npz')
    with pytest.raises(narlab.DatasetError, match='cannot tell the algorithm'):
        narlab.load(tmp_path / 'mine.npz')
    ds = narlab.load(tmp_path / 'mine.npz', algorithm='bfs')
    assert ds.algorithm == 'bfs' and ds.split is None
    # The file of another algorithm.
    with pytest.raises(narlab.DatasetError, match="no array 'input/key'"):
        narlab.load(tmp_path / 'mine.npz', algorithm='insertion_sort')
    with pytest.raises(narlab.DatasetError, match='unknown algorithm'):
        narlab.load(tmp_path / 'mine.npz', algorithm='no_such_algorithm')


def test_torn_and_corrupt_files(data_dir, tmp_path):
    src = os.path.join(data_dir, 'clrs30', 'bfs_val.npz')
    raw = open(src, 'rb').read()
    for frac in (0.0, 0.2, 0.5, 0.8, 0.99):
        p = tmp_path / 'bfs_val.npz'
        p.write_bytes(raw[: int(frac * len(raw))])
        with pytest.raises(narlab.DatasetError, match='torn'):
            narlab.load(p)
    # A flipped byte inside a deflated array: zip's checksum (or inflate) fails.
    with zipfile.ZipFile(src) as z:
        info = z.getinfo('hint/pi_h.npy')
    bad = bytearray(raw)
    bad[info.header_offset + 30 + len(info.filename) + 100] ^= 0xFF
    p = tmp_path / 'bfs_val.npz'
    p.write_bytes(bytes(bad))
    with pytest.raises(narlab.DatasetError, match="'hint/pi_h' cannot be read"):
        narlab.load(p)


def _rewrite(src, dst, drop=(), add=None):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, 'w') as zout:
        for info in zin.infolist():
            if info.filename not in drop:
                zout.writestr(info.filename, zin.read(info.filename))
        for name, data in (add or {}).items():
            zout.writestr(name, data)


def _npy(array):
    import io  # pylint: disable=import-outside-toplevel

    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def test_foreign_archives(data_dir, tmp_path):
    src = os.path.join(data_dir, 'clrs30', 'bfs_val.npz')
    dst = tmp_path / 'bfs_val.npz'
    _rewrite(src, dst, drop=('hint/reach_h.npy',))
    with pytest.raises(narlab.DatasetError, match="no array 'hint/reach_h'"):
        narlab.load(dst)
    _rewrite(src, dst, add={'hint/extra.npy': _npy(np.zeros(3))})
    with pytest.raises(narlab.DatasetError, match='not probes of bfs: hint/extra'):
        narlab.load(dst)
    _rewrite(src, dst, add={'notes.txt': b'hi'})
    with pytest.raises(narlab.DatasetError, match="'notes.txt' is not a .npy array"):
        narlab.load(dst)
    _rewrite(src, dst, drop=('lengths.npy',), add={'lengths.npy': _npy(np.full(32, 1.5))})
    with pytest.raises(narlab.DatasetError, match='whole numbers of steps'):
        narlab.load(dst)
    _rewrite(src, dst, drop=('lengths.npy',), add={'lengths.npy': _npy(np.ones(31))})
    with pytest.raises(narlab.DatasetError, match='B = 31'):
        narlab.load(dst)
    _rewrite(src, dst, drop=('lengths.npy',), add={'lengths.npy': _npy(np.ones(32, dtype=np.int32))})
    with pytest.raises(narlab.DatasetError, match='dtype int32'):
        narlab.load(dst)
    dst.write_bytes(b'not a zip file at all')
    with pytest.raises(narlab.DatasetError, match='not a readable .npz archive'):
        narlab.load(dst)


def test_manifest_checks(data_dir, tmp_path):
    src = os.path.join(data_dir, 'clrs30')
    shutil.copy(os.path.join(src, 'bfs_val.npz'), tmp_path)
    m = json.load(open(os.path.join(src, 'manifest.json')))
    entry = next(f for f in m['files'] if f['file'] == 'bfs_val.npz')

    def write(files):
        (tmp_path / 'manifest.json').write_text(
            json.dumps({'generator': 'narlab clrs generate', 'files': files})
        )

    write([entry])
    assert len(narlab.load_split(tmp_path, 'bfs', 'val')) == 32
    write([dict(entry, max_steps=entry['max_steps'] + 1)])
    with pytest.raises(narlab.DatasetError, match='manifest entry says'):
        narlab.load_split(tmp_path, 'bfs', 'val')
    write([dict(entry, algorithm='dfs')])
    with pytest.raises(narlab.DatasetError, match='lists it as dfs/val'):
        narlab.load_split(tmp_path, 'bfs', 'val')
    write([])
    with pytest.raises(narlab.DatasetError, match='not listed'):
        narlab.load_split(tmp_path, 'bfs', 'val')
    (tmp_path / 'manifest.json').write_text('{not json')
    with pytest.raises(narlab.DatasetError, match='not a manifest'):
        narlab.load_split(tmp_path, 'bfs', 'val')


def test_dmclrs_missing_says_how_to_install(data_dir):
    # In an environment without dm-clrs, the conversion fails at once and says what to install.
    code = f'''
import sys, narlab
sys.modules["clrs"] = None  # as if dm-clrs were not installed
ds = narlab.load({os.path.join(data_dir, "clrs30", "bfs_val.npz")!r})
for call in (ds.feedback, lambda: ds.feedback_batches(8)):
    try:
        call()
    except ImportError as e:
        assert "pip install dm-clrs==2.0.3" in str(e) and 'install "narlab[dmclrs]"' not in str(e), e
    else:
        sys.exit("no ImportError")
'''
    subprocess.run([sys.executable, '-c', code], check=True)


def test_pyg_missing_says_how_to_install(data_dir):
    code = f'''
import sys, narlab
sys.modules["torch"] = None  # as if PyTorch were not installed
ds = narlab.load({os.path.join(data_dir, "clrs30", "bfs_val.npz")!r})
try:
    ds.pyg()
except ImportError as e:
    for install in ("pip install torch --index-url https://download.pytorch.org/whl/cpu", "pip install torch-geometric==2.8.1"):
        assert install in str(e), e
else:
    sys.exit("no ImportError")
'''
    subprocess.run([sys.executable, '-c', code], check=True)


def test_files_of_settings_of_ones_own(data_dir, tmp_path):
    """narlab clrs generate --lengths 12 --seeds 4,5 --count 9 --algos bfs:
    ALGO_nLENGTH_sSEED.npz files, listed in the manifest with their setting."""
    d = os.path.join(data_dir, 'custom')
    m = narlab.read_manifest(d)
    assert sorted(f['file'] for f in m['files']) == ['bfs_n12_s4.npz', 'bfs_n12_s5.npz']
    a = narlab.load_split(d, 'bfs', 'n12_s4')
    b = narlab.load(os.path.join(d, 'bfs_n12_s5.npz'))
    assert (len(a), a.split, a.inputs['A'].shape) == (9, 'n12_s4', (9, 12, 12))
    assert (b.algorithm, b.split) == ('bfs', 'n12_s5')
    assert not np.array_equal(a.inputs['A'], b.inputs['A'])  # another seed, other graphs
    with pytest.raises(narlab.DatasetError, match='not listed'):
        narlab.load_split(d, 'bfs', 'n12_s6')
    # Without the manifest, the name still tells algorithm and setting.
    shutil.copy(os.path.join(d, 'bfs_n12_s4.npz'), tmp_path / 'bfs_n12_s4.npz')
    assert narlab.parse_file_name('bfs_n12_s4.npz') == ('bfs', 'n12_s4')
    assert narlab.load(tmp_path / 'bfs_n12_s4.npz').split == 'n12_s4'
    with pytest.raises(ValueError, match='unknown split'):
        narlab.load_split(str(tmp_path), 'bfs', 'n12_s4')


def test_features_and_save(data_dir, tmp_path):
    ds = narlab.load_split(os.path.join(data_dir, 'clrs30'), 'insertion_sort', 'val')
    f = ds.features()
    assert list(f) == ['input/pos', 'input/key', 'hint/pred_h', 'hint/i', 'hint/j', 'lengths']
    assert f['hint/pred_h'] is ds.hints['pred_h'] and f['lengths'] is ds.lengths
    ds.save(tmp_path / 'insertion_sort_val.npz')
    back = narlab.load(tmp_path / 'insertion_sort_val.npz')
    for p, a in ds.probes():
        got = dict(back.probes())[p]
        assert got.dtype == a.dtype and np.array_equal(got, a), p.name
    assert np.array_equal(back.lengths, ds.lengths)
