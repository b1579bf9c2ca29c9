"""narlab's CLRS-30 data, models and command from Python.

``narlab clrs generate --out DIR`` writes each CLRS-30 split of each
algorithm as ``DIR/ALGO_SPLIT.npz`` (one array per probe: ``input/NAME``,
``hint/NAME``, ``output/NAME``, and ``lengths``) beside a ``manifest.json``;
with ``--lengths``, ``--seeds``, ``--count`` it writes samples of any size
(``DIR/ALGO_nLENGTH_sSEED.npz``). This package reads them back:

* as NumPy arrays (:func:`load`, :func:`load_split` → :class:`Dataset`),
  needing nothing but numpy;
* as dm-clrs ``Feedback`` batches (:meth:`Dataset.feedback`,
  :meth:`Dataset.feedback_batches`; dm-clrs is imported only then);
* as PyTorch Geometric ``Data`` graphs (:meth:`Dataset.pyg`,
  :mod:`narlab.pyg`; torch and torch_geometric are imported only then).

With the narlab binary (the wheel of ``make wheel`` carries it;
:mod:`narlab.cli`) it also makes them and trains: :func:`generate`,
:func:`sample`, :func:`train`, :func:`evaluate`, :func:`predict`; and
MLflow loads the models narlab logs (:mod:`narlab.pyfunc`).

The arrays are those of dm-clrs's own samplers for the same split (narlab's
samplers are an exact port): inputs and outputs ``[B, ...]``, hints
``[T, B, ...]`` zero-padded to the split's longest trajectory, ``lengths``
float64 ``[B]``; inputs and outputs keep dm-clrs's dtypes (int64 or
float64), hints are float64. The archives do not store the probes'
locations and types; they come from the algorithm's spec, shipped with
this package (``specs.json``, written from narlab's Go specs, which equal
dm-clrs's ``clrs.SPECS``).
"""

import collections
import json
import os
import zipfile
from importlib import resources

import numpy as np

__version__ = '0.1.0'

__all__ = [
    'Dataset',
    'DatasetError',
    'Probe',
    'SPECS',
    'CLRS30',
    'SPLITS',
    'load',
    'load_split',
    'read_manifest',
    'generate',
    'sample',
    'train',
    'evaluate',
    'predict',
]


def generate(out, algorithms=None, **kwargs):
    """Writes datasets with the narlab binary (see :func:`narlab.cli.generate`)."""
    from narlab import cli  # pylint: disable=import-outside-toplevel

    return cli.generate(out, algorithms, **kwargs)


def sample(algorithm, length=16, seed=0, count=1, kwargs=None):
    """Samples of any length, seed and count as a :class:`Dataset` (see :func:`narlab.cli.sample`)."""
    from narlab import cli  # pylint: disable=import-outside-toplevel

    return cli.sample(algorithm, length=length, seed=seed, count=count, kwargs=kwargs)


def train(algorithm, **options):
    """Trains a CLRS baseline (see :func:`narlab.cli.train`)."""
    from narlab import cli  # pylint: disable=import-outside-toplevel

    return cli.train(algorithm, **options)


def evaluate(checkpoint, data=None, **options):
    """Scores a checkpoint (see :func:`narlab.cli.evaluate`)."""
    from narlab import cli  # pylint: disable=import-outside-toplevel

    return cli.evaluate(checkpoint, data, **options)


def predict(checkpoint, model_input):
    """A checkpoint's predictions on a batch (see :func:`narlab.cli.predict`)."""
    from narlab import cli  # pylint: disable=import-outside-toplevel

    return cli.predict(checkpoint, model_input)

Probe = collections.namedtuple('Probe', ['name', 'stage', 'location', 'type'])
Probe.__doc__ = "One probe of an algorithm's spec, as dm-clrs names them ('input', 'node', 'mask_one', ...)."

SPLITS = ('train', 'val', 'test')


def _read_specs():
    raw = json.loads(resources.files(__name__).joinpath('specs.json').read_text())
    specs = {algo: tuple(Probe(*p) for p in probes) for algo, probes in raw['specs'].items()}
    return specs, tuple(raw['clrs30'])


# SPECS: algorithm -> its probes (tuple of Probe) in dm-clrs's spec order;
# CLRS30: the 30 algorithms of CLRS-30 in dm-clrs's CLRS_30_ALGS order.
SPECS, CLRS30 = _read_specs()

_DTYPES = (np.dtype('float64'), np.dtype('int64'), np.dtype('float32'))


class DatasetError(ValueError):
    """A file that is not a readable narlab dataset: torn, corrupt, or not of the algorithm."""


