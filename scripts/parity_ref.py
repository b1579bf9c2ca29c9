"""The reference's side of `make parity-train` (scripts/parity_train.sh).

Trains a dm-clrs 2.0.3 BaselineModel (JAX on CPU) on the fixed CLRS-30
train split under the reference's run.py model settings (hints encoded and
decoded, soft hint re-prediction, teacher forcing 0, gradient clipping 1.0,
layer norm, nb_triplet_fts 8, Adam 1e-3, permutations enforced and a
constant pred_h moved to an input), validates on the whole CLRS-30 val split every
EVAL_EVERY steps, tests the best-validation parameters once on the test
split (n=64), and prints one JSON line.

Usage: parity_ref.py REF_DIR ALGO PROCESSOR STEPS [--hidden H] [--batch B]
       [--seed S] [--eval-every K] [--test-batch K] [--dump-steps FILE]

--test-batch K predicts the test split K samples at a time and scores the
joined predictions once (the whole split at once by default): the same
score, since each sample's prediction is its own (up to float32 rounding:
0.38386306 against 0.38386308 on activity_selector, equal on bfs, parts of
5 and 8), in a fraction of the memory: quickselect with Triplet-GMPNN held
21.8 GB predicting its 32 test samples at once.

--dump-steps FILE writes, instead of training with validation, the model's
initial parameters, the losses of its first STEPS training steps (on the
train split's first STEPS batches) and the val/test scores of the parameters
after them, as JSON: lib/nn's TestReferenceTrainingSteps loads those
parameters into narlab, takes the same steps and compares the losses
(fixtures in lib/nn/testdata/refsteps); scripts/parity_same_init.sh compares
the scores after longer runs.
REF_DIR holds the reference package as ./clrs and the jaxstubs/ stand-in
(a copy of ../shared/tools/clrs-ref after its setup.sh pip).
"""
import argparse
import json
import os
import sys
import time
import types


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ref")
    ap.add_argument("algo")
    ap.add_argument("processor")
    ap.add_argument("steps", type=int)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--test-batch", type=int, default=0)
    ap.add_argument("--dump-steps", default="")
    ap.add_argument("--no-scores", action="store_true", help="with --dump-steps: the losses only, no val/test "
                    "scores (and no test split built); the same-initialisation grid's mode")
    ap.add_argument("--trace", default="")
    ap.add_argument("--tie-events", action="store_true")
    ap.add_argument("--trace-samples", default="", help="steps (1-based, comma-separated) whose gradients "
                    "--trace also records per sample (each sample alone as a batch of one)")
    ap.add_argument("--eager-samples", default="", help="with --trace-samples: samples (0-based, "
                    "comma-separated) whose gradient is also computed op by op (jax.disable_jit: the same function, "
                    "XLA's rounding without fusion), printing how far it is from the compiled one's")
    ap.add_argument("--probe-samples", default="", help="with --tie-events and --trace-samples: samples "
                    "(0-based, comma-separated) whose batch of one the tie probes also run on")
    a = ap.parse_args()

    sys.path.insert(0, os.path.join(a.ref, "jaxstubs"))
    sys.path.insert(1, a.ref)
    pkg = types.ModuleType("clrs")
    pkg.__path__ = [os.path.join(a.ref, "clrs")]
    sys.modules["clrs"] = pkg
    import jax
    import numpy as np
    from clrs._src import baselines, evaluation, probing, processors, samplers, specs

    def split(name):
        # The official CLRS-30 splits (dataset.py): val and test hold 32 ×
        # the algorithm's num_samples_multiplier samples (narlab's splits too).
        c = samplers.CLRS30[name]
        n = c["num_samples"]
        if name != "train":
            n *= specs.CLRS_30_ALGS_SETTINGS[a.algo]["num_samples_multiplier"]
        s, spec = samplers.build_sampler(a.algo, num_samples=n, length=c["length"], seed=c["seed"])
        return s, spec

    def transformed(spec, it):
        spec, it = samplers.process_permutations(spec, it, True)
        if a.algo in ("binary_search", "minimum", "find_maximum_subarray", "find_maximum_subarray_kadane",
                      "matrix_chain_order", "lcs_length", "optimal_bst", "activity_selector", "task_scheduling",
                      "naive_string_matcher", "kmp_matcher", "jarvis_march"):
            spec, it = samplers.process_pred_as_input(spec, it)
        return spec, it

    def forever(s, bs):
        while True:
            yield s.next(bs)

    tr, spec = split("train")
    va, _ = split("val")
    spec2, trit = transformed(spec, forever(tr, a.batch))
    _, vait = transformed(spec, iter([va.next()]))
    vfb = next(vait)
    tfb = None
    if not (a.dump_steps and a.no_scores):
        te, _ = split("test")
        _, teit = transformed(spec, iter([te.next()]))
        tfb = next(teit)
    pf = processors.get_processor_factory(a.processor, use_ln=True, nb_triplet_fts=8, nb_heads=1)
    m = baselines.BaselineModel(spec=[spec2], dummy_trajectory=[vfb], processor_factory=pf, hidden_dim=a.hidden,
                                encode_hints=True, decode_hints=True, encoder_init="xavier_on_scalars",
                                learning_rate=1e-3, grad_clip_max_norm=1.0, hint_teacher_forcing=0.0,
                                hint_repred_mode="soft", dropout_prob=0.0, use_lstm=False,
                                checkpoint_path="/tmp/parity-ref-ck")
    key = jax.random.PRNGKey(a.seed)
    m.init([vfb.features], a.seed)

    def score(fb, part=0):
        nonlocal key
        f = fb.features
        B = f.lengths.shape[0]
        if part <= 0 or part >= B:
            key, k = jax.random.split(key)
            preds, _ = m.predict(k, f, algorithm_index=0)
            return float(evaluation.evaluate(fb.outputs, preds)["score"])
        # Part by part (--test-batch), joined, then scored once as a whole.
        def with_data(d, x):
            return probing.DataPoint(d.name, d.location, d.type_, x)

        parts = []
        t_parts = shown = time.time()
        for lo in range(0, B, part):
            if time.time() - shown >= 60:  # progress on long test splits (kmp_matcher: 2,048 samples)
                print(f"test: {lo} of {B} samples predicted ({time.time() - t_parts:.0f}s)", file=sys.stderr,
                      flush=True)
                shown = time.time()
            s = slice(lo, min(lo + part, B))
            fs = f._replace(inputs=[with_data(d, d.data[s]) for d in f.inputs],
                            hints=[with_data(d, d.data[:, s]) for d in f.hints],
                            lengths=f.lengths[s])
            key, k = jax.random.split(key)
            p, _ = m.predict(k, fs, algorithm_index=0)
            parts.append(p)
        preds = {name: with_data(dp, np.concatenate([np.asarray(p[name].data) for p in parts]))
                 for name, dp in parts[0].items()}
        return float(evaluation.evaluate(fb.outputs, preds)["score"])

    if a.trace:
        trace_steps(a, m, trit, key)
        return
    if a.dump_steps:
        dump_steps(a, m, trit, key, None if a.no_scores else lambda: (score(vfb), score(tfb)))
        return

    best, best_params, best_step = -1.0, None, 0
    losses = []
    t0 = time.time()
    for i in range(1, a.steps + 1):
        key, k = jax.random.split(key)
        loss = float(m.feedback(k, next(trit), algorithm_index=0))
        losses.append(loss)
        if i % a.eval_every == 0 or i == a.steps:
            v = score(vfb)
            if v > best:
                best, best_step = v, i
                best_params = jax.tree_util.tree_map(lambda x: x, m.params)
            print(f"step {i} loss {loss:.4f} val {v:.4f} ({time.time() - t0:.0f}s)", file=sys.stderr, flush=True)
    m.params = best_params
    t = score(tfb, a.test_batch)
    print(json.dumps({"system": "reference", "algo": a.algo, "processor": a.processor, "steps": a.steps,
                      "hidden": a.hidden, "batch": a.batch, "seed": a.seed, "best_val": best,
                      "best_step": best_step, "test": t, "test_batch": a.test_batch, "final_loss": losses[-1],
                      "seconds": round(time.time() - t0, 1)}))


