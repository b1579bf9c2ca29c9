"""Steady-state training speed of the reference CLRS baseline (dm-clrs, JAX/Haiku on this CPU).

narlab's side of the same measurement is BenchmarkTrainStep in lib/nn; scripts/bench_train.sh runs both.
Setting (as refbench.py in ../shared/tools/clrs-ref): batches of 32 from the train-split sampler (n=16,
1000 samples, seed 1), eight batches cycled, hidden 128, hints encoded and decoded, teacher forcing 0,
soft hint re-prediction, gradient clipping 1.0, layer norm, 8 triplet features.

Usage: ref_trainbench.py REF_DIR ALGO PROCESSOR STEPS
Prints one JSON line: first_step_s (the first training step: compilation), steps_per_s (steady state).
"""
import json
import os
import sys
import time
import types

ref, algo, proc, steps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, os.path.join(ref, 'jaxstubs'))
sys.path.insert(1, ref)
pkg = types.ModuleType('clrs')
pkg.__path__ = [os.path.join(ref, 'clrs')]
sys.modules['clrs'] = pkg

import jax  # noqa: E402
from clrs._src import baselines, processors, samplers  # noqa: E402

sampler, spec = samplers.build_sampler(algo, num_samples=1000, length=16, seed=1)
batches = [sampler.next(32) for _ in range(8)]
# Sorting outputs as permutation pointers, as run.py (enforce_permutations) and narlab's default.
spec, it = samplers.process_permutations(spec, iter(batches), True)
batches = [next(it) for _ in range(8)]
factory = processors.get_processor_factory(proc, use_ln=True, nb_triplet_fts=8, nb_heads=1)
model = baselines.BaselineModel(
    spec=[spec], dummy_trajectory=[batches[0]], processor_factory=factory, hidden_dim=128,
    encode_hints=True, decode_hints=True, learning_rate=1e-3, grad_clip_max_norm=1.0,
    hint_teacher_forcing=0.0, hint_repred_mode='soft', checkpoint_path='/tmp/narlab-refbench-ck')
key = jax.random.PRNGKey(0)
t = time.time()
model.init([batches[0].features], 42)
init_s = time.time() - t
t = time.time()
key, k = jax.random.split(key)
loss = model.feedback(k, batches[0], algorithm_index=0)
jax.block_until_ready(loss)
first = time.time() - t
t = time.time()
for i in range(steps):
    key, k = jax.random.split(key)
    loss = model.feedback(k, batches[(i + 1) % 8], algorithm_index=0)
jax.block_until_ready(loss)
rate = steps / (time.time() - t)
print(json.dumps({'algo': algo, 'processor': proc, 'init_s': init_s, 'first_step_s': first,
                  'steps_per_s': rate, 'device': jax.devices()[0].platform}), flush=True)
