"""Fixtures of the reference's model with each of its options on
(lib/nn/testdata/refoptions; the format is in that folder's README.md).

dm-clrs 2.0.3's own code computes every number: its BaselineModel and
BaselineModelChunked on JAX CPU, its samplers, and for the run.py cases
its examples/run.py itself (main() and create_samplers(), imported from
the harness, with the CLRS-30 test download replaced by the test split's
first samples drawn by the reference's own sampler). Nothing of the
reference is copied here: REF_DIR holds it (scripts/ref-harness.sh).

Usage: PY=$(scripts/ref-harness.sh --jax)
       $PY scripts/ref_options.py $(scripts/ref-harness.sh) [OUT_DIR] [--case NAME]... [--list]

Three kinds of case:
  model   one algorithm, BaselineModel built as run.py builds it with the
          case's options, trained on the CLRS-30 train split's first
          batches (sampler.next(batch), as refsteps draws them): initial
          parameters, first step's gradients, per-step losses and keys,
          every key the model drew (dropout, teacher forcing, Gumbel
          noise), raw output predictions of the initial and final
          parameters on the val split's first samples.
  runpy   run.py's main() itself with small flags (several algorithms in
          one model; chunked training): its batches, keys, losses, the
          first gradients per algorithm, validation and test scores, the
          best-checkpoint steps.
  data    run.py's create_samplers() for the string matchers under
          length_needle: the sampled batches.
"""
import argparse
import contextlib
import copy
import dataclasses
import gzip
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import types

GENERATOR = "scripts/ref_options.py (dm-clrs 2.0.3, JAX 0.4.38 CPU)"

# run.py's model settings (its flag defaults); a case overrides some.
BASE = dict(hidden=8, batch=4, steps=3, seed=42, nb_heads=1, use_ln=True, nb_triplet_fts=8,
            nb_msg_passing_steps=1, use_lstm=False, encoder_init="xavier_on_scalars", freeze_processor=False,
            dropout_prob=0.0, hint_teacher_forcing=0.0, hint_repred_mode="soft", hint_mode="encoded_decoded",
            learning_rate=1e-3, grad_clip_max_norm=1.0, enforce_permutations=True, enforce_pred_as_input=True)


def model_case(name, algo, processor, **opts):
    return dict(kind="model", name=name, algo=algo, processor=processor, **opts)


