"""narlab datasets as PyTorch Geometric graphs.

torch and torch_geometric are imported when this module is (``import
narlab`` does not import it). Each sample becomes one :class:`CLRSData` (a
``torch_geometric.data.Data``) with:

``num_nodes``
  N, the algorithm's number of nodes (the ``pos`` input's width).
``edge_index`` ``[2, E]`` (long)
  ``edges='complete'`` (the default): every ordered pair (i, j), self-loops
  included, row-major (edge ``e = i*N + j``), so every edge probe keeps all
  its entries; this is the graph dm-clrs's MPNN passes messages on. The
  sample's own graph is the edges whose ``input_adj`` is 1 (graph
  algorithms; ``adj`` has the diagonal set, as in dm-clrs). ``edges='adj'``:
  only the pairs where ``adj`` is non-zero (needs an ``adj`` input); edge
  probes then lose their entries off the graph (Floyd-Warshall's ``Pi``,
  for one). ``edge_index[0]`` is i, the row of dm-clrs's ``[N, N]`` arrays
  (``A[i, j]`` is the edge i -> j), ``edge_index[1]`` is j.
``x`` ``[N, F]``, ``edge_attr`` ``[E, F']``
  The node inputs and the edge inputs, concatenated in spec order (one
  column per scalar, mask or mask_one probe, C per categorical one);
  :func:`feature_columns` names the columns. ``edge_attr`` is absent when the
  algorithm has no edge input. Graph inputs (binary_search's ``target``)
  are kept apart, as below.
``input_NAME``, ``hint_NAME``, ``output_NAME``
  Every probe, by location: node probes ``[N, ...]``, edge probes
  ``[E, ...]`` (taken at ``edge_index``), graph probes ``[1, ...]``; hints
  carry time as their second axis (``[N, T, ...]``, ``[E, T, ...]``,
  ``[1, T, ...]``) with T the file's, zero-padded past the sample's
  ``length``, so that graphs of one file batch together. Categorical probes
  keep their class axis last.
``length`` ``[1]`` (long)
  The sample's number of hint steps.
``algorithm``
  The algorithm's name.

Dtypes: pointer probes (``pointer``, ``should_be_permutation``) hold node
indices and are long; everything else is ``float_dtype`` (float32 unless
asked). Batching (``torch_geometric.loader.DataLoader``) concatenates along
the first axis and, like ``edge_index``, offsets pointer probes by the
number of nodes before each graph, so in a ``Batch`` they index
``batch.num_nodes``; subtract ``batch.ptr[batch.batch]`` (node probes) for
indices within each graph.
"""

import numpy as np

try:
    import torch
except ImportError as e:
    raise ImportError(
        'narlab.pyg needs torch (then torch-geometric). On a machine without an NVIDIA card, PyTorch\'s CPU build'
        ': pip install torch --index-url https://download.pytorch.org/whl/cpu ; '
        'from PyPI alone: pip install torch (it brings NVIDIA\'s CUDA libraries, gigabytes). '
        'Then: pip install torch-geometric==2.8.1 (docs/python.md, "Installing")'
    ) from e
try:
    from torch_geometric.data import Data
except ImportError as e:
    raise ImportError(
        'narlab.pyg needs torch_geometric: pip install torch-geometric==2.8.1 (what the extra of narlab\'s wheel, '
        'pip install "narlab-VERSION-….whl[pyg]", or of a checkout, pip install "./python[pyg]", installs)'
    ) from e

import narlab  # pylint: disable=wrong-import-position

POINTER_TYPES = ('pointer', 'should_be_permutation')


class CLRSData(Data):
    """A ``Data`` whose pointer probes are offset like ``edge_index`` when batched."""

    def __inc__(self, key, value, *args, **kwargs):
        if key in _pointer_keys(getattr(self, 'algorithm', None)):
            return self.num_nodes
        return super().__inc__(key, value, *args, **kwargs)

    def __cat_dim__(self, key, value, *args, **kwargs):
        if key in _pointer_keys(getattr(self, 'algorithm', None)):
            return 0
        return super().__cat_dim__(key, value, *args, **kwargs)


