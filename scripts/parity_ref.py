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
    te, _ = split("test")
    spec2, trit = transformed(spec, forever(tr, a.batch))
    _, vait = transformed(spec, iter([va.next()]))
    _, teit = transformed(spec, iter([te.next()]))
    vfb, tfb = next(vait), next(teit)
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

    if a.dump_steps:
        dump_steps(a, m, trit, key, lambda: (score(vfb), score(tfb)))
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
    scores of the parameters after them (scores() → (val, test)), as JSON
    (--dump-steps)."""
    import jax
    import numpy as np
    params = {}
    for module, ps in m.params.items():
        for name, v in ps.items():
            v = np.asarray(v, dtype=np.float64)
            params[module + "|" + name] = {"shape": list(v.shape), "data": [float(x) for x in v.ravel()]}
    losses = []
    for _ in range(a.steps):
        key, k = jax.random.split(key)
        losses.append(float(m.feedback(k, next(batches), algorithm_index=0)))
    val, test = scores()
    with open(a.dump_steps, "w") as f:
        json.dump({"generator": "scripts/parity_ref.py --dump-steps (dm-clrs 2.0.3 BaselineModel, JAX CPU)",
                   "algorithm": a.algo, "processor": a.processor, "hidden": a.hidden, "batch": a.batch,
                   "seed": a.seed, "losses": losses, "val": val, "test": test,
                   "params": params}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