CASES = [
    # Multi-head attention and the _full variants.
    model_case("gat-heads2-bfs", "bfs", "gat", nb_heads=2),
    model_case("gat-heads4-bfs", "bfs", "gat", nb_heads=4),
    model_case("gatv2-heads2-bfs", "bfs", "gatv2", nb_heads=2),
    model_case("gatv2-heads4-dijkstra", "dijkstra", "gatv2", nb_heads=4),
    model_case("gat_full-bfs", "bfs", "gat_full"),
    model_case("gat_full-heads2-bfs", "bfs", "gat_full", nb_heads=2),
    model_case("gatv2_full-bfs", "bfs", "gatv2_full"),
    model_case("gatv2_full-heads2-bfs", "bfs", "gatv2_full", nb_heads=2),
    # Several message-passing steps per hint.
    model_case("mp2-mpnn-bfs", "bfs", "mpnn", nb_msg_passing_steps=2),
    model_case("mp3-triplet_gmpnn-bfs", "bfs", "triplet_gmpnn", nb_msg_passing_steps=3),
    # No layer norm.
    model_case("noln-mpnn-bfs", "bfs", "mpnn", use_ln=False),
    model_case("noln-triplet_gmpnn-bfs", "bfs", "triplet_gmpnn", use_ln=False),
    model_case("noln-gat-dijkstra", "dijkstra", "gat", use_ln=False),
    # An LSTM after message passing.
    model_case("lstm-mpnn-bfs", "bfs", "mpnn", use_lstm=True),
    # Triplet widths.
    model_case("tri4-triplet_gmpnn-bfs", "bfs", "triplet_gmpnn", nb_triplet_fts=4),
    model_case("tri16-triplet_mpnn-bfs", "bfs", "triplet_mpnn", nb_triplet_fts=16),
    # Encoder initialisation 'default' (hint scalars: dijkstra's d; run.py's
    # xavier_on_scalars is every other case's).
    model_case("encinit-default-dijkstra", "dijkstra", "mpnn", encoder_init="default"),
    # A frozen processor.
    model_case("freeze-mpnn-bfs", "bfs", "mpnn", freeze_processor=True),
    # Dropout (keys recorded: lib/jaxrand reproduces the masks).
    model_case("dropout0.1-mpnn-bfs", "bfs", "mpnn", dropout_prob=0.1),
    model_case("dropout0.5-gat-dijkstra", "dijkstra", "gat", dropout_prob=0.5),
    # Hint re-prediction and teacher forcing.
    model_case("repred-hard-mpnn-bfs", "bfs", "mpnn", hint_repred_mode="hard"),
    model_case("repred-hard_on_eval-mpnn-dijkstra", "dijkstra", "mpnn", hint_repred_mode="hard_on_eval"),
    model_case("teacher0.5-mpnn-dijkstra", "dijkstra", "mpnn", hint_teacher_forcing=0.5, ulp_grads=True),
    model_case("teacher0.5-mpnn-bfs", "bfs", "mpnn", hint_teacher_forcing=0.5),
    model_case("teacher1-mpnn-bellman_ford", "bellman_ford", "mpnn", hint_teacher_forcing=1.0),
    # Permutation decoders' Gumbel noise in training (keys recorded).
    model_case("gumbel-mpnn-insertion_sort", "insertion_sort", "mpnn", ulp_grads=True),
    # run.py itself.
    dict(kind="runpy", name="runpy-multi-bfs-dfs-insertion_sort-mpnn",
         flags=dict(algorithms="bfs,dfs,insertion_sort", processor_type="mpnn", train_lengths="4,7",
                    train_steps=4, eval_every=2, hidden_size=8, batch_size=4, seed=42)),
    dict(kind="runpy", name="runpy-chunked-bfs-mpnn",
         flags=dict(algorithms="bfs", processor_type="mpnn", train_lengths="4,7", chunked_training=True,
                    chunk_length=4, train_steps=6, eval_every=3, hidden_size=8, batch_size=4, seed=42)),
    dict(kind="runpy", name="runpy-chunked-multi-bfs-insertion_sort-mpnn",
         flags=dict(algorithms="bfs,insertion_sort", processor_type="mpnn", train_lengths="4,7",
                    chunked_training=True, chunk_length=5, train_steps=4, eval_every=2, hidden_size=8,
                    batch_size=4, seed=42)),
    # run.py with model options: several algorithms with heads, message-
    # passing steps, dropout, teacher forcing and a frozen processor; chunked
    # training of several algorithms with the LSTM, dropout and teacher
    # forcing (its keys drawn at every step of a chunk).
    dict(kind="runpy", name="runpy-multi-bfs-dfs-insertion_sort-gat-options",
         flags=dict(algorithms="bfs,dfs,insertion_sort", processor_type="gat", train_lengths="4,7",
                    train_steps=4, eval_every=2, hidden_size=8, batch_size=4, seed=42, nb_heads=2,
                    nb_msg_passing_steps=2, dropout_prob=0.1, hint_teacher_forcing=0.5, freeze_processor=True)),
    dict(kind="runpy", name="runpy-chunked-multi-bfs-insertion_sort-mpnn-options",
         flags=dict(algorithms="bfs,insertion_sort", processor_type="mpnn", train_lengths="4,7",
                    chunked_training=True, chunk_length=5, train_steps=4, eval_every=2, hidden_size=8,
                    batch_size=4, seed=42, use_lstm=True, dropout_prob=0.1, hint_teacher_forcing=0.5)),
    # run.py's samplers under length_needle (data only). At run.py's own
    # defaults (length_needle -8, train lengths up to 16) the reference
    # cannot make a string matcher's samplers: main() validates at the
    # longest train length, 16, where a needle of 8 leaves the haystack
    # (8) no room (MatcherSampler's rng.choice(0) raises "a must be greater
    # than 0"); the -8 case therefore trains up to 17.
    dict(kind="data", name="data-length_needle--8-max17", length_needle=-8, train_lengths="4,7,17"),
    dict(kind="data", name="data-length_needle-0", length_needle=0, train_lengths="4,7,16"),
    dict(kind="data", name="data-length_needle-3", length_needle=3, train_lengths="4,7,16"),
]


