"""The reference's side of narlab's dm-clrs checkpoint tests (lib/nn
refckpt_test.go, refckpt_bridge_test.go; docs/baselines.md, "dm-clrs
checkpoints").

Builds dm-clrs 2.0.3's BaselineModel under run.py's model settings (those
of narlab's nn.DefaultConfig and scripts/parity_ref.py: hints encoded and
decoded, soft hint re-prediction, teacher forcing 0, gradient clipping 1.0,
layer norm, nb_triplet_fts 8, one GAT head, Adam 1e-3, permutations
enforced, a constant pred_h moved to an input), or with the model options
given (--nb-heads, --nb-msg-passing-steps, --nb-triplet-fts, --no-ln,
--use-lstm, --dropout-prob, --encoder-init, --freeze-processor,
--hint-repred-mode, --hint-teacher-forcing: run.py's flags), draws batches of BATCH
samples from the CLRS-30 train split's sampler (narlab's split sampler
draws the same ones), and then either

  --save FILE     trains STEPS steps from its own initialisation (seed SEED)
                  and writes the checkpoint with BaselineModel.save_model, or
  --restore FILE  reads a checkpoint with BaselineModel.restore_model
                  (after init, as restore_model requires) and skips the
                  STEPS training batches,

and in both cases writes as JSON (--out) what the model then does: its
predictions on the next batch (BaselineModel.predict: hard, as dm-clrs
scores them; and the decoders' raw outputs, net_fn.apply as predict calls
it), clrs.evaluate's scores of those predictions, and the losses of
BaselineModel.feedback on the two batches after it (the second depends on
the optimizer state the checkpoint carried) with the keys it gave them
(after_keys: dropout, teacher forcing and Gumbel noise draw from them).

--algo A,B,C makes a BaselineModel of several algorithms (spec=[...], one
processor, each algorithm's encoders and decoders algo_<i>_…) trained as
run.py trains one: each step one batch per algorithm, feedback with its
algorithm_index in the list's order. Then the JSON holds, per algorithm
("runs"), its outputs and scores on its next batch, and the losses of the
two training steps after it in call order ("calls": [algorithm index,
loss]; "call_keys": each call's key). The model options apply to the
model of several algorithms as to a model of one.

--jobs FILE runs several of these in one interpreter: FILE holds a JSON
list of argument lists (each one run's flags, as above, --out included),
run in order. Importing JAX and compiling dm-clrs's initialisation take
much of one run's time, and the runs share both (the tests restore all
their checkpoints in one call).

Run it with the bridge environment's python (scripts/setup-pybridge.sh);
TensorFlow and TFDS, which `import clrs` pulls in, are replaced by
python/tests/standins when they are not installed:

  PY=$(sed -n 's/^NARLAB_PYBRIDGE_PYTHON=//p' ~/.cache/narlab/pybridge.env)
  $PY scripts/dmclrs_checkpoint.py --algo insertion_sort --processor triplet_gmpnn \\
      --hidden 8 --batch 4 --steps 3 --save lib/nn/testdata/refckpt/insertion_sort-triplet_gmpnn.pkl \\
      --out lib/nn/testdata/refckpt/insertion_sort-triplet_gmpnn.json
"""
import argparse
import json
import os
import sys

PRED_AS_INPUT = ("binary_search", "minimum", "find_maximum_subarray", "find_maximum_subarray_kadane",
                 "matrix_chain_order", "lcs_length", "optimal_bst", "activity_selector", "task_scheduling",
                 "naive_string_matcher", "kmp_matcher", "jarvis_march")


def import_clrs():
    try:
        import tensorflow  # noqa: F401
    except ImportError:
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, os.path.join(here, "..", "python", "tests", "standins"))
    import clrs
    return clrs


def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--algo", required=True)
    ap.add_argument("--processor", required=True)
    ap.add_argument("--hidden", type=int, default=8)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--steps", type=int, default=3, help="training steps before the checkpoint")
    ap.add_argument("--nb-heads", type=int, default=1)
    ap.add_argument("--nb-msg-passing-steps", type=int, default=1)
    ap.add_argument("--nb-triplet-fts", type=int, default=8)
    ap.add_argument("--no-ln", action="store_true", help="use_ln=False")
    ap.add_argument("--use-lstm", action="store_true")
    ap.add_argument("--dropout-prob", type=float, default=0.0)
    ap.add_argument("--encoder-init", default="xavier_on_scalars")
    ap.add_argument("--freeze-processor", action="store_true")
    ap.add_argument("--hint-repred-mode", default="soft")
    ap.add_argument("--hint-teacher-forcing", type=float, default=0.0)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--save", help="train, then write the checkpoint here")
    g.add_argument("--restore", help="read the checkpoint from here")
    ap.add_argument("--out", required=True, help="the JSON of what the model does")
    return ap


def main():
    if sys.argv[1:2] == ["--jobs"]:
        if len(sys.argv) != 3:
            sys.exit("usage: dmclrs_checkpoint.py --jobs FILE (a JSON list of argument lists)")
        with open(sys.argv[2]) as f:
            jobs = json.load(f)
        if not isinstance(jobs, list) or not all(isinstance(j, list) and all(isinstance(x, str) for x in j) for j in jobs):
            sys.exit("%s: want a JSON list of argument lists (strings)" % sys.argv[2])
        runs = [parser().parse_args(j) for j in jobs]  # every job's flags checked before any work
        clrs = import_clrs()
        samplers = {}
        for i, a in enumerate(runs):
            print("job %d of %d: %s" % (i + 1, len(runs), " ".join(jobs[i])), file=sys.stderr, flush=True)
            run(clrs, a, samplers)
        return
    run(import_clrs(), parser().parse_args(), {})


