"""The reference's side of the multi-algorithm comparison (scripts/parity_multi.py).

Trains one dm-clrs 2.0.3 BaselineModel of several algorithms (JAX on CPU)
as examples/run.py trains --algorithms a,b,c: one processor, each
algorithm's encoders and decoders; init with one training batch per
algorithm (seed + 1); each step one batch per algorithm, in the list's
order, each its own feedback (one optimiser update, algorithm_index i, the
step key split from one chain as run.py does); every EVAL_EVERY steps (and
at the last) each algorithm is validated and the parameters with the
highest sum of the algorithms' scores are kept (the first validation's
always); each algorithm is then tested with them. The model settings are
run.py's (hints encoded and decoded, soft hint re-prediction, teacher
forcing 0, gradient clipping 1.0, layer norm, nb_triplet_fts 8, Adam 1e-3,
permutations enforced, a constant pred_h moved to an input).

The data are narlab's `--train-data split` (the same on both sides): the
fixed CLRS-30 train split (1000 samples, n=16, seed 1) of each algorithm,
batches drawn from its sampler; validation on the whole CLRS-30 val split,
the test on the whole test split (n=64), predicted TEST_BATCH samples at
a time and scored joined (the same score, less memory); the splits' own
pos inputs (no random_pos). run.py's own data differ only in where they
come from (fresh samples of lengths 4..16 with random positions, its own
val sampler): scripts/ref_options.py's runpy cases hold those.

Usage: parity_multi_ref.py REF_DIR ALGOS PROCESSOR STEPS [--hidden H]
       [--batch B] [--seed S] [--eval-every K] [--test-batch K]
ALGOS is comma-separated. Prints one JSON line: per algorithm the
validation score at the best step and the test score, the best step, the
final losses, seconds, and the process's peak resident memory (MB).
"""
import argparse
import json
import os
import resource
import sys
import time
import types

PRED_AS_INPUT = ("binary_search", "minimum", "find_maximum_subarray", "find_maximum_subarray_kadane",
                 "matrix_chain_order", "lcs_length", "optimal_bst", "activity_selector", "task_scheduling",
                 "naive_string_matcher", "kmp_matcher", "jarvis_march")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ref")
    ap.add_argument("algos")
    ap.add_argument("processor")
    ap.add_argument("steps", type=int)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--test-batch", type=int, default=8)
    a = ap.parse_args()
    algos = a.algos.split(",")

    sys.path.insert(0, os.path.join(a.ref, "jaxstubs"))
    sys.path.insert(1, a.ref)
    pkg = types.ModuleType("clrs")
    pkg.__path__ = [os.path.join(a.ref, "clrs")]
    sys.modules["clrs"] = pkg
    import jax
    import numpy as np
    from clrs._src import baselines, evaluation, probing, processors, samplers, specs

    def split(algo, name):
        c = samplers.CLRS30[name]
        n = c["num_samples"]
        if name != "train":
            n *= specs.CLRS_30_ALGS_SETTINGS[algo]["num_samples_multiplier"]
        return samplers.build_sampler(algo, num_samples=n, length=c["length"], seed=c["seed"])

    def transformed(algo, spec, it):
        spec, it = samplers.process_permutations(spec, it, True)
        if algo in PRED_AS_INPUT:
            spec, it = samplers.process_pred_as_input(spec, it)
        return spec, it

    def forever(s, bs):
        while True:
            yield s.next(bs)

    t_start = time.time()
    specs_, trains, vals, tests = [], [], [], []
    for algo in algos:
        tr, spec = split(algo, "train")
        va, _ = split(algo, "val")
        te, _ = split(algo, "test")
        spec2, trit = transformed(algo, spec, forever(tr, a.batch))
        _, vait = transformed(algo, spec, iter([va.next()]))
        _, teit = transformed(algo, spec, iter([te.next()]))
        specs_.append(spec2)
        trains.append(trit)
        vals.append(next(vait))
        tests.append(next(teit))
    pf = processors.get_processor_factory(a.processor, use_ln=True, nb_triplet_fts=8, nb_heads=1)
    m = baselines.BaselineModel(spec=specs_, dummy_trajectory=vals, processor_factory=pf, hidden_dim=a.hidden,
                                encode_hints=True, decode_hints=True, encoder_init="xavier_on_scalars",
                                learning_rate=1e-3, grad_clip_max_norm=1.0, hint_teacher_forcing=0.0,
                                hint_repred_mode="soft", dropout_prob=0.0, use_lstm=False,
                                checkpoint_path="/tmp/parity-multi-ref-ck")
    key = jax.random.PRNGKey(a.seed)

    def with_data(d, x):
        return probing.DataPoint(d.name, d.location, d.type_, x)

    def score(i, fb, part=0):
        nonlocal key
        f = fb.features
        B = f.lengths.shape[0]
        if part <= 0 or part >= B:
            new, key = jax.random.split(key)
            preds, _ = m.predict(new, f, algorithm_index=i)
            return float(evaluation.evaluate(fb.outputs, preds)["score"])
        parts = []
        for lo in range(0, B, part):
            s = slice(lo, min(lo + part, B))
            fs = f._replace(inputs=[with_data(d, d.data[s]) for d in f.inputs],
                            hints=[with_data(d, d.data[:, s]) for d in f.hints], lengths=f.lengths[s])
            new, key = jax.random.split(key)
            p, _ = m.predict(new, fs, algorithm_index=i)
            parts.append(p)
        preds = {name: with_data(dp, np.concatenate([np.asarray(p[name].data) for p in parts]))
                 for name, dp in parts[0].items()}
        return float(evaluation.evaluate(fb.outputs, preds)["score"])

    best, best_params, best_step, best_vals = -1.0, None, 0, None
    losses = [None] * len(algos)
    t0 = time.time()
    for step in range(1, a.steps + 1):
        batches = [next(it) for it in trains]
        if step == 1:
            m.init([fb.features for fb in batches], a.seed + 1)
        for i, fb in enumerate(batches):
            key, new = jax.random.split(key)
            losses[i] = float(m.feedback(key, fb, algorithm_index=i))
            key = new
        if step % a.eval_every == 0 or step == a.steps:
            v = [score(i, vals[i]) for i in range(len(algos))]
            if sum(v) > best or best_params is None:
                best, best_step, best_vals = sum(v), step, v
                best_params = jax.tree_util.tree_map(lambda x: x, m.params)
            print(f"step {step} losses {['%.4f' % x for x in losses]} val {['%.4f' % x for x in v]} "
                  f"({time.time() - t0:.0f}s)", file=sys.stderr, flush=True)
    train_s = time.time() - t0
    m.params = best_params
    t1 = time.time()
    test = [score(i, tests[i], a.test_batch) for i in range(len(algos))]
    print(json.dumps({"system": "reference", "algorithms": algos, "processor": a.processor, "steps": a.steps,
                      "hidden": a.hidden, "batch": a.batch, "seed": a.seed, "eval_every": a.eval_every,
                      "best_step": best_step, "best_val": dict(zip(algos, best_vals)), "test": dict(zip(algos, test)),
                      "final_loss": dict(zip(algos, losses)), "train_s": round(train_s, 1),
                      "test_s": round(time.time() - t1, 1), "seconds": round(time.time() - t_start, 1),
                      "test_batch": a.test_batch,
                      "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))


if __name__ == "__main__":
    main()