# ---------------------------------------------------------------- import


def import_reference(ref):
    """Imports dm-clrs from the harness without its package __init__ (it
    pulls in TensorFlow Datasets); returns a `clrs` module with the
    attributes run.py uses."""
    sys.path.insert(0, os.path.join(ref, "jaxstubs"))
    sys.path.insert(1, ref)
    # Imported by dataset.py and run.py, unused by what runs here (chunkify,
    # create_samplers with the test download stubbed): bare stand-ins.
    tfds = types.ModuleType("tensorflow_datasets")
    tfds.core = types.SimpleNamespace(BuilderConfig=dataclasses.make_dataclass(
                                          "BuilderConfig", [("name", str, dataclasses.field(default=""))]),
                                      GeneratorBasedBuilder=type("GeneratorBasedBuilder", (), {}),
                                      Version=str, DatasetInfo=object)
    tfds.download = types.SimpleNamespace(DownloadManager=object)
    sys.modules.setdefault("tensorflow_datasets", tfds)
    sys.modules.setdefault("requests", types.ModuleType("requests"))
    pkg = types.ModuleType("clrs")
    pkg.__path__ = [os.path.join(ref, "clrs")]
    sys.modules["clrs"] = pkg
    import tensorflow as tf
    if not hasattr(tf, "device"):
        tf.device = lambda *_: contextlib.nullcontext()
    from clrs._src import baselines, dataset, evaluation, processors, samplers, specs
    models = types.ModuleType("clrs.models")
    models.BaselineModel, models.BaselineModelChunked = baselines.BaselineModel, baselines.BaselineModelChunked
    pkg.models = models
    for mod, names in ((samplers, ("CLRS30", "build_sampler", "process_random_pos", "process_pred_as_input",
                                   "process_permutations", "Feedback", "Features")),
                       (specs, ("CLRS_30_ALGS_SETTINGS", "SPECS")),
                       (dataset, ("chunkify", "get_clrs_folder", "get_dataset_gcp_url")),
                       (processors, ("get_processor_factory",)), (evaluation, ("evaluate",))):
        for n in names:
            setattr(pkg, n, getattr(mod, n))
    return pkg


# ---------------------------------------------------------------- encoding


def f32(x):
    """A float32 value as the Python float of its shortest repr (JSON
    writes it in few digits; float32(parse) gives the value back)."""
    import numpy as np
    v = np.float32(x)
    if not np.isfinite(v):
        return str(v)  # "inf", "-inf", "nan": JSON has no such numbers
    return float(np.format_float_scientific(v, unique=True))


def arr(a):
    import numpy as np
    a = np.asarray(a)
    if a.dtype == bool:
        data = [int(x) for x in a.ravel()]
    elif np.issubdtype(a.dtype, np.integer):
        data = [int(x) for x in a.ravel()]
    elif a.dtype == np.float64:
        # Batches hold float64 (the samplers' data): exact.
        data = [float(x) for x in a.ravel()]
    else:
        data = [f32(x) for x in a.ravel()]
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": data}


def params_json(params):
    return {m + "|" + n: arr(v) for m, ps in sorted(params.items()) for n, v in sorted(ps.items())}


def digest(params):
    """Per parameter: sum and sum of squares in float64 (what changed)."""
    import numpy as np
    out = {}
    for m, ps in sorted(params.items()):
        for n, v in sorted(ps.items()):
            v = np.asarray(v, dtype=np.float64)
            out[m + "|" + n] = [float(v.sum()), float((v * v).sum())]
    return out


def dp_json(dp):
    return {"name": dp.name, "location": str(dp.location), "type": str(dp.type_), **arr(dp.data)}


def feedback_json(fb):
    f = fb.features
    d = {"inputs": [dp_json(x) for x in f.inputs], "hints": [dp_json(x) for x in f.hints],
         "outputs": [dp_json(x) for x in fb.outputs]}
    if hasattr(f, "lengths"):
        d["lengths"] = arr(f.lengths)
    else:
        d["is_first"], d["is_last"] = arr(f.is_first), arr(f.is_last)
    return d