def run(clrs, a, samplers):
    """One run of the script's flags a. samplers caches each algorithm's
    sampler as built (before any batch is drawn), for the runs of one
    interpreter: a run draws from a copy, so each run's batches are those of
    a fresh sampler."""
    import copy
    import jax
    import numpy as np

    algos = a.algo.split(",")
    c = clrs.CLRS30["train"]
    specs, its, firsts = [], [], []
    for algo in algos:
        if algo not in samplers:
            samplers[algo] = clrs.build_sampler(algo, num_samples=c["num_samples"], length=c["length"], seed=c["seed"])
        sampler, spec = copy.deepcopy(samplers[algo])

        def batches(sampler=sampler):
            while True:
                yield sampler.next(a.batch)

        spec2, it = clrs.process_permutations(spec, batches(), True)
        if algo in PRED_AS_INPUT:
            spec2, it = clrs.process_pred_as_input(spec2, it)
        specs.append(spec2)
        its.append(it)
        firsts.append(next(it))
    pf = clrs.get_processor_factory(a.processor, use_ln=not a.no_ln, nb_triplet_fts=a.nb_triplet_fts,
                                    nb_heads=a.nb_heads)
    path = os.path.abspath(a.save or a.restore)
    m = clrs.models.BaselineModel(
        spec=specs, dummy_trajectory=firsts, processor_factory=pf, hidden_dim=a.hidden,
        encode_hints=True, decode_hints=True, encoder_init=a.encoder_init, learning_rate=1e-3,
        grad_clip_max_norm=1.0, hint_teacher_forcing=a.hint_teacher_forcing, hint_repred_mode=a.hint_repred_mode,
        dropout_prob=a.dropout_prob, use_lstm=a.use_lstm, nb_msg_passing_steps=a.nb_msg_passing_steps,
        freeze_processor=a.freeze_processor, checkpoint_path=os.path.dirname(path))
    m.init([f.features for f in firsts], a.seed)
    key = jax.random.PRNGKey(a.seed)
    train = [firsts] + [[next(it) for it in its] for _ in range(a.steps - 1)]
    if a.save:
        for fbs in train:
            for i, fb in enumerate(fbs):
                key, k = jax.random.split(key)
                m.feedback(k, fb, algorithm_index=i)
        m.save_model(os.path.basename(path))
    else:
        m.restore_model(os.path.basename(path))

    runs = []
    for i, (algo, it) in enumerate(zip(algos, its)):
        ev = next(it)
        key, k = jax.random.split(key)
        preds, _ = m.predict(k, ev.features, algorithm_index=i)
        raw, _ = m.net_fn.apply(m.params, k, [ev.features], repred=True,
                                algorithm_index=i, return_hints=False, return_all_outputs=False)
        scores = {name: float(v) for name, v in clrs.evaluate(ev.outputs, preds).items()}
        outputs = {}
        for dp in ev.outputs:
            p = np.asarray(preds[dp.name].data, dtype=np.float64)
            r = np.asarray(raw[dp.name], dtype=np.float64)
            # Hard predictions in narlab's encoding: node indices for pointers
            # (dm-clrs's permutation pointers come as one-hot rows), the class or
            # node picked for mask_one and categorical, 0/1 for masks.
            if dp.type_ in ("permutation_pointer", "mask_one", "categorical"):
                hard = np.argmax(p, axis=-1)
            else:
                hard = p
            outputs[dp.name] = {"type": dp.type_, "location": dp.location, "shape": list(r.shape),
                                "raw": [float(x) for x in r.ravel()], "hard": [float(x) for x in np.ravel(hard)]}
        runs.append({"algorithm": algo, "outputs": outputs, "scores": scores})
    calls, call_keys = [], []
    for _ in range(2):
        for i, it in enumerate(its):
            key, k = jax.random.split(key)
            calls.append([i, float(m.feedback(k, next(it), algorithm_index=i))])
            call_keys.append([int(x) for x in np.asarray(k, dtype=np.uint32).ravel()])
    options = {"nb_heads": a.nb_heads, "nb_msg_passing_steps": a.nb_msg_passing_steps, "nb_triplet_fts": a.nb_triplet_fts,
               "use_ln": not a.no_ln, "use_lstm": a.use_lstm, "dropout_prob": a.dropout_prob,
               "encoder_init": a.encoder_init, "freeze_processor": a.freeze_processor,
               "hint_repred_mode": a.hint_repred_mode, "hint_teacher_forcing": a.hint_teacher_forcing}
    out = {"generator": "scripts/dmclrs_checkpoint.py (dm-clrs 2.0.3 BaselineModel, JAX CPU)",
           "mode": "save" if a.save else "restore", "processor": a.processor,
           "hidden": a.hidden, "batch": a.batch, "seed": a.seed, "steps": a.steps, "options": options}
    if len(algos) == 1:
        out.update(algorithm=algos[0], outputs=runs[0]["outputs"], scores=runs[0]["scores"],
                   losses=[loss for _, loss in calls], after_keys=call_keys)
    else:
        # call_keys: the key of each call (dropout, teacher forcing and
        # Gumbel noise draw from them).
        out.update(algorithms=algos, runs=runs, calls=calls, call_keys=call_keys)
    with open(a.out, "w") as f:
        json.dump(out, f)
        f.write("\n")


if __name__ == "__main__":
    main()
