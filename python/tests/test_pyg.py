"""narlab's files as PyTorch Geometric graphs (bridge environment)."""

import os

import numpy as np
import pytest
import torch
from torch_geometric.loader import DataLoader

import narlab
from narlab import pyg


def _val(data_dir, algo):
    return narlab.load_split(os.path.join(data_dir, 'val'), algo, 'val')


@pytest.mark.parametrize('algo', narlab.CLRS30)
def test_shapes(algo, data_dir):
    ds = _val(data_dir, algo).select(range(6))
    n, T = pyg.num_nodes(ds), ds.max_steps
    cols = pyg.feature_columns(ds)
    graphs = ds.pyg()
    assert len(graphs) == 6
    for i, g in enumerate(graphs):
        E = n * n
        assert g.num_nodes == n and g.algorithm == algo and int(g.length) == int(ds.lengths[i])
        assert g.edge_index.shape == (2, E) and g.edge_index.dtype == torch.long
        assert g.x.shape == (n, len(cols['x'])) and g.x.dtype == torch.float32
        if cols['edge_attr']:
            assert g.edge_attr.shape == (E, len(cols['edge_attr']))
        else:
            assert 'edge_attr' not in g
        for p, a in ds.probes():
            t = g[f'{p.stage}_{p.name}']
            lead = {'node': n, 'edge': E, 'graph': 1}[p.location]
            rest = a.shape[2:] if p.stage == 'hint' else a.shape[1:]
            if p.location == 'edge':
                rest = rest[2:]
            elif p.location == 'node':
                rest = rest[1:]
            want = (lead, T) + tuple(rest) if p.stage == 'hint' else (lead,) + tuple(rest)
            assert tuple(t.shape) == want, (p, t.shape, want)
            assert t.dtype == (torch.long if p.type in pyg.POINTER_TYPES else torch.float32), p
    # Graphs of one file batch together.
    batch = next(iter(DataLoader(graphs, batch_size=6)))
    assert batch.num_graphs == 6 and batch.num_nodes == 6 * n
    assert batch.edge_index.shape == (2, 6 * n * n)
    assert batch.x.shape == (6 * n, len(cols['x']))


def test_values_and_edges(data_dir):
    ds = _val(data_dir, 'bfs')
    n = 16
    g = pyg.to_data(ds, 3)
    i, j = g.edge_index.numpy()
    np.testing.assert_array_equal(i * n + j, np.arange(n * n))  # complete, row-major
    np.testing.assert_array_equal(g.input_A.numpy(), ds.inputs['A'][3][i, j])
    np.testing.assert_array_equal(g.input_adj.numpy(), ds.inputs['adj'][3][i, j])
    np.testing.assert_array_equal(
        g.x.numpy(), np.stack([ds.inputs['pos'][3], ds.inputs['s'][3]], axis=1).astype(np.float32)
    )
    np.testing.assert_array_equal(
        g.edge_attr.numpy(), np.stack([ds.inputs['A'][3][i, j], ds.inputs['adj'][3][i, j]], axis=1)
    )
    np.testing.assert_array_equal(g.hint_pi_h.numpy(), ds.hints['pi_h'][:, 3].T)
    np.testing.assert_array_equal(g.output_pi.numpy(), ds.outputs['pi'][3])
    assert pyg.feature_columns(ds) == {'x': ['pos', 's'], 'edge_attr': ['A', 'adj']}
    # edges='adj': the sample's own graph (adj has the diagonal set).
    a = pyg.to_data(ds, 3, edges='adj')
    rows, cols = np.nonzero(ds.inputs['adj'][3])
    np.testing.assert_array_equal(a.edge_index.numpy(), np.stack([rows, cols]))
    assert (a.input_adj == 1).all() and a.edge_index.shape[1] == int(ds.inputs['adj'][3].sum())
    with pytest.raises(ValueError, match='has no adj input'):
        pyg.to_data(_val(data_dir, 'insertion_sort'), 0, edges='adj')
    assert pyg.to_data(ds, 0, float_dtype=torch.float64).x.dtype == torch.float64


def test_batched_pointers_are_offset(data_dir):
    """In a Batch, node and edge pointers index the batch's nodes, as edge_index does."""
    bfs = _val(data_dir, 'bfs')
    batch = next(iter(DataLoader(bfs.pyg(), batch_size=5)))
    local = batch.output_pi - batch.ptr[batch.batch]
    np.testing.assert_array_equal(local.numpy(), bfs.outputs['pi'][:5].reshape(-1))
    hint_local = batch.hint_pi_h - batch.ptr[batch.batch][:, None]
    np.testing.assert_array_equal(
        hint_local.numpy(), np.concatenate([bfs.hints['pi_h'][:, b].T for b in range(5)])
    )
    fw = _val(data_dir, 'floyd_warshall')  # Pi: an edge pointer
    batch = next(iter(DataLoader(fw.pyg(), batch_size=3)))
    n = pyg.num_nodes(fw)
    edge_graph = batch.batch[batch.edge_index[0]]
    np.testing.assert_array_equal(
        (batch.output_Pi - batch.ptr[edge_graph]).numpy(), fw.outputs['Pi'][:3].reshape(-1)
    )
    assert batch.output_Pi.shape == (3 * n * n,)
