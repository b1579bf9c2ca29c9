#!/usr/bin/env python3
"""Generate extra CLRS-Text parity cases from the reference implementation.

Runs the reference dm-clrs samplers (the numpy-only harness in ../clrs-ref,
dm-clrs 2.0.3) and the reference text converter:

  * current format: clrs/_src/clrs_text/clrs_utils.py of dm-clrs 2.0.3, with
    the sampler's truncate_decimals = 3 or None;
  * legacy format: clrs_utils.py of the v2.0.1 tag (July 2024), read from a
    git checkout of google-deepmind/clrs at run time (--clrs-git), with the
    2.0.3 samplers and no truncation (v2.0.1 had none; the only later sampler
    change, the convex-hull collinearity resampling, triggers with
    probability ~0 and did not fire in these cases).

Nothing of the reference is copied into this repository: the script imports
it from the paths given.  Each output line is one JSON object
{"format", "decimals", "hints", "algo", "length", "seed", "index", "text"}
where text = question + answer of the index-th next(batch_size=1) of a
sampler built with (seed, length, num_samples=-1, track_max_steps=False).

Usage:
  python3 gen_reference.py --clrs-ref /work/clrs-ref \
      --clrs-git /path/to/clrs/.git > reference_cases.jsonl
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import types

LENGTHS = [4, 11]
SEEDS = [7, 94]
COUNT = 2
# At full precision the convex-hull coordinates show numpy's np.sin/np.cos
# in their last bit, and those depend on the CPU numpy runs on (SVML on
# AVX-512 machines, where the project's fixtures were made; other code paths
# elsewhere).  lib/clrs reproduces the AVX-512 results; on a machine without
# AVX-512 the reference itself prints different digits, so these cases are
# only generated when --with-hull-full-precision is given on an AVX-512 host.
CONVEX_HULL = ('graham_scan', 'jarvis_march')


def _load(name, path):
  spec = importlib.util.spec_from_file_location(name, path)
  mod = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(mod)
  return mod


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument('--clrs-ref', required=True)
  ap.add_argument('--clrs-git', required=True)
  ap.add_argument('--legacy-tag', default='v2.0.1')
  ap.add_argument('--with-hull-full-precision', action='store_true')
  a = ap.parse_args()

  sys.path.insert(0, os.path.join(a.clrs_ref, 'stubs'))
  sys.path.insert(1, a.clrs_ref)
  pkg = types.ModuleType('clrs')
  pkg.__path__ = [os.path.join(a.clrs_ref, 'clrs')]
  sys.modules['clrs'] = pkg
  from clrs._src import samplers, specs  # pylint: disable=g-import-not-at-top
  # Import clrs_utils without the clrs_text package __init__ (which needs
  # absl.app, tensorflow and ml_collections for the generator script).
  current = _load('clrs_utils_current', os.path.join(
      a.clrs_ref, 'clrs', '_src', 'clrs_text', 'clrs_utils.py'))

  src = subprocess.run(
      ['git', '--git-dir', a.clrs_git, 'show',
       f'{a.legacy_tag}:clrs/_src/clrs_text/clrs_utils.py'],
      check=True, capture_output=True, text=True).stdout
  with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, 'clrs_utils_legacy.py')
    with open(path, 'w') as f:
      f.write(src)
    legacy = _load('clrs_utils_legacy', path)

  variants = [('current', 3, current), ('current', None, current),
              ('legacy', None, legacy)]
  for fmt, dec, mod in variants:
    for hints in (False, True):
      for algo in specs.CLRS_30_ALGS:
        if (dec is None and fmt == 'current' and algo in CONVEX_HULL
            and not a.with_hull_full_precision):
          continue  # see CONVEX_HULL
        for length in LENGTHS:
          for seed in SEEDS:
            sampler, _ = samplers.build_sampler(
                algo, seed=seed, num_samples=-1, length=length,
                track_max_steps=False, truncate_decimals=dec)
            for i in range(COUNT):
              q, ans = mod.format_clrs_example(
                  algo, sampler.next(batch_size=1), use_hints=hints)
              print(json.dumps({
                  'format': fmt, 'decimals': dec, 'hints': hints,
                  'algo': algo, 'length': length, 'seed': seed, 'index': i,
                  'text': q + ans}))


if __name__ == '__main__':
  main()
