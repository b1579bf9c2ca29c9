"""The reference's side of scripts/bench_steady.sh: the steady state of a CLRS-30 protocol row's training.

dm-clrs 2.0.3's BaselineModel (JAX on this machine) under run.py's model settings, built as
scripts/ref_protocol.py builds it (its transformed train-split batches, hidden 128, batches of 32), trains
as lib/nn's BenchmarkSteady does, in the same order:

  first_step_s   building and initialising the model and its first training step (JAX's compilation);
  steps_per_s    steady state over STEPS steps cycling through the eight train batches, after one pass
                 over them (the other seven batches' steps);
  cpu_s_per_step the process's CPU time (user and system) per steady-state step: on a shared machine the
                 figure that load changes least;
  peak_rss_mb    the process's peak resident memory at the end.

Usage: ref_steady.py REF_DIR ALGO PROCESSOR [STEPS]   → one JSON line.
"""
import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ref_protocol as rp  # noqa: E402  (its model, batches and transforms)


def main():
    ref, algo, proc = sys.argv[1], sys.argv[2], sys.argv[3]
    steps = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    rp.import_reference(ref)
    import jax
    from clrs._src import samplers

    c = samplers.CLRS30["train"]
    tr, spec = samplers.build_sampler(algo, num_samples=c["num_samples"], length=c["length"], seed=c["seed"])
    spec2, trit = rp.transformed(algo, spec, iter([tr.next(32) for _ in range(8)]))
    train = [next(trit) for _ in range(8)]

    t0 = time.time()
    m = rp.baseline_model(spec2, train[0], proc)
    key = jax.random.PRNGKey(42)
    m.init([train[0].features], 42)

    def step(fb):
        nonlocal key
        key, k = jax.random.split(key)
        return float(m.feedback(k, fb, algorithm_index=0))  # float(): the step has finished

    step(train[0])
    first = time.time() - t0
    for fb in train[1:]:
        step(fb)
    print(f"{algo}/{proc}: first step {first:.1f} s, warm after {time.time() - t0:.1f} s", file=sys.stderr, flush=True)
    ru0, ts = resource.getrusage(resource.RUSAGE_SELF), time.time()
    for k in range(steps):
        step(train[k % len(train)])
    wall = time.time() - ts
    ru1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime)
    print(json.dumps({"algo": algo, "processor": proc, "first_step_s": first, "steps_per_s": steps / wall,
                      "cpu_s_per_step": cpu / steps, "peak_rss_mb": ru1.ru_maxrss / 1024, "steps": steps,
                      "device": jax.devices()[0].platform}), flush=True)


if __name__ == "__main__":
    main()
