"""The reference's side of `make bench-protocol` (scripts/bench_protocol.sh).

dm-clrs 2.0.3's BaselineModel (JAX on this CPU) under run.py's model settings
(hidden 128, batches of 32, hints encoded and decoded, soft re-prediction,
teacher forcing 0, gradient clipping 1, layer norm, 8 triplet features,
permutations enforced, a constant pred_h moved to an input) runs the CLRS-30
protocol as lib/nn's BenchmarkProtocol does, in the same order:

  first_step_s  building and initialising the model and its first training
                step on the train split (n=16): JAX's compilation;
  protocol_s    that, a second step, then the whole val split (n=16) and the
                whole test split (n=64) predicted in batches of 32;
  val_s, test_s the two evaluations (compilation included);
  steps_per_s   steady state over STEPS steps after one pass over the eight
                train batches they cycle through;
  peak_rss_mb   the process's peak resident memory at the end of the
                protocol (before the steady-state steps);
  peak_rss_all_mb  the same at the very end;
  device_peak_mb  on a GPU, JAX's own count of the device memory in use at
                its peak (jax.Device.memory_stats).

Usage: ref_protocol.py REF_DIR ALGO PROCESSOR [STEPS]   → one JSON line.

The test split of some rows (quickselect: 2,048 samples of up to 479 steps)
takes longer than a working session. With NARLAB_BENCH_PROGRESS=FILE the
test split resumes: every 30 s and after the last batch, the batches done,
their summed time and the peak memory so far go to FILE (written whole, then
renamed), and a later run on the same machine (NARLAB_BENCH_MACHINE, compared
as a string) redoes the model, the two steps and the val split, skips the
batches done and adds their time to its own; the row's "test_processes" says
how many runs the test split took. lib/nn's BenchmarkProtocol reads the same
variables.
"""
import json
import os
import tempfile
import resource
import sys
import time
import types


# The algorithms whose constant pred_h the reference's run.py moves to an
# input (enforce_pred_as_input).
PRED_AS_INPUT = ("binary_search", "minimum", "find_maximum_subarray", "find_maximum_subarray_kadane",
                 "matrix_chain_order", "lcs_length", "optimal_bst", "activity_selector", "task_scheduling",
                 "naive_string_matcher", "kmp_matcher", "jarvis_march")


def import_reference(ref):
    """Imports dm-clrs from the harness directory ref (scripts/ref-harness.sh) as the package clrs."""
    sys.path.insert(0, os.path.join(ref, "jaxstubs"))
    sys.path.insert(1, ref)
    pkg = types.ModuleType("clrs")
    pkg.__path__ = [os.path.join(ref, "clrs")]
    sys.modules["clrs"] = pkg


def transformed(algo, spec, it):
    """run.py's input processing: permutations enforced, a constant pred_h moved to an input."""
    from clrs._src import samplers
    spec, it = samplers.process_permutations(spec, it, True)
    if algo in PRED_AS_INPUT:
        spec, it = samplers.process_pred_as_input(spec, it)
    return spec, it


def baseline_model(spec, dummy, proc):
    """BaselineModel under run.py's settings at the paper's size, not yet initialised."""
    from clrs._src import baselines, processors
    pf = processors.get_processor_factory(proc, use_ln=True, nb_triplet_fts=8, nb_heads=1)
    return baselines.BaselineModel(spec=[spec], dummy_trajectory=[dummy], processor_factory=pf, hidden_dim=128,
                                   encode_hints=True, decode_hints=True, encoder_init="xavier_on_scalars",
                                   learning_rate=1e-3, grad_clip_max_norm=1.0, hint_teacher_forcing=0.0,
                                   hint_repred_mode="soft", dropout_prob=0.0, use_lstm=False,
                                   checkpoint_path="/tmp/ref-protocol-ck")


PROGRESS_EVERY = 30  # seconds between writes of the progress file (lib/nn's progressEvery)


class Progress:
    """The test split's progress across runs (NARLAB_BENCH_PROGRESS; see the module's doc)."""

    def __init__(self, path, machine, row):
        self.path, self.machine, self.row = path, machine, row
        self.batches, self.test_s, self.peak_rss_mb, self.processes = 0, 0.0, 0.0, 1
        if not path or not os.path.exists(path):
            return
        try:
            with open(path) as f:
                old = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"ref_protocol: {path}: unreadable progress ({e}); remove it to start the row over")
        if old.get("machine") != machine or old.get("row") != row:
            print(f"ref_protocol: {path} was written for {old.get('row')!r} on {old.get('machine')!r}, "
                  f"not {row!r} on {machine!r}: starting the test split over", file=sys.stderr)
            return
        self.batches, self.test_s = int(old["batches"]), float(old["test_s"])
        self.peak_rss_mb, self.processes = float(old["peak_rss_mb"]), int(old["processes"]) + 1
        print(f"ref_protocol: resuming the test split after {self.batches} batches "
              f"({self.test_s:.1f} s in {self.processes - 1} earlier runs)", file=sys.stderr)

    def save(self, batches, test_s, rss_mb):
        if not self.path:
            return
        self.peak_rss_mb = max(self.peak_rss_mb, rss_mb)  # the peak over all runs so far
        rec = {"row": self.row, "machine": self.machine, "batches": batches, "test_s": test_s,
               "peak_rss_mb": self.peak_rss_mb, "processes": self.processes}
        d = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(d, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".progress-")
        with os.fdopen(fd, "w") as f:
            json.dump(rec, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)