def dump_steps(a, m, batches, key, scores):
    """Initial parameters, the first a.steps losses and the val and test
    scores of the parameters after them (scores() → (val, test); null
    without scores, --no-scores), and the seconds the steps took, as JSON
    (--dump-steps)."""
    import jax
    import numpy as np
    params = {}
    for module, ps in m.params.items():
        for name, v in ps.items():
            v = np.asarray(v, dtype=np.float64)
            params[module + "|" + name] = {"shape": list(v.shape), "data": [float(x) for x in v.ravel()]}
    losses = []
    t0 = time.time()
    for _ in range(a.steps):
        key, k = jax.random.split(key)
        losses.append(float(m.feedback(k, next(batches), algorithm_index=0)))
    seconds = time.time() - t0
    val, test = scores() if scores else (None, None)
    with open(a.dump_steps, "w") as f:
        json.dump({"generator": "scripts/parity_ref.py --dump-steps (dm-clrs 2.0.3 BaselineModel, JAX CPU)",
                   "algorithm": a.algo, "processor": a.processor, "hidden": a.hidden, "batch": a.batch,
                   "seed": a.seed, "losses": losses, "val": val, "test": test,
                   "seconds": round(seconds, 1), "params": params}, f)
        f.write("\n")


# The relative gaps the tie probes count (--tie-events): a maximum whose
# runner-up is this close below it (relative to its magnitude), or a ReLU
# input this close to 0, may be chosen the other way by another
# implementation's rounding.
NEAR = (1e-7, 1e-6, 1e-5)