def batch_check(fb):
    """Lengths and per-probe sums: enough to tell that a redrawn batch is
    the reference's."""
    import numpy as np
    f = fb.features
    return {"lengths": [int(x) for x in np.asarray(f.lengths)],
            "sums": {dp.name: float(np.asarray(dp.data, dtype=np.float64).sum())
                     for dp in list(f.inputs) + list(f.hints) + list(fb.outputs)}}


def key_json(k):
    import numpy as np
    return [int(x) for x in np.asarray(k, dtype=np.uint32).ravel()]


# ---------------------------------------------------------------- key capture


class KeyLog:
    """Records every key the model draws randomness with, in order, with
    what it was for: dropout (hk.dropout: its shape and rate and how many
    elements it kept), teacher forcing (jax.random.bernoulli in nets.py:
    the probability and the mask drawn) and gumbel (the uniform draw in
    decoders.log_sinkhorn). jax.debug.callback reports them from inside
    the jitted, scanned step; JAX 0.4.38 drops callbacks inside a scan
    that is differentiated, so forward_rng runs the step's loss forward
    only, with the same parameters and key (the same draws), to see them."""

    def __init__(self):
        import haiku as hk
        import jax
        self.events = []
        self.in_dropout = False
        orig_dropout, orig_bernoulli, orig_uniform = hk.dropout, jax.random.bernoulli, jax.random.uniform
        log = self

        def dropout(rng, rate, x, broadcast_dims=()):
            log.in_dropout = True
            try:
                if rate > 0:
                    kept = jax.numpy.sum(orig_bernoulli(rng, 1.0 - rate, x.shape))
                else:
                    kept = jax.numpy.sum(jax.numpy.ones(x.shape, dtype=jax.numpy.int32))
                jax.debug.callback(lambda k, n, shape=tuple(x.shape), rate=rate: log.events.append(
                    {"use": "dropout", "key": key_json(k), "shape": list(shape), "rate": rate, "kept": int(n)}),
                    rng, kept, ordered=True)
                return orig_dropout(rng, rate, x, broadcast_dims)
            finally:
                log.in_dropout = False

        def bernoulli(key, p=0.5, shape=None):
            out = orig_bernoulli(key, p, shape)
            if not log.in_dropout:
                jax.debug.callback(lambda k, m, p=p: log.events.append(
                    {"use": "teacher_forcing", "key": key_json(k), "p": float(p),
                     "mask": [int(x) for x in m]}), key, out, ordered=True)
            return out

        def uniform(key, shape=(), dtype=float, minval=0., maxval=1.):
            jax.debug.callback(lambda k, shape=tuple(shape): log.events.append(
                {"use": "gumbel", "key": key_json(k), "shape": list(shape)}), key, ordered=True)
            return orig_uniform(key, shape, dtype, minval, maxval)

        hk.dropout, jax.random.bernoulli, jax.random.uniform = dropout, bernoulli, uniform

    def take(self):
        import jax
        jax.effects_barrier()
        ev, self.events = self.events, []
        return ev


_JITS = {}


def jitted(m, what, index, make):
    """One compiled function per model, purpose and algorithm index."""
    k = (id(m), what, index)
    if k not in _JITS:
        _JITS[k] = make()
    return _JITS[k]


def forward_rng(log, m, key, fb, index, mp_state=None):
    """The keys a training step with this key draws, and its loss, from
    the model's loss run forward only (see KeyLog)."""
    import functools
    import jax
    log.take()
    f = jitted(m, "loss", index, lambda: jax.jit(functools.partial(m._loss, algorithm_index=index)))
    if mp_state is None:
        loss = f(m.params, key, fb)
    else:
        loss, _ = f(m.params, key, fb, mp_state)
    return float(loss), log.take()


# ---------------------------------------------------------------- model cases


def processor_factory(clrs, o, processor):
    return clrs.get_processor_factory(processor, use_ln=o["use_ln"], nb_triplet_fts=o["nb_triplet_fts"],
                                      nb_heads=o["nb_heads"])


def hint_flags(mode):
    return {"encoded_decoded": (True, True), "decoded_only": (False, True), "none": (False, False)}[mode]