class Dataset:
    """One algorithm's samples, as NumPy arrays in dm-clrs's batched layout.

    Attributes:
      algorithm: the algorithm's name (e.g. ``'bfs'``).
      split: ``'train'``, ``'val'``, ``'test'`` or None when unknown.
      spec: the algorithm's probes (:class:`Probe`) in dm-clrs's order.
      inputs, hints, outputs: ``{name: array}`` in spec order; inputs and
        outputs ``[B, ...]``, hints ``[T, B, ...]``.
      lengths: float64 ``[B]``, each sample's number of hint steps.
      path: the file read, or None.
    """

    def __init__(self, algorithm, spec, inputs, hints, outputs, lengths, split=None, path=None):
        self.algorithm, self.spec, self.split, self.path = algorithm, tuple(spec), split, path
        self.inputs, self.hints, self.outputs, self.lengths = inputs, hints, outputs, lengths

    def __len__(self):
        return int(self.lengths.shape[0])

    def __repr__(self):
        where = f', {self.path!r}' if self.path else ''
        return f'Dataset({self.algorithm!r}, split={self.split!r}, samples={len(self)}, max_steps={self.max_steps}{where})'

    @property
    def max_steps(self):
        """T, the hint arrays' time axis (the longest sample's number of steps)."""
        return int(next(iter(self.hints.values())).shape[0]) if self.hints else 0

    def probes(self, stage=None):
        """Yields ``(Probe, array)`` in spec order, of one stage or all."""
        arrays = {'input': self.inputs, 'hint': self.hints, 'output': self.outputs}
        for p in self.spec:
            if stage is None or p.stage == stage:
                yield p, arrays[p.stage][p.name]

    def select(self, indices):
        """The samples at ``indices`` (in that order; repeats allowed) as a new Dataset.

        As with dm-clrs's ``Sampler.next(batch_size)``, which subsamples its
        batched dataset, the hints keep all ``max_steps`` steps.
        """
        idx = np.asarray(indices, dtype=np.int64)
        if idx.ndim != 1 or idx.size == 0:
            raise ValueError('select needs a non-empty list of sample indices')
        if idx.min() < -len(self) or idx.max() >= len(self):
            raise IndexError(f'sample index out of range for {len(self)} samples')
        return Dataset(
            self.algorithm,
            self.spec,
            {k: v[idx] for k, v in self.inputs.items()},
            {k: v[:, idx] for k, v in self.hints.items()},
            {k: v[idx] for k, v in self.outputs.items()},
            self.lengths[idx],
            split=self.split,
        )

    def batches(self, batch_size, *, shuffle=False, seed=None, repeat=False, drop_last=False):
        """Yields Datasets of ``batch_size`` consecutive samples.

        With ``shuffle``, each pass visits the samples in a new order drawn from
        ``numpy.random.RandomState(seed)``. With ``repeat``, passes follow each
        other forever and a batch may span two of them (as dm-clrs's
        ``create_dataset``: ``dataset.repeat().batch(batch_size)``); otherwise
        one pass, whose last batch is smaller unless ``drop_last``.
        """
        if batch_size < 1:
            raise ValueError(f'batch size must be at least 1, got {batch_size}')
        return (
            self.select(idx)
            for idx in _batch_indices(len(self), batch_size, shuffle, seed, repeat, drop_last)
        )

    def trajectory(self, i):
        """Sample ``i`` as a dict: ``inputs``, ``hints`` (cut to its own
        length, ``[t, ...]``), ``outputs`` and ``length``."""
        i = range(len(self))[i]
        n = int(self.lengths[i])
        return {
            'inputs': {k: v[i] for k, v in self.inputs.items()},
            'hints': {k: v[:n, i] for k, v in self.hints.items()},
            'outputs': {k: v[i] for k, v in self.outputs.items()},
            'length': n,
        }

    def features(self):
        """The batch's features, what a model predicts from (dm-clrs's
        ``BaselineModel.predict`` takes them; so does the predict of narlab's
        MLflow models, :mod:`narlab.pyfunc`): ``{'input/NAME': [B, ...],
        'hint/NAME': [T, B, ...], 'lengths': [B]}``, the file's arrays
        without its outputs."""
        out = {f'{p.stage}/{p.name}': a for p, a in self.probes() if p.stage != 'output'}
        out['lengths'] = self.lengths
        return out

    def save(self, path):
        """Writes the samples as an ``.npz`` file in narlab's layout (what
        :func:`load` reads, and ``narlab eval --data`` scores)."""
        arrays = {f'{p.stage}/{p.name}': a for p, a in self.probes()}
        arrays['lengths'] = self.lengths
        np.savez_compressed(path, **arrays)

    def feedback(self):
        """All samples as one dm-clrs ``clrs.Feedback`` (see :mod:`narlab.dmclrs`)."""
        from narlab import dmclrs  # pylint: disable=import-outside-toplevel

        return dmclrs.to_feedback(self)

    def feedback_batches(self, batch_size, **kwargs):
        """dm-clrs ``Feedback`` batches; keyword arguments as :meth:`batches`
        (``repeat`` defaults to True, as dm-clrs's ``create_dataset``)."""
        from narlab import dmclrs  # pylint: disable=import-outside-toplevel

        return dmclrs.feedback_batches(self, batch_size, **kwargs)

    def pyg(self, **kwargs):
        """Every sample as a PyTorch Geometric graph (a list; see :func:`narlab.pyg.to_data`)."""
        from narlab import pyg  # pylint: disable=import-outside-toplevel

        return pyg.to_data_list(self, **kwargs)