def install_tie_probes(events):
    """Makes every reduce_max and elementwise max the reference binds
    (jnp.max, jnp.maximum, jax.nn.relu's primal) count, when run eagerly
    (under jax.disable_jit), how many of its results are exact ties and how
    many near ties (NEAR), into events: (kind, shape, counts)."""
    import numpy as np
    from jax._src.lax import lax as lax_internal

    def probe(prim, stats):
        orig = prim.bind

        def bind(*args, **params):
            out = orig(*args, **params)
            try:
                vals = [np.asarray(x) for x in (out,) + args]
            except Exception:  # a tracer: not run eagerly
                return out
            kind, counts, where = stats(*vals, **params)
            events.append((kind, tuple(vals[1].shape), counts, where))
            return out

        prim.bind = bind

    def reduce_stats(out, x, axes, **_):
        with np.errstate(all="ignore"):
            keep = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
            mk = np.reshape(out, keep)
            tied = x == mk
            k = np.sum(tied, axis=tuple(axes))
            second = np.max(np.where(tied, -np.inf, x), axis=tuple(axes))
            rel = (out - second) / np.maximum(np.abs(out), 1e-30)
            where = [("tie", tuple(int(j) for j in ix)) for ix in np.argwhere(k > 1)]
            where += [(f"gap {float(rel[tuple(ix)]):.1e}", tuple(int(j) for j in ix))
                      for ix in np.argwhere((rel > 0) & (rel <= NEAR[0]))]
            return "reduce_max", [int(np.sum(k > 1))] + [int(np.sum((rel > 0) & (rel <= t))) for t in NEAR], where

    def max_stats(out, a, b, **_):
        with np.errstate(all="ignore"):
            a, b = np.broadcast_arrays(a, b)
            d = np.abs(a.astype(np.float64) - b)
            if np.all(b == 0):  # max(x, 0), a ReLU: gaps in absolute terms
                kind, rel = "relu", d
            else:
                kind, rel = "maximum", d / np.maximum(np.maximum(np.abs(a), np.abs(b)), 1e-30)
            where = [("tie", tuple(int(j) for j in ix)) for ix in np.argwhere(a == b)] if kind != "relu" else []
            where += [(f"gap {float(rel[tuple(ix)]):.1e}", tuple(int(j) for j in ix))
                      for ix in np.argwhere((d > 0) & (rel <= NEAR[0]))]
            if kind == "relu":
                where += [("zero", tuple(int(j) for j in ix)) for ix in np.argwhere(a == 0)]
            return kind, [int(np.sum(a == b))] + [int(np.sum((d > 0) & (rel <= t))) for t in NEAR], where

    probe(lax_internal.reduce_max_p, reduce_stats)
    probe(lax_internal.max_p, max_stats)


def report_tie_events(step, events):
    """Sums the probes' events of one step per (kind, shape) and prints them."""
    acc, calls = {}, {}
    for kind, shape, counts, where in events:
        c = acc.setdefault((kind, shape), [0] * len(counts))
        n = calls[(kind, shape)] = calls.get((kind, shape), 0) + 1
        if len(where) <= 20:  # not the readout's ties of the zero initial latents
            for what, ix in where:
                print(f"ties: step {step} {kind} {list(shape)} call {n}: {what} at {list(ix)}", file=sys.stderr)
        for i, x in enumerate(counts):
            c[i] += x
    for (kind, shape), c in sorted(acc.items()):
        if any(c):
            print(f"ties: step {step} {kind} {list(shape)} ({calls[(kind, shape)]} calls): exact {c[0]}, near " +
                  ", ".join(f"≤{t:g}: {x}" for t, x in zip(NEAR, c[1:])), file=sys.stderr, flush=True)


