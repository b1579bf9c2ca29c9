"""narlab's files as dm-clrs Feedback, checked against dm-clrs 2.0.3 itself
(run in the bridge environment of scripts/setup-pybridge.sh)."""

import os

import clrs
import jax
import numpy as np
import pytest

import narlab

# numpy >= 1.25 (here 1.26.4, the numpy of dm-clrs's JAX stack) rounds
# np.sin/np.cos differently from numpy 1.24 on AVX-512 CPUs; narlab, like
# the project's fixtures, follows 1.24, so these two may differ from this
# environment's samplers in the last bits (test_reference.py compares them
# exactly with dm-clrs on numpy 1.24).
LAST_BITS = {'graham_scan', 'jarvis_march'}


def test_version():
    assert clrs.__version__ == '2.0.3'


def test_specs_are_dmclrs_specs():
    assert list(narlab.CLRS30) == list(clrs.specs.CLRS_30_ALGS)
    assert set(narlab.SPECS) == set(clrs.SPECS)
    for algo, spec in clrs.SPECS.items():
        want = tuple(narlab.Probe(name, *stage_loc_type) for name, stage_loc_type in spec.items())
        assert narlab.SPECS[algo] == want, algo


@pytest.mark.parametrize('algo', narlab.CLRS30)
def test_feedback_equals_dmclrs_sampler(algo, data_dir):
    """The val split read by narlab is the Feedback of dm-clrs's sampler for that split: same types,
    probes (name, location, type, order), dtypes, shapes and values."""
    cfg = clrs.CLRS30['val']
    n = cfg['num_samples'] * clrs.CLRS_30_ALGS_SETTINGS[algo]['num_samples_multiplier']
    sampler, _ = clrs.build_sampler(algo, num_samples=n, length=cfg['length'], seed=cfg['seed'])
    want = sampler.next()
    got = narlab.load_split(os.path.join(data_dir, 'val'), algo, 'val').feedback()
    assert type(got) is clrs.Feedback and type(got.features) is clrs.Features
    pairs = [
        (g, w)
        for gs, ws in (
            (got.features.inputs, want.features.inputs),
            (got.features.hints, want.features.hints),
            (got.outputs, want.outputs),
        )
        for g, w in zip(gs, ws, strict=True)
    ]
    for g, w in pairs:
        assert isinstance(g, clrs.DataPoint)
        assert (g.name, g.location, g.type_) == (w.name, w.location, w.type_)
        assert (g.data.dtype, g.data.shape) == (w.data.dtype, w.data.shape), g.name
        if algo in LAST_BITS and g.data.dtype == np.float64:
            np.testing.assert_allclose(g.data, w.data, rtol=1e-12, atol=0, err_msg=g.name)
        else:
            np.testing.assert_array_equal(g.data, w.data, err_msg=g.name)
    np.testing.assert_array_equal(got.features.lengths, want.features.lengths)


def _train(spec, batches, steps, processor='mpnn', hidden=32):
    """dm-clrs's BaselineModel trained `steps` steps on the first batch, then on the next ones;
    returns the model and the losses."""
    first = next(batches)
    model = clrs.models.BaselineModel(
        spec=[spec],
        dummy_trajectory=[first],
        processor_factory=clrs.get_processor_factory(processor, use_ln=True, nb_triplet_fts=0),
        hidden_dim=hidden,
        encode_hints=True,
        decode_hints=True,
        learning_rate=3e-3,
        grad_clip_max_norm=1.0,
        hint_teacher_forcing=0.0,
        hint_repred_mode='soft',
        checkpoint_path='/tmp/unused',
    )
    model.init([first.features], 42)
    model.initial_params = jax.tree_util.tree_map(np.array, model.params)
    key = jax.random.PRNGKey(0)
    losses = []
    for step in range(steps):
        key, k = jax.random.split(key)
        fb = first if step < steps // 2 else next(batches)
        losses.append(float(model.feedback(k, fb, algorithm_index=0)))
    return model, losses


def test_baseline_model_trains_on_narlab_batches(data_dir):
    """BaselineModel (MPNN) trains on bfs batches read from narlab's train file; its loss falls on a
    repeated batch, and it predicts and is scored on narlab's val file."""
    d = os.path.join(data_dir, 'clrs30')
    train = narlab.load_split(d, 'bfs', 'train')
    model, losses = _train(clrs.SPECS['bfs'], train.feedback_batches(32, shuffle=True, seed=0), steps=12)
    assert all(np.isfinite(losses)), losses
    assert losses[5] < losses[0], losses  # the same batch six times
    val = narlab.load_split(d, 'bfs', 'val').feedback()
    preds, _ = model.predict(jax.random.PRNGKey(1), val.features, algorithm_index=0)
    assert preds['pi'].data.shape == val.outputs[0].data.shape
    score = clrs.evaluate(val.outputs, preds)['score']
    assert 0.0 <= score <= 1.0


def test_baseline_model_with_dmclrs_transforms(data_dir):
    """insertion_sort as dm-clrs's run.py trains it: process_pred_as_input and process_permutations
    applied to batches read from narlab's files."""
    d = os.path.join(data_dir, 'clrs30')
    train = narlab.load_split(d, 'insertion_sort', 'train')
    spec = clrs.SPECS['insertion_sort']
    spec, batches = clrs.process_permutations(spec, train.feedback_batches(16), True)
    model, losses = _train(spec, batches, steps=6)
    assert all(np.isfinite(losses)), losses
    changed = jax.tree_util.tree_map(
        lambda a, b: not np.array_equal(a, b), model.initial_params, model.params
    )
    assert any(jax.tree_util.tree_leaves(changed))
    # The transformed output: a permutation pointer [B, N, N] and its mask, predicted and scored.
    _, val = clrs.process_permutations(
        clrs.SPECS['insertion_sort'], iter([narlab.load_split(d, 'insertion_sort', 'val').feedback()]), True
    )
    val = next(val)
    preds, _ = model.predict(jax.random.PRNGKey(1), val.features, algorithm_index=0)
    assert preds['pred'].data.shape == (32, 16, 16)
    assert 0.0 <= clrs.evaluate(val.outputs, preds)['score'] <= 1.0