def _batch_indices(n, batch_size, shuffle, seed, repeat, drop_last):
    rng = np.random.RandomState(seed) if shuffle else None

    def one_pass():
        return rng.permutation(n) if shuffle else np.arange(n)

    if not repeat:
        order = one_pass()
        for lo in range(0, n, batch_size):
            idx = order[lo : lo + batch_size]
            if len(idx) < batch_size and drop_last:
                return
            yield idx
        return
    pending = np.empty(0, dtype=np.int64)
    while True:
        while len(pending) < batch_size:
            pending = np.concatenate([pending, one_pass()])
        yield pending[:batch_size]
        pending = pending[batch_size:]


def read_manifest(directory):
    """The ``manifest.json`` of a ``narlab clrs generate`` output directory, as a dict."""
    path = os.path.join(directory, 'manifest.json')
    try:
        with open(path) as f:
            m = json.load(f)
    except json.JSONDecodeError as e:
        raise DatasetError(f'{path}: not a manifest of narlab clrs generate: {e}') from e
    if not isinstance(m, dict) or not isinstance(m.get('files'), list):
        raise DatasetError(f'{path}: not a manifest of narlab clrs generate (no "files" list)')
    return m


def parse_file_name(name):
    """``('bfs', 'train')`` for ``'bfs_train.npz'``, ``('bfs', 'n32_s7')`` for
    ``'bfs_n32_s7.npz'``, as ``narlab clrs generate`` names files (ALGO_SPLIT,
    or ALGO_NAME for a setting of one's own)."""
    stem, ext = os.path.splitext(os.path.basename(name))
    if ext == '.npz':
        # The longest algorithm name that starts the stem (dfs is a prefix of none, but be exact).
        for algo in sorted(SPECS, key=len, reverse=True):
            rest = stem[len(algo) + 1 :]
            if stem.startswith(algo + '_') and rest and all(c.isalnum() or c in '-_' for c in rest):
                return algo, rest
    raise DatasetError(
        f'cannot tell the algorithm and split from the file name {os.path.basename(name)!r}: want '
        'ALGO_SPLIT.npz (or ALGO_NAME.npz) as narlab clrs generate names its files, or pass algorithm='
    )


def load(path, algorithm=None):
    """Reads one ``.npz`` file written by narlab into a :class:`Dataset`.

    The algorithm is ``algorithm`` if given, else the file's entry in the
    ``manifest.json`` beside it, else its name (``ALGO_SPLIT.npz``). The file
    must hold exactly the arrays of that algorithm's spec, with consistent
    batch and time axes; a torn, corrupt or foreign file raises
    :class:`DatasetError` saying what was wrong.
    """
    path = os.fspath(path)
    split = None
    entry = _manifest_entry(path)
    if entry is not None:
        split = entry.get('split')
        if algorithm is None:
            algorithm = entry.get('algorithm')
    if algorithm is None:
        algorithm, split = parse_file_name(path)
    elif split is None:
        try:
            named, split = parse_file_name(path)
            if named != algorithm:
                split = None
        except DatasetError:
            pass
    if algorithm not in SPECS:
        raise DatasetError(f'unknown algorithm {algorithm!r} (known: {", ".join(sorted(SPECS))})')
    spec = SPECS[algorithm]
    arrays = _read_arrays(path, algorithm, spec)
    return _check(arrays, algorithm, spec, split, path)