def model_kwargs(clrs, o, processor, ckpt):
    enc, dec = hint_flags(o["hint_mode"])
    return dict(processor_factory=processor_factory(clrs, o, processor), hidden_dim=o["hidden"],
                encode_hints=enc, decode_hints=dec, encoder_init=o["encoder_init"], use_lstm=o["use_lstm"],
                learning_rate=o["learning_rate"], grad_clip_max_norm=o["grad_clip_max_norm"],
                checkpoint_path=ckpt, freeze_processor=o["freeze_processor"], dropout_prob=o["dropout_prob"],
                hint_teacher_forcing=o["hint_teacher_forcing"], hint_repred_mode=o["hint_repred_mode"],
                nb_msg_passing_steps=o["nb_msg_passing_steps"])


def transformed(clrs, algo, o, spec, it):
    if o["enforce_pred_as_input"] and algo in PRED_AS_INPUT_ALGOS:
        spec, it = clrs.process_pred_as_input(spec, it)
    return clrs.process_permutations(spec, it, o["enforce_permutations"])


# run.py's PRED_AS_INPUT_ALGOS (its list, as narlab's clrs.PredAsInputAlgorithms).
PRED_AS_INPUT_ALGOS = ["binary_search", "minimum", "find_maximum_subarray", "find_maximum_subarray_kadane",
                       "matrix_chain_order", "lcs_length", "optimal_bst", "activity_selector", "task_scheduling",
                       "naive_string_matcher", "kmp_matcher", "jarvis_march"]


def raw_predictions(m, params, key, features, algo_index=0):
    """The model's raw output logits (before hard post-processing) in
    evaluation mode (repred=True, as predict runs)."""
    import jax
    f = jitted(m, "raw", algo_index, lambda: jax.jit(lambda p, k, f: m.net_fn.apply(
        p, k, [f], repred=True, algorithm_index=algo_index, return_hints=False, return_all_outputs=False)))
    outs, _ = f(params, key, features)
    return {name: arr(v) for name, v in sorted(outs.items())}


def hard_predictions(m, key, features, algo_index=0):
    import numpy as np
    preds, _ = m.predict(key, features, algorithm_index=algo_index)
    return {name: arr(np.asarray(dp.data)) for name, dp in sorted(preds.items())}


