"""The reference's side of BenchmarkPredict (lib/nn): evaluation alone.

dm-clrs 2.0.3's BaselineModel under run.py's settings at the paper's size
(ref_protocol.py's) predicts one batch of 32 of the CLRS-30 test split (its
first 32 trajectories, n=64; hints keep the split's length, as the
reference's split batches do) REPEATS times after a first, compiling,
prediction. Prints one JSON line: seconds per batch and per step.

Usage: ref_predict.py REF_DIR ALGO PROCESSOR [REPEATS]
"""
import json
import sys
import time

from ref_protocol import baseline_model, import_reference, transformed


def main():
    ref, algo, proc = sys.argv[1], sys.argv[2], sys.argv[3]
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    import_reference(ref)
    import jax
    import numpy as np
    from clrs._src import probing, samplers, specs

    c = samplers.CLRS30["test"]
    n = c["num_samples"] * specs.CLRS_30_ALGS_SETTINGS[algo]["num_samples_multiplier"]
    sampler, spec = samplers.build_sampler(algo, num_samples=n, length=c["length"], seed=c["seed"])
    spec, it = transformed(algo, spec, iter([sampler.next()]))
    whole = next(it)

    def first32(dps, axis):
        return [probing.DataPoint(name=d.name, location=d.location, type_=d.type_,
                                  data=np.take(d.data, range(32), axis=axis)) for d in dps]
    feats = samplers.Features(inputs=first32(whole.features.inputs, 0), hints=first32(whole.features.hints, 1),
                              lengths=whole.features.lengths[:32])
    fb = samplers.Feedback(features=feats, outputs=first32(whole.outputs, 0))
    m = baseline_model(spec, fb, proc)
    m.init([fb.features], 42)
    key = jax.random.PRNGKey(0)

    def predict():
        preds, _ = m.predict(key, fb.features, algorithm_index=0)
        jax.block_until_ready(preds)

    predict()  # compilation, outside the timing
    t0 = time.time()
    for _ in range(repeats):
        predict()
    per_batch = (time.time() - t0) / repeats
    steps = int(fb.features.hints[0].data.shape[0]) - 1
    print(json.dumps({"algo": algo, "processor": proc, "s_per_batch": per_batch,
                      "ms_per_step": 1e3 * per_batch / steps, "steps": steps}), flush=True)


if __name__ == "__main__":
    main()
