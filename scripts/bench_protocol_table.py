"""Renders scripts/bench_protocol.sh's rows (JSON lines) as a markdown table.

Usage: bench_protocol_table.py ROWS.jsonl BACKEND
Per row: the reference's and narlab's first step (compilation), short protocol, test split, steady-state
steps/s and peak memory, and whether narlab meets issue 31's bar (first step and protocol no slower,
memory no higher).
"""
import datetime
import json
import os
import platform
import re
import sys

rows_file, backend = sys.argv[1], sys.argv[2]
cpu = ''
for line in open('/proc/cpuinfo'):
    if line.startswith('model name'):
        cpu = line.split(':', 1)[1].strip()
        break
rows = [json.loads(line) for line in open(rows_file) if line.strip()]
dates = sorted({r.get('date', '?') for r in rows})
commits = sorted({c for r in rows for c in r.get('commit', '?').split('|')})  # a|b: one of these (rows recovered from the docs)
here = f'{platform.machine()} Linux, {os.cpu_count()} CPUs ({cpu})'
machines = []
for r in rows:
    if r.get('machine', here) not in machines:
        machines.append(r.get('machine', here))
print(f'Measured {", ".join(dates)} on {" and ".join(machines)} (each row both sides on one machine; "machine" in its line of results/protocol_rows.jsonl) by '
      f'scripts/bench_protocol.sh (narlab at {", ".join(commits)} on {backend}; reference dm-clrs 2.0.3 on jax 0.4.38 CPU). '
      f'Each cell: reference → narlab. Hidden 128, batches of 32.\n')
print('| algorithm | processor | first step (s) | short protocol (s) | test split n=64 (s) | steps/s | '
      'peak memory, protocol (MB) | peak memory, with steady-state training (MB) | bar |')
print('|---|---|---|---|---|---|---|---|---|')
met = total = 0
for r in rows:
    algo, proc = r['row'].split('/')
    ref = r.get('ref') or {}
    metrics = dict((k, float(v)) for v, k in re.findall(r'([\d.eE+-]+) (\S+)', r.get('narlab') or ''))
    nl = {'first_step_s': metrics.get('first_step_s'), 'protocol_s': metrics.get('protocol_s'),
          'test_s': metrics.get('test_s'), 'steps_per_s': metrics.get('steps/s'),
          'peak_rss_mb': metrics.get('peak_rss_mb'), 'peak_rss_all_mb': metrics.get('peak_rss_all_mb'),
          'test_processes': metrics.get('test_processes')}

    def cell(key, fmt):
        a, b = ref.get(key), nl.get(key)
        missing = '—' if key == 'peak_rss_all_mb' else 'failed'  # older rows did not measure it
        fa = format(a, fmt) if a is not None else missing
        fb = format(b, fmt) if b is not None else missing
        if key == 'test_s':  # a test split resumed across runs (scripts/bench_protocol.sh)
            fa += f' ({int(ref["test_processes"])} runs)' if ref.get('test_processes') else ''
            fb += f' ({int(nl["test_processes"])} runs)' if nl.get('test_processes') else ''
        return f'{fa} → {fb}'
    ok = None
    if ref and all(nl.get(k) is not None for k in ('first_step_s', 'protocol_s', 'peak_rss_mb')):
        ok = (nl['first_step_s'] <= ref['first_step_s'] and nl['protocol_s'] <= ref['protocol_s']
              and nl['peak_rss_mb'] <= ref['peak_rss_mb'])
        total += 1
        met += ok
    mark = {True: 'met', False: '**not met**', None: '—'}[ok]
    print(f'| {algo} | {proc} | {cell("first_step_s", ".1f")} | {cell("protocol_s", ".1f")} | '
          f'{cell("test_s", ".1f")} | {cell("steps_per_s", ".2f")} | {cell("peak_rss_mb", ".0f")} | '
          f'{cell("peak_rss_all_mb", ".0f")} | {mark} |')
print(f'\n{met} of {total} rows meet the bar (first step and short protocol no slower than the reference, '
      f'peak memory during the protocol no higher; "—": not measured by that row\'s version of the benchmark; '
      f'"(N runs)": a test split longer than a working session, resumed batch by batch across N runs, its time '
      f'the sum of the batches\' times, the short protocol that sum plus the last run\'s earlier phases, the peak '
      f'memory the highest of the runs).')
_ = datetime