def run_model_case(clrs, case, log, tmp):
    import jax
    import numpy as np
    o = dict(BASE)
    o.update({k: v for k, v in case.items() if k in BASE})
    algo, proc = case["algo"], case["processor"]
    c = clrs.CLRS30["train"]
    tr, spec = clrs.build_sampler(algo, num_samples=c["num_samples"], length=c["length"], seed=c["seed"])
    cv = clrs.CLRS30["val"]
    va, _ = clrs.build_sampler(algo, num_samples=o["batch"], length=cv["length"], seed=cv["seed"])

    def forever():
        while True:
            yield tr.next(o["batch"])
    spec2, trit = transformed(clrs, algo, o, spec, forever())
    _, vait = transformed(clrs, algo, o, spec, iter([va.next()]))
    pfb = next(vait)
    batches = [next(trit) for _ in range(o["steps"])]
    m = clrs.models.BaselineModel(spec=[spec2], dummy_trajectory=[batches[0]],
                                  **model_kwargs(clrs, o, proc, os.path.join(tmp, case["name"])))
    init_seed = o["seed"] + 1
    m.init([batches[0].features], init_seed)
    params0 = jax.tree_util.tree_map(np.asarray, m.params)
    log.take()
    pkey = jax.random.PRNGKey(0)
    pred0 = raw_predictions(m, params0, pkey, pfb.features)
    hard0 = hard_predictions(m, pkey, pfb.features)
    # Keys as run.py hands them out: feedback gets the first half of a split.
    key = jax.random.PRNGKey(o["seed"])
    steps = []
    grads = None
    extra = {}
    for i, fb in enumerate(batches):
        key, nxt = jax.random.split(key)
        floss, events = forward_rng(log, m, key, fb, 0)
        if i == 0:
            gloss, g = m.compute_grad(key, fb, algorithm_index=0)
            grads = params_json(jax.tree_util.tree_map(np.asarray, g))
            if case.get("ulp_grads"):
                # The same step's gradient with every parameter one ulp up
                # (same key, same batch): how far the reference's own
                # gradient moves under the smallest change of its input,
                # the measure of its conditioning that lib/nn's
                # TestGradientsWithinBackendSpread holds narlab to.
                saved = m.params
                m.params = jax.tree_util.tree_map(lambda a: np.nextafter(np.asarray(a), np.float32(np.inf)), saved)
                _, gu = m.compute_grad(key, fb, algorithm_index=0)
                m.params = saved
                extra["grads_ulp"] = params_json(jax.tree_util.tree_map(np.asarray, gu))
                log.take()
        loss = float(m.feedback(key, fb, algorithm_index=0))
        log.take()
        assert abs(floss - loss) <= 1e-5 * max(1, abs(loss)), (floss, loss)
        steps.append({"key": key_json(key), "loss": loss, "rng": events, "batch": batch_check(fb)})
        key = nxt
    assert abs(float(gloss) - steps[0]["loss"]) <= 1e-6 * max(1, abs(steps[0]["loss"])), (gloss, steps[0]["loss"])
    params1 = m.params
    return {**extra,
        "generator": GENERATOR, "kind": "model", "case": case["name"], "algorithm": algo, "processor": proc,
        "options": o, "init_seed": init_seed,
        "data": {"train": {"split": "train", "sampler": "CLRS-30 train split (n=16, seed 1, 1000 samples)",
                           "draws": f"sampler.next({o['batch']}) x {o['steps']}, transformed"},
                 "predict": {"split": "val", "first": o["batch"],
                             "note": "the val split's first samples (n=16, seed 2) batched alone, transformed"}},
        "params": params_json(params0), "grads": grads, "steps": steps,
        "predict": {"key": key_json(pkey), "batch": batch_check(pfb),
                    "initial": pred0, "final": raw_predictions(m, params1, pkey, pfb.features),
                    "initial_hard": hard0, "final_hard": hard_predictions(m, pkey, pfb.features)},
        "final_params_digest": digest(params1),
    }


# ---------------------------------------------------------------- run.py cases


_RUN = None


def load_run(clrs, ref):
    global _RUN
    if _RUN is None:
        spec = importlib.util.spec_from_file_location("clrs_ref_run", os.path.join(ref, "clrs", "examples", "run.py"))
        _RUN = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_RUN)
    return _RUN


TEST_SAMPLES = 4  # the stand-in test set: the CLRS-30 test split's first samples


def stub_test_dataset(clrs, run):
    """run.py reads the CLRS-30 test split from a download (tfds); the
    stand-in draws the same split's first TEST_SAMPLES samples with the
    reference's sampler (the tfds files were made that way: default
    sampler arguments, seed 3, n=64) and serves them in one batch."""
    def create_dataset(folder, algorithm, batch_size, split):
        c = clrs.CLRS30[split]
        s, spec = clrs.build_sampler(algorithm, num_samples=TEST_SAMPLES, length=c["length"], seed=c["seed"])
        fb = s.next()

        class DS:
            def as_numpy_iterator(self):
                while True:
                    yield fb
        return DS(), TEST_SAMPLES, spec
    clrs.create_dataset = create_dataset
    run._maybe_download_dataset = lambda path: path


def set_flags(run, flags, ckpt):
    F = run.FLAGS
    if not F.is_parsed():
        F(["run.py"])
    defaults = {n: F[n].default for n in ("algorithms", "train_lengths", "length_needle", "seed", "random_pos",
                                          "enforce_permutations", "enforce_pred_as_input", "batch_size",
                                          "chunked_training", "chunk_length", "train_steps", "eval_every",
                                          "test_every", "hidden_size", "nb_heads", "nb_msg_passing_steps",
                                          "learning_rate", "grad_clip_max_norm", "dropout_prob",
                                          "hint_teacher_forcing", "hint_mode", "hint_repred_mode", "use_ln",
                                          "use_lstm", "nb_triplet_fts", "encoder_init", "processor_type",
                                          "checkpoint_path", "dataset_path", "freeze_processor")}
    for n, v in defaults.items():
        setattr(F, n, v)
    for n, v in flags.items():
        if n in ("algorithms", "train_lengths"):
            v = v.split(",")
        setattr(F, n, v)
    F.checkpoint_path = ckpt
    F.dataset_path = ckpt
    return {n: getattr(F, n) for n in defaults if n not in ("checkpoint_path", "dataset_path")}


