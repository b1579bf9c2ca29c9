#!/usr/bin/env python3
"""Time the reference CLRS-Text generation on the jobs of BenchmarkGenerate.

Every algorithm at its two smallest training sizes (Table 1), 200 rows each,
seed 0, one sampler per job, next(batch_size=1) then format_clrs_example,
exactly as generate_clrs_text.py does (without its tf.data / JSON output).
Uses the same loading as gen_reference.py.  Prints rows/s.

Usage:
  python3 bench_reference.py --clrs-ref /work/clrs-ref \
      --clrs-git /path/to/clrs/.git [--hints] [--format legacy|current]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_reference  # pylint: disable=g-import-not-at-top

TRAIN = [4, 5, 10, 11, 12, 15, 19, 23, 28, 31]


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument('--clrs-ref', required=True)
  ap.add_argument('--clrs-git', required=True)
  ap.add_argument('--hints', action='store_true')
  ap.add_argument('--format', default='legacy')
  ap.add_argument('--rows', type=int, default=200)
  a = ap.parse_args()
  sys.path.insert(0, os.path.join(a.clrs_ref, 'stubs'))
  sys.path.insert(1, a.clrs_ref)
  pkg = types.ModuleType('clrs')
  pkg.__path__ = [os.path.join(a.clrs_ref, 'clrs')]
  sys.modules['clrs'] = pkg
  from clrs._src import samplers, specs  # pylint: disable=g-import-not-at-top
  if a.format == 'current':
    mod = gen_reference._load('cu', os.path.join(  # pylint: disable=protected-access
        a.clrs_ref, 'clrs', '_src', 'clrs_text', 'clrs_utils.py'))
    dec = 3
  else:
    src = subprocess.run(
        ['git', '--git-dir', a.clrs_git, 'show',
         'v2.0.1:clrs/_src/clrs_text/clrs_utils.py'],
        check=True, capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory() as d:
      p = os.path.join(d, 'lu.py')
      with open(p, 'w') as f:
        f.write(src)
      mod = gen_reference._load('lu', p)  # pylint: disable=protected-access
    dec = None
  rows = 0
  t0 = time.perf_counter()
  for algo in specs.CLRS_30_ALGS:
    for length in TRAIN[:2]:
      s, _ = samplers.build_sampler(algo, seed=0, num_samples=-1,
                                    length=length, track_max_steps=False,
                                    truncate_decimals=dec)
      for _ in range(a.rows):
        q, ans = mod.format_clrs_example(algo, s.next(batch_size=1),
                                         use_hints=a.hints)
        rows += 1
  dt = time.perf_counter() - t0
  print(f'reference ({a.format}, hints={a.hints}): {rows} rows in {dt:.1f}s '
        f'= {rows/dt:.0f} rows/s')


if __name__ == '__main__':
  main()