_POINTERS = {
    algo: frozenset(f'{p.stage}_{p.name}' for p in spec if p.type in POINTER_TYPES)
    for algo, spec in narlab.SPECS.items()
}


def _pointer_keys(algorithm):
    return _POINTERS.get(algorithm, frozenset())


def num_nodes(dataset):
    """N: the width of the node probes of ``dataset`` (the ``pos`` input)."""
    for p, a in dataset.probes():
        if p.location == 'node':
            return int(a.shape[2] if p.stage == 'hint' else a.shape[1])
    raise ValueError(f'{dataset.algorithm} has no node probe')


def feature_columns(dataset):
    """Names of the columns of ``x`` and ``edge_attr``: ``{'x': [...], 'edge_attr': [...]}``
    (a categorical probe ``key`` with C classes gives ``key[0]`` ... ``key[C-1]``)."""
    cols = {'x': [], 'edge_attr': []}
    for p, a in dataset.probes('input'):
        if p.location == 'graph':
            continue
        width = a.shape[-1] if p.type == 'categorical' else 1
        names = [f'{p.name}[{c}]' for c in range(width)] if p.type == 'categorical' else [p.name]
        cols['x' if p.location == 'node' else 'edge_attr'].extend(names)
    return cols


def _edges(dataset, i, n, edges):
    if edges == 'complete':
        rows, cols = np.divmod(np.arange(n * n), n)
    elif edges == 'adj':
        if 'adj' not in dataset.inputs:
            raise ValueError(f"edges='adj': {dataset.algorithm} has no adj input; use edges='complete'")
        rows, cols = np.nonzero(dataset.inputs['adj'][i])
    else:
        raise ValueError(f"edges must be 'complete' or 'adj', got {edges!r}")
    return rows, cols


def to_data(dataset, i, *, edges='complete', float_dtype=torch.float32):
    """Sample ``i`` of a :class:`narlab.Dataset` as a :class:`CLRSData` (layout in the module doc)."""
    i = range(len(dataset))[i]
    n = num_nodes(dataset)
    rows, cols = _edges(dataset, i, n, edges)
    attrs = {}
    x, edge_attr = [], []
    for p, a in dataset.probes():
        v = a[:, i] if p.stage == 'hint' else a[i]  # hints [T, ...], the rest [...]
        if p.location == 'edge':
            v = v[:, rows, cols] if p.stage == 'hint' else v[rows, cols]
        elif p.location == 'graph':
            v = v[:, None] if p.stage == 'hint' else v[None]
        if p.stage == 'hint':
            v = np.moveaxis(v, 0, 1)  # [N|E|1, T, ...]
        if p.type in POINTER_TYPES:
            t = torch.from_numpy(np.ascontiguousarray(v).astype(np.int64))
        else:
            t = torch.from_numpy(np.ascontiguousarray(v)).to(float_dtype)
        attrs[f'{p.stage}_{p.name}'] = t
        if p.stage == 'input' and p.location != 'graph':
            col = t.to(float_dtype)
            col = col if p.type == 'categorical' else col[:, None]
            (x if p.location == 'node' else edge_attr).append(col)
    if x:
        attrs['x'] = torch.cat(x, dim=1)
    if edge_attr:
        attrs['edge_attr'] = torch.cat(edge_attr, dim=1)
    return CLRSData(
        edge_index=torch.from_numpy(np.stack([rows, cols]).astype(np.int64)),
        num_nodes=n,
        length=torch.tensor([int(dataset.lengths[i])]),
        algorithm=dataset.algorithm,
        **attrs,
    )


def to_data_list(dataset, **kwargs):
    """Every sample of ``dataset`` as a :class:`CLRSData` (a list, for
    ``torch_geometric.loader.DataLoader``); keyword arguments as :func:`to_data`."""
    return [to_data(dataset, i, **kwargs) for i in range(len(dataset))]