def run_runpy_case(clrs, ref, case, log, tmp):
    import jax
    import numpy as np
    run = load_run(clrs, ref)
    stub_test_dataset(clrs, run)
    ckpt = os.path.join(tmp, case["name"])
    os.makedirs(ckpt, exist_ok=True)
    flags = set_flags(run, case["flags"], ckpt)
    rec = {"init": [], "calls": [], "evals": [], "saves": [], "models": []}
    base_cls, chunk_cls = clrs.models.BaselineModel, clrs.models.BaselineModelChunked

    def recording(cls):
        class Recording(cls):
            def __init__(self, *a, **kw):
                super().__init__(*a, **kw)
                rec["models"].append(cls.__name__)
                self._seen = set()

            def init(self, features, seed):
                super().init(features, seed)
                entry = {"model": cls.__name__, "seed": int(seed), "params": params_json(self.params)}
                if cls is chunk_cls:
                    entry["init_mp_states"] = [[mp_state_json(s) for s in per_len] for per_len in
                                               self.init_mp_states]
                    entry["init_features"] = [[feedback_json(types.SimpleNamespace(features=f, outputs=[]))
                                               for f in per_len] for per_len in features]
                else:
                    entry["init_features"] = [feedback_json(types.SimpleNamespace(features=f, outputs=[]))
                                              for f in features]
                rec["init"].append(entry)
                log.take()

            def feedback(self, rng_key, feedback, algorithm_index=None):
                call = {"model": cls.__name__, "index": list(algorithm_index) if isinstance(algorithm_index, tuple)
                        else algorithm_index, "key": key_json(rng_key), "batch": feedback_json(feedback)}
                algo = algorithm_index[1] if isinstance(algorithm_index, tuple) else algorithm_index
                if cls is chunk_cls:
                    l, a = algorithm_index
                    state = self.init_mp_states[l][a]  # what feedback passes (see the notes)
                    floss, call["rng"] = forward_rng(log, self, rng_key, feedback, a, state)
                else:
                    floss, call["rng"] = forward_rng(log, self, rng_key, feedback, algorithm_index)
                if algo not in self._seen:
                    self._seen.add(algo)
                    saved = copy.deepcopy(getattr(self, "mp_states", None))
                    _, g = self.compute_grad(rng_key, feedback, algorithm_index)
                    if saved is not None:
                        self.mp_states = saved
                    call["grads"] = params_json(jax.tree_util.tree_map(np.asarray, g))
                loss = super().feedback(rng_key, feedback, algorithm_index)
                log.take()
                call["loss"] = float(loss)
                assert abs(floss - call["loss"]) <= 1e-5 * max(1, abs(call["loss"])), (floss, call["loss"])
                call["params_digest"] = digest(self.params)
                if cls is chunk_cls:
                    l, a = algorithm_index
                    call["mp_state_out_digest"] = mp_state_digest(self.mp_states[l][a])
                rec["calls"].append(call)
                return loss

            def save_model(self, file_name):
                rec["saves"].append({"file": file_name, "after_call": len(rec["calls"]),
                                     "params_digest": digest(self.params)})
                return super().save_model(file_name)
        return Recording

    orig_eval = run.collect_and_eval

    def collect_and_eval(sampler, predict_fn, sample_count, rng_key, extras):
        out = orig_eval(sampler, predict_fn, sample_count, rng_key, extras)
        rec["evals"].append({"key": key_json(rng_key), "sample_count": int(sample_count),
                             **{k: (float(v) if isinstance(v, (float, np.floating)) else v) for k, v in out.items()}})
        return out

    clrs.models.BaselineModel, clrs.models.BaselineModelChunked = recording(base_cls), recording(chunk_cls)
    run.collect_and_eval = collect_and_eval
    try:
        run.main(None)
    finally:
        clrs.models.BaselineModel, clrs.models.BaselineModelChunked = base_cls, chunk_cls
        run.collect_and_eval = orig_eval
    return {"generator": GENERATOR, "kind": "runpy", "case": case["name"], "flags": flags,
            "test_set": f"the CLRS-30 test split's first {TEST_SAMPLES} samples, one batch (run.py: the tfds download)",
            "models": rec["models"], "init": rec["init"], "calls": rec["calls"], "evals": rec["evals"],
            "saves": rec["saves"]}