def one_sample(fb, b):
    """Sample b of a batch as a batch of one (hints keep their padded time axis)."""
    def dp(d, hint):
        x = d.data[:, b:b + 1] if hint else d.data[b:b + 1]
        return d.__class__(d.name, d.location, d.type_, x)

    f = fb.features
    feats = f._replace(inputs=[dp(d, False) for d in f.inputs], hints=[dp(d, True) for d in f.hints],
                       lengths=f.lengths[b:b + 1])
    return fb._replace(features=feats, outputs=[dp(d, False) for d in fb.outputs])


def trace_steps(a, m, batches, key):
    """For each of the first a.steps training steps, the parameters before
    it, its loss and the gradient of that loss (the same key and batch as
    the step's feedback), as JSON (--trace FILE): lib/nn's
    TestReferenceSameInitTrace loads each step's parameters into narlab and
    compares the loss and the gradients there, so that a difference in the
    function shows at the step it happens instead of compounded by the
    steps before it."""
    import jax
    import numpy as np

    def flat(tree):
        out = {}
        for module, ps in tree.items():
            for name, v in ps.items():
                v = np.asarray(v, dtype=np.float64)
                out[module + "|" + name] = {"shape": list(v.shape), "data": [float(x) for x in v.ravel()]}
        return out

    events = []
    if a.tie_events:
        install_tie_probes(events)
    steps = []
    for i in range(a.steps):
        key, k = jax.random.split(key)
        fb = next(batches)
        params = flat(m.params)
        if a.tie_events:
            events.clear()
            with jax.disable_jit():
                m.net_fn.apply(m.params, k, [fb.features], repred=False, algorithm_index=0, return_hints=True,
                               return_all_outputs=False)
            report_tie_events(i + 1, events)
        loss, grads = m.compute_grad(k, fb, algorithm_index=0)
        rec = {"loss": float(loss), "params": params, "grads": flat(grads)}
        if str(i + 1) in a.trace_samples.split(","):
            rec["samples"] = []
            for b in range(fb.features.lengths.shape[0]):
                if a.tie_events and str(b) in a.probe_samples.split(","):
                    events.clear()
                    with jax.disable_jit():
                        m.net_fn.apply(m.params, k, [one_sample(fb, b).features], repred=False, algorithm_index=0,
                                       return_hints=True, return_all_outputs=False)
                    report_tie_events(f"{i + 1} sample {b} alone", events)
                sl, sg = m.compute_grad(k, one_sample(fb, b), algorithm_index=0)
                if str(b) in a.eager_samples.split(","):
                    with jax.disable_jit():
                        el, eg = m.compute_grad(k, one_sample(fb, b), algorithm_index=0)
                    rec.setdefault("samples_eager", {})[str(b)] = {"loss": float(el), "grads": flat(eg)}
                    fj, fe = flat(sg), flat(eg)
                    norm = np.sqrt(sum(np.sum(np.square(v["data"])) for v in fj.values()))
                    diff = {n: np.sqrt(np.sum(np.square(np.subtract(fj[n]["data"], fe[n]["data"])))) for n in fj}
                    top = sorted(diff.items(), key=lambda kv: -kv[1])[:3]
                    print(f"eager: step {i + 1} sample {b} alone: loss {float(el):.7f}, compiled {float(sl):.7f}; "
                          f"‖Δ‖/norm of the gradient {np.sqrt(sum(d * d for d in diff.values())) / norm:.1e} (most at " +
                          ", ".join(f"{n} {d / norm:.1e}" for n, d in top) + ")", file=sys.stderr, flush=True)
                rec["samples"].append({"loss": float(sl), "grads": flat(sg)})
        rec["feedback_loss"] = float(m.feedback(k, fb, algorithm_index=0))
        steps.append(rec)
        print(f"trace: step {i + 1} loss {rec['feedback_loss']:.7f}", file=sys.stderr, flush=True)
    with open(a.trace, "w") as f:
        json.dump({"generator": "scripts/parity_ref.py --trace (dm-clrs 2.0.3 BaselineModel, JAX CPU)",
                   "algorithm": a.algo, "processor": a.processor, "hidden": a.hidden, "batch": a.batch,
                   "seed": a.seed, "steps": steps}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