def load_split(directory, algorithm, split):
    """Reads ``DIRECTORY/ALGO_SPLIT.npz`` as written by ``narlab clrs generate``,
    checking it against the directory's ``manifest.json`` when there is one
    (listed, same algorithm, split, number of samples and hint steps).
    ``split`` is train, val or test, or the name of a setting of one's own
    (``'n32_s7'``, or ``--name``), which must be listed in the manifest."""
    if split not in SPLITS and not os.path.exists(os.path.join(directory, 'manifest.json')):
        raise ValueError(
            f'unknown split {split!r}: want train, val or test, or a setting named in {directory}/manifest.json'
        )
    if algorithm not in SPECS:
        raise DatasetError(f'unknown algorithm {algorithm!r} (known: {", ".join(sorted(SPECS))})')
    name = f'{algorithm}_{split}.npz'
    path = os.path.join(directory, name)
    entry = None
    if os.path.exists(os.path.join(directory, 'manifest.json')):
        entry = next((f for f in read_manifest(directory)['files'] if f.get('file') == name), None)
        if entry is None:
            raise DatasetError(
                f'{name} is not listed in {os.path.join(directory, "manifest.json")}: '
                'not a file of that run of narlab clrs generate'
            )
        if entry.get('algorithm') != algorithm or entry.get('split') != split:
            raise DatasetError(
                f'{name}: the manifest lists it as {entry.get("algorithm")}/{entry.get("split")}'
            )
    ds = load(path, algorithm)
    ds.split = split
    if entry is not None and (entry.get('num_samples') != len(ds) or entry.get('max_steps') != ds.max_steps):
        raise DatasetError(
            f'{path} holds {len(ds)} samples of {ds.max_steps} steps; its manifest entry says '
            f'{entry.get("num_samples")} of {entry.get("max_steps")}'
        )
    return ds


def _manifest_entry(path):
    directory, name = os.path.split(os.path.abspath(path))
    if not os.path.exists(os.path.join(directory, 'manifest.json')):
        return None
    return next((f for f in read_manifest(directory)['files'] if f.get('file') == name), None)


def _read_arrays(path, algorithm, spec):
    torn = 'a torn, partial or corrupt file? Write it again'
    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
    except zipfile.BadZipFile as e:
        raise DatasetError(f'{path}: not a readable .npz archive ({e}); {torn}') from e
    members = {}
    for n in names:
        if not n.endswith('.npy'):
            raise DatasetError(f'{path}: archive member {n!r} is not a .npy array')
        members[n[:-4]] = n
    want = ['lengths'] + [f'{p.stage}/{p.name}' for p in spec]
    missing = [n for n in want if n not in members]
    if missing:
        raise DatasetError(
            f'{path}: no array {missing[0]!r}: an archive of {algorithm} holds {", ".join(want)}'
        )
    extra = sorted(set(members) - set(want))
    if extra:
        raise DatasetError(f'{path}: arrays that are not probes of {algorithm}: {", ".join(extra)}')
    arrays = {}
    current = None
    try:
        with np.load(path, allow_pickle=False) as z:
            for current in want:
                arrays[current] = z[current]
    except (zipfile.BadZipFile, ValueError, EOFError, OSError) as e:
        raise DatasetError(f'{path}: array {current!r} cannot be read ({e}); {torn}') from e
    for n, a in arrays.items():
        if a.dtype not in _DTYPES:
            raise DatasetError(
                f'{path}: {n} has dtype {a.dtype}, not one narlab writes (float64, int64, float32)'
            )
    return arrays


def _check(arrays, algorithm, spec, split, path):
    lengths = arrays['lengths']
    if lengths.ndim != 1 or lengths.shape[0] == 0 or lengths.dtype != np.float64:
        raise DatasetError(
            f'{path}: lengths is {lengths.dtype}{list(lengths.shape)}, want float64 [B] with B >= 1'
        )
    if np.any(lengths < 1) or np.any(lengths != np.floor(lengths)):
        raise DatasetError(
            f'{path}: lengths holds {lengths[(lengths < 1) | (lengths != np.floor(lengths))][0]}, '
            'want whole numbers of steps >= 1'
        )
    B = lengths.shape[0]
    T = None
    out = {'input': {}, 'hint': {}, 'output': {}}
    for p in spec:
        name = f'{p.stage}/{p.name}'
        a = arrays[name]
        axis = 1 if p.stage == 'hint' else 0
        if a.ndim <= axis or a.shape[axis] != B:
            want = '[T, B, ...]' if p.stage == 'hint' else '[B, ...]'
            raise DatasetError(
                f'{path}: {name} has shape {list(a.shape)}, want {want} with B = {B} (the length of lengths)'
            )
        if p.stage == 'hint':
            if T is None:
                T = a.shape[0]
                if T < lengths.max():
                    raise DatasetError(f'{path}: {name} has {T} steps but lengths holds {int(lengths.max())}')
            elif a.shape[0] != T:
                raise DatasetError(f'{path}: {name} has {a.shape[0]} steps, other hints {T}')
        out[p.stage][p.name] = a
    return Dataset(algorithm, spec, out['input'], out['hint'], out['output'], lengths, split=split, path=path)