def mp_state_json(s):
    import numpy as np
    d = {"is_first": arr(np.asarray(s.is_first)), "hiddens": arr(np.asarray(s.hiddens))}
    d["inputs"] = [dp_json(x) for x in s.inputs]
    d["hints"] = [dp_json(x) for x in s.hints]
    d["hint_preds"] = {k: arr(np.asarray(v)) for k, v in sorted(s.hint_preds.items())}
    if s.lstm_state is not None:
        d["lstm_state"] = {"hidden": arr(np.asarray(s.lstm_state.hidden)), "cell": arr(np.asarray(s.lstm_state.cell))}
    return d


def mp_state_digest(s):
    import numpy as np
    h = np.asarray(s.hiddens, dtype=np.float64)
    return {"hiddens": [float(h.sum()), float((h * h).sum())],
            "is_first": [int(x) for x in np.asarray(s.is_first).ravel()]}


# ---------------------------------------------------------------- data cases


def run_data_case(clrs, ref, case, log, tmp):
    import numpy as np
    run = load_run(clrs, ref)
    stub_test_dataset(clrs, run)
    algos = ["naive_string_matcher", "kmp_matcher"]
    flags = set_flags(run, {"algorithms": ",".join(algos), "train_lengths": case["train_lengths"],
                            "length_needle": case["length_needle"], "batch_size": 4, "seed": 42}, tmp)
    rng = np.random.RandomState(run.FLAGS.seed)
    run_key_seed = int(rng.randint(2**32))  # main() draws the model's key first
    trains, vals, val_counts, tests, test_counts, _ = run.create_samplers(
        rng=rng, train_lengths=[int(x) for x in run.FLAGS.train_lengths], algorithms=algos,
        val_lengths=[int(np.amax([int(x) for x in run.FLAGS.train_lengths]))], test_lengths=[-1],
        train_batch_size=4)
    out = {"generator": GENERATOR, "kind": "data", "case": case["name"], "flags": flags,
           "model_key_seed": run_key_seed, "algorithms": {}}
    for i, a in enumerate(algos):
        train = [feedback_json(next(trains[i])) for _ in range(2)]
        val = next(vals[i])
        out["algorithms"][a] = {
            "train": train, "val_sample_count": int(val_counts[i]),
            "val_first_batch": {"lengths": arr(val.features.lengths),
                                "inputs": [dp_json(x) for x in val.features.inputs if x.name in ("string", "pos")]},
        }
    return out


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ref")
    ap.add_argument("out", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib",
                                                           "nn", "testdata", "refoptions"))
    ap.add_argument("--case", action="append", default=[])
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        for c in CASES:
            print(c["name"])
        return
    names = {c["name"] for c in CASES}
    for n in a.case:
        if n not in names:
            sys.exit(f"ref_options: no case {n!r} (--list lists them)")
    clrs = import_reference(a.ref)
    import jax
    assert jax.__version__ == "0.4.38", jax.__version__
    log = KeyLog()
    os.makedirs(a.out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="ref-options-")
    try:
        for c in CASES:
            if a.case and c["name"] not in a.case:
                continue
            run = {"model": run_model_case, "runpy": lambda cl, ca, lg, t: run_runpy_case(cl, a.ref, ca, lg, t),
                   "data": lambda cl, ca, lg, t: run_data_case(cl, a.ref, ca, lg, t)}[c["kind"]]
            result = run(clrs, c, log, tmp)
            path = os.path.join(a.out, c["name"] + ".json.gz")
            raw = (json.dumps(result, separators=(",", ":")) + "\n").encode()
            with open(path + ".tmp", "wb") as fh:  # mtime 0: the same bytes every run
                with gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0, compresslevel=9) as gz:
                    gz.write(raw)
            os.replace(path + ".tmp", path)
            print(f"{c['name']}: {os.path.getsize(path)} bytes", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