def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    ref, algo, proc = sys.argv[1], sys.argv[2], sys.argv[3]
    steps = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    progress = Progress(os.environ.get("NARLAB_BENCH_PROGRESS"), os.environ.get("NARLAB_BENCH_MACHINE", ""),
                        f"{algo}/{proc}")
    import_reference(ref)
    import jax
    import numpy as np
    from clrs._src import evaluation, probing, samplers, specs

    def split(name):
        c = samplers.CLRS30[name]
        n = c["num_samples"]
        if name != "train":
            n *= specs.CLRS_30_ALGS_SETTINGS[algo]["num_samples_multiplier"]
        return samplers.build_sampler(algo, num_samples=n, length=c["length"], seed=c["seed"])

    def batches_of(fb, size=32):
        """The whole split fb in batches of size (hints keep the split's length, as the reference's
        split batches do)."""
        total = fb.features.lengths.shape[0]
        out = []
        for lo in range(0, total, size):
            hi = min(lo + size, total)

            def cut(dps, axis):
                return [probing.DataPoint(name=d.name, location=d.location, type_=d.type_,
                                          data=np.take(d.data, range(lo, hi), axis=axis)) for d in dps]
            feats = samplers.Features(inputs=cut(fb.features.inputs, 0), hints=cut(fb.features.hints, 1),
                                      lengths=fb.features.lengths[lo:hi])
            out.append(samplers.Feedback(features=feats, outputs=cut(fb.outputs, 0)))
        return out

    tr, spec = split("train")
    va, _ = split("val")
    te, _ = split("test")
    spec2, trit = transformed(algo, spec, iter([tr.next(32) for _ in range(8)]))
    train = [next(trit) for _ in range(8)]
    _, vait = transformed(algo, spec, iter([va.next()]))
    _, teit = transformed(algo, spec, iter([te.next()]))
    val, test = batches_of(next(vait)), batches_of(next(teit))

    t0 = time.time()
    m = baseline_model(spec2, val[0], proc)
    key = jax.random.PRNGKey(42)
    m.init([val[0].features], 42)

    def step(fb):
        nonlocal key
        key, k = jax.random.split(key)
        return float(m.feedback(k, fb, algorithm_index=0))

    def evaluate(batches, done=0, after=None):
        """Predicts and scores batches[done:] (the keys of the batches before still drawn), calling
        after(i) when batch i is done."""
        nonlocal key
        scores = []
        for i, fb in enumerate(batches):
            key, k = jax.random.split(key)
            if i < done:
                continue
            preds, _ = m.predict(k, fb.features, algorithm_index=0)
            scores.append(float(evaluation.evaluate(fb.outputs, preds)["score"]))
            if after:
                after(i)
        return scores

    def phase(what):  # progress on stderr, so that a row stopped by a time limit says how far it got
        print(f"{algo}/{proc}: {what} after {time.time() - t0:.1f} s", file=sys.stderr, flush=True)

    step(train[0])
    first = time.time() - t0
    phase("first training step")
    step(train[1])
    tv = time.time()
    evaluate(val)
    val_s = time.time() - tv
    phase("val split")
    tt = saved = time.time()

    def after(i):  # the progress file every PROGRESS_EVERY seconds and after the last batch
        nonlocal saved
        if time.time() - saved >= PROGRESS_EVERY or i + 1 == len(test):
            progress.save(i + 1, progress.test_s + time.time() - tt, rss_mb())
            saved = time.time()
            phase(f"test split: {i + 1} of {len(test)} batches")
    evaluate(test, progress.batches, after)
    here = time.time() - tt
    test_s = progress.test_s + here  # this run's batches and the earlier runs'
    protocol = time.time() - t0 - here + test_s
    phase("test split (the protocol)")
    rss_protocol = max(rss_mb(), progress.peak_rss_mb)
    for fb in train[2:]:
        step(fb)
    ts = time.time()
    for k in range(steps):
        step(train[k % len(train)])
    rate = steps / (time.time() - ts)
    rss = max(rss_mb(), progress.peak_rss_mb)
    row = {"algo": algo, "processor": proc, "first_step_s": first, "protocol_s": protocol,
           "val_s": val_s, "test_s": test_s, "steps_per_s": rate, "peak_rss_mb": rss_protocol,
           "peak_rss_all_mb": rss, "device": jax.devices()[0].platform}
    runs = progress.processes if progress.batches < len(test) else progress.processes - 1
    if runs > 1:
        row["test_processes"] = runs
    stats = jax.devices()[0].memory_stats() or {}  # None on the CPU
    if "peak_bytes_in_use" in stats:
        row["device_peak_mb"] = stats["peak_bytes_in_use"] / 2**20
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
